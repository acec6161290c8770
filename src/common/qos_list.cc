#include "common/qos_list.h"

#include <algorithm>
#include <set>

#include "common/strings.h"

namespace rota {
namespace {

bool IsEdit(std::string_view name) { return name[0] == '+' || name[0] == '-'; }

std::string JoinSet(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ',';
    out += n;
  }
  return out;
}

// Applies "+a" / "-a" edits to `base`.
void ApplyEdits(std::set<std::string>& base, const std::vector<std::string>& edits) {
  for (const std::string& e : edits) {
    if (e[0] == '+') base.insert(e.substr(1));
    if (e[0] == '-') base.erase(e.substr(1));
  }
}

}  // namespace

std::string EditQosList(std::string_view own, char op, std::string_view names) {
  std::vector<std::string> given = SplitCommaList(names);
  for (std::string& n : given) n = std::string(Trim(n));
  std::erase_if(given, [](const std::string& n) { return n.empty(); });
  if (op == '=') {
    std::set<std::string> plain(given.begin(), given.end());
    return JoinSet(plain);
  }
  std::vector<std::string> current = SplitCommaList(own);
  const bool edits = current.empty() || IsEdit(current.front());
  if (!edits) {
    std::set<std::string> plain(current.begin(), current.end());
    for (const std::string& n : given) {
      if (op == '+') plain.insert(n);
      if (op == '-') plain.erase(n);
    }
    return JoinSet(plain);
  }
  // An edit list: the newest edit of a name wins.
  std::set<std::string> out;
  for (const std::string& e : current) {
    const std::string name = e.substr(1);
    if (std::find(given.begin(), given.end(), name) == given.end()) out.insert(e);
  }
  for (const std::string& n : given) out.insert(std::string(1, op) + n);
  return JoinSet(out);
}

std::optional<std::vector<std::string>> ResolveQosList(const std::vector<std::string>& chain) {
  // Edits met below the base, nearest first.
  std::vector<std::vector<std::string>> edits;
  std::optional<std::set<std::string>> base;
  for (const std::string& own : chain) {
    std::vector<std::string> names = SplitCommaList(own);
    if (names.empty()) continue;
    if (!IsEdit(names.front())) {
      base.emplace(names.begin(), names.end());
      break;
    }
    edits.push_back(std::move(names));
  }
  if (!base && edits.empty()) return std::nullopt;
  if (!base) base.emplace(std::set<std::string>{"normal"});
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) ApplyEdits(*base, *it);
  return std::vector<std::string>(base->begin(), base->end());
}

}  // namespace rota
