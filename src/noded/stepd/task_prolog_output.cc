#include "noded/stepd/task_prolog_output.h"

#include <algorithm>

namespace rota::noded {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

void Unset(std::vector<std::string>& env, std::string_view name) {
  std::erase_if(env, [&](const std::string& e) {
    return e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=';
  });
}

}  // namespace

std::string ApplyTaskPrologOutput(std::string_view output, std::vector<std::string>& env) {
  std::string printed;
  while (!output.empty()) {
    const size_t end = output.find('\n');
    std::string_view line = output.substr(0, end);
    output = end == std::string_view::npos ? std::string_view() : output.substr(end + 1);
    // The keyword must be followed by a blank, as in Slurm ("exporter" is no request).
    if (line.starts_with("print ")) {
      printed += TrimLeft(line.substr(6));
      printed += '\n';
    } else if (line.starts_with("export ")) {
      std::string_view rest = TrimLeft(line.substr(7));
      const size_t equals = rest.find('=');
      if (equals == std::string_view::npos) continue;
      std::string_view name = TrimRight(rest.substr(0, equals));
      if (name.empty()) continue;
      // The value is everything after '=', spaces included: a prolog may
      // export a value that ends in blanks on purpose.
      std::string_view value = rest.substr(equals + 1);
      Unset(env, name);
      env.push_back(std::string(name) + "=" + std::string(value));
    } else if (line.starts_with("unset ")) {
      std::string_view name = TrimRight(TrimLeft(line.substr(6)));
      if (!name.empty()) Unset(env, name);
    }
  }
  return printed;
}

}  // namespace rota::noded
