#include "common/tres.h"

#include <array>
#include <optional>

#include "common/memory_size.h"
#include "common/strings.h"

namespace rota {
namespace {

// Slurm's fixed TRES, in the order it prints them.
constexpr std::array<std::string_view, 8> kFixedTres = {"cpu",     "mem",     "energy", "node",
                                                        "billing", "fs/disk", "vmem",   "pages"};

// The types a "type/name" key may have.
constexpr std::array<std::string_view, 5> kTresTypes = {"gres", "license", "fs", "ic", "bb"};

size_t FixedRank(std::string_view key) {
  for (size_t i = 0; i < kFixedTres.size(); ++i) {
    if (kFixedTres[i] == key) return i;
  }
  return kFixedTres.size();
}

bool IsMemoryKey(std::string_view key) { return key == "mem" || key == "vmem"; }

// "invalid TRES "<item>": <why>": every Parse error names the item at fault.
Status InvalidItem(std::string_view item, std::string_view why) {
  std::string message = "invalid TRES \"";
  message += item;
  message += "\": ";
  message += why;
  return InvalidArgument(std::move(message));
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Canonical key for Set/Get: canonical when the key is valid, as given
// otherwise, so that a caller's "CPU" and "cpu" meet in one entry.
std::string LookupKey(std::string_view key) {
  Result<std::string> canonical = CanonicalTresKey(key);
  return canonical.ok() ? std::move(canonical).value() : std::string(key);
}

// One "key=value" item of a TRES string, split and with its key canonical.
struct TresItem {
  std::string key;
  std::string_view value;
};

Result<TresItem> SplitItem(std::string_view item) {
  size_t eq = item.find('=');
  if (eq == std::string_view::npos) return InvalidItem(item, "expected key=value");
  Result<std::string> key = CanonicalTresKey(item.substr(0, eq));
  if (!key.ok()) return InvalidItem(item, key.status().message());
  return TresItem{std::move(key).value(), item.substr(eq + 1)};
}

// Splits a TRES string into items, refusing empty ones.
Result<std::vector<std::string_view>> SplitItems(std::string_view text) {
  std::vector<std::string_view> items;
  if (text.empty()) return items;
  items = Split(text, ',');
  for (std::string_view item : items) {
    if (item.empty()) {
      return InvalidArgument("invalid TRES string " + Quoted(text) + ": empty item");
    }
  }
  return items;
}

// A memory weight "W<unit>" means W per <unit>; weights are kept per MB.
std::optional<double> MbPerUnit(char unit) {
  switch (unit) {
    case 'K':
    case 'k':
      return 1.0 / 1024;
    case 'M':
    case 'm':
      return 1.0;
    case 'G':
    case 'g':
      return 1024.0;
    case 'T':
    case 't':
      return 1024.0 * 1024;
    case 'P':
    case 'p':
      return 1024.0 * 1024 * 1024;
    default:
      return std::nullopt;
  }
}

}  // namespace

bool TresKeyLess(const std::string& a, const std::string& b) {
  size_t rank_a = FixedRank(a);
  size_t rank_b = FixedRank(b);
  if (rank_a != rank_b) return rank_a < rank_b;
  if (rank_a < kFixedTres.size()) return false;
  return a < b;
}

Result<std::string> CanonicalTresKey(std::string_view key) {
  if (key.empty()) return InvalidArgument("empty TRES name");
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) {
    std::string lower = ToLower(key);
    if (FixedRank(lower) == kFixedTres.size())
      return InvalidArgument("unknown TRES " + Quoted(key));
    return lower;
  }
  std::string type = ToLower(key.substr(0, slash));
  std::string_view name = key.substr(slash + 1);
  bool known_type = false;
  for (std::string_view t : kTresTypes) known_type = known_type || t == type;
  if (!known_type) return InvalidArgument("unknown TRES type in " + Quoted(key));
  if (name.empty()) return InvalidArgument("TRES " + Quoted(key) + " has no name");
  // GRES, file system, interconnect and burst buffer names are plugin names,
  // which Slurm matches without case. License names are the site's own and
  // are kept as written.
  return type + "/" + (type == "license" ? std::string(name) : ToLower(name));
}

Result<TresCounts> TresCounts::Parse(std::string_view text) {
  Result<std::vector<std::string_view>> items = SplitItems(text);
  if (!items.ok()) return items.status();
  TresCounts tres;
  for (std::string_view item : *items) {
    Result<TresItem> parsed = SplitItem(item);
    if (!parsed.ok()) return parsed.status();
    uint64_t value = 0;
    if (IsMemoryKey(parsed->key)) {
      Result<MemoryMb> mb = ParseMemoryMb(parsed->value);
      if (!mb.ok()) return InvalidItem(item, mb.status().message());
      value = *mb;
    } else {
      std::optional<uint64_t> count = ParseUint(parsed->value);
      if (!count) return InvalidItem(item, "bad count " + Quoted(parsed->value));
      value = *count;
    }
    if (tres.counts_.count(parsed->key) != 0) {
      return InvalidItem(item, "duplicate " + Quoted(parsed->key));
    }
    tres.counts_.emplace(std::move(parsed->key), value);
  }
  return tres;
}

void TresCounts::Set(std::string_view key, uint64_t value) { counts_[LookupKey(key)] = value; }

uint64_t TresCounts::Get(std::string_view key) const {
  auto it = counts_.find(LookupKey(key));
  return it == counts_.end() ? 0 : it->second;
}

bool TresCounts::Has(std::string_view key) const { return counts_.count(LookupKey(key)) != 0; }

std::string TresCounts::ToString() const {
  std::string out;
  for (const auto& [key, value] : counts_) {
    if (!out.empty()) out += ',';
    out += key;
    out += '=';
    out += IsMemoryKey(key) ? FormatMemoryMb(value) : std::to_string(value);
  }
  return out;
}

Result<TresWeights> ParseTresWeights(std::string_view text) {
  Result<std::vector<std::string_view>> items = SplitItems(text);
  if (!items.ok()) return items.status();
  TresWeights weights;
  for (std::string_view item : *items) {
    Result<TresItem> parsed = SplitItem(item);
    if (!parsed.ok()) return parsed.status();
    std::string_view number = parsed->value;
    double mb_per_unit = 1.0;
    if (IsMemoryKey(parsed->key) && !number.empty()) {
      if (std::optional<double> unit = MbPerUnit(number.back())) {
        mb_per_unit = *unit;
        number.remove_suffix(1);
      }
    }
    std::optional<double> weight = ParseDouble(number);
    if (!weight || *weight < 0) return InvalidItem(item, "bad weight " + Quoted(parsed->value));
    if (weights.count(parsed->key) != 0) {
      return InvalidItem(item, "duplicate " + Quoted(parsed->key));
    }
    weights.emplace(std::move(parsed->key), *weight / mb_per_unit);
  }
  return weights;
}

}  // namespace rota
