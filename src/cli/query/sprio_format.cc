#include "cli/query/sprio_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <variant>

#include "cli/format/format_spec.h"
#include "common/strings.h"

namespace rota::cli {
namespace {

using format::Field;
using format::FieldTable;
using format::FormatItem;
using format::FormatSpec;
using wire::PriorityFactors;
using wire::PriorityRow;
using wire::PriorityWeightsInfo;

// What a field may read besides the job: set, the line is -w's "Weights"
// line and shows the configured weights instead (the row is then empty).
struct SprioContext {
  const PriorityWeightsInfo* weights = nullptr;
};

using Row = PriorityRow;
using Ctx = SprioContext;

std::string Whole(double v) { return fmt::format("{}", std::llround(v)); }
std::string Factor(double v) { return fmt::format("{:.7f}", v); }

// One factor of the priority: capital letter (weighted value, rounded) and
// small letter (the factor in [0, 1]); both show the weight on -w's line.
template <double (PriorityFactors::*kFactor)() const,
          uint32_t (PriorityWeightsInfo::*kWeight)() const>
std::string Weighted(const Row& row, const Ctx& ctx) {
  return ctx.weights ? std::to_string((ctx.weights->*kWeight)())
                     : Whole((row.weighted().*kFactor)());
}
template <double (PriorityFactors::*kFactor)() const,
          uint32_t (PriorityWeightsInfo::*kWeight)() const>
std::string Normalized(const Row& row, const Ctx& ctx) {
  return ctx.weights ? std::to_string((ctx.weights->*kWeight)())
                     : Factor((row.normalized().*kFactor)());
}

// The letters of Slurm 22.05's sprio. Values and headers are cut to the
// width either way, as sprio always did. Partition, user, priority, nice and
// cluster have no weight: empty on -w's line.
const FieldTable<Row, Ctx>& SprioFields() {
  static const FieldTable<Row, Ctx> table(
      "Invalid job format specification: ",
      {
          {{'i', {}, "JOBID"},
           [](const Row& r, const Ctx& c) {
             return c.weights ? std::string("Weights") : std::to_string(r.job_id());
           }},
          {{'r', {}, "PARTITION"},
           [](const Row& r, const Ctx& c) { return c.weights ? std::string() : r.partition(); }},
          {{'u', {}, "USER"},
           [](const Row& r, const Ctx& c) { return c.weights ? std::string() : r.user(); }},
          {{'Y', {}, "PRIORITY"},
           [](const Row& r, const Ctx& c) {
             return c.weights ? std::string() : std::to_string(r.priority());
           }},
          {{'y', {}, "PRIORITY"},
           [](const Row& r, const Ctx& c) {
             return c.weights ? std::string() : Factor(r.priority() / 4294967295.0);
           }},
          {{'S', {}, "SITE"},
           [](const Row&, const Ctx& c) {
             return c.weights ? std::to_string(c.weights->site()) : std::string("0");
           }},
          {{'A', {}, "AGE"}, Weighted<&PriorityFactors::age, &PriorityWeightsInfo::age>},
          {{'a', {}, "AGE"}, Normalized<&PriorityFactors::age, &PriorityWeightsInfo::age>},
          {{'B', {}, "ASSOC"}, Weighted<&PriorityFactors::assoc, &PriorityWeightsInfo::assoc>},
          {{'b', {}, "ASSOC"}, Normalized<&PriorityFactors::assoc, &PriorityWeightsInfo::assoc>},
          {{'F', {}, "FAIRSHARE"},
           Weighted<&PriorityFactors::fairshare, &PriorityWeightsInfo::fairshare>},
          {{'f', {}, "FAIRSHARE"},
           Normalized<&PriorityFactors::fairshare, &PriorityWeightsInfo::fairshare>},
          {{'J', {}, "JOBSIZE"},
           Weighted<&PriorityFactors::job_size, &PriorityWeightsInfo::job_size>},
          {{'j', {}, "JOBSIZE"},
           Normalized<&PriorityFactors::job_size, &PriorityWeightsInfo::job_size>},
          {{'P', {}, "PARTITION"},
           Weighted<&PriorityFactors::partition, &PriorityWeightsInfo::partition>},
          {{'p', {}, "PARTITION"},
           Normalized<&PriorityFactors::partition, &PriorityWeightsInfo::partition>},
          {{'Q', {}, "QOS"}, Weighted<&PriorityFactors::qos, &PriorityWeightsInfo::qos>},
          {{'q', {}, "QOS"}, Normalized<&PriorityFactors::qos, &PriorityWeightsInfo::qos>},
          {{'N', {}, "NICE"},
           [](const Row& r, const Ctx& c) {
             return c.weights ? std::string() : std::to_string(r.weighted().nice());
           }},
          {{'n', {}, "NICE"},
           [](const Row& r, const Ctx& c) {
             return c.weights ? std::string() : std::to_string(r.weighted().nice());
           }},
          {{'T', {}, "TRES"},
           [](const Row& r, const Ctx& c) {
             return c.weights ? c.weights->tres() : r.weighted().tres();
           }},
          {{'t', {}, "TRES"},
           [](const Row& r, const Ctx& c) {
             return c.weights ? c.weights->tres() : r.normalized().tres();
           }},
          {{'c', {}, "CLUSTER"}, [](const Row&, const Ctx&) { return std::string(); }},
      });
  return table;
}

int FindLetter(const FieldTable<Row, Ctx>& table, char letter) {
  const auto& fields = table.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].info.letter == letter) return static_cast<int>(i);
  }
  return -1;
}

// -n: a weighted value's letter becomes its factor's (small) letter.
void UseFactors(const FieldTable<Row, Ctx>& table, FormatSpec& spec) {
  for (FormatItem& item : spec.items) {
    if (item.field < 0) continue;
    const char letter = table.fields()[static_cast<size_t>(item.field)].info.letter;
    if (std::string_view("YABFJPQT").find(letter) == std::string_view::npos) continue;
    item.field = FindLetter(table, static_cast<char>(letter - 'A' + 'a'));
  }
}

// The sum of a TRES string's values ("gres/gpu=31,mem=2"): -S T and t.
double TresSum(const std::string& tres) {
  double sum = 0;
  for (std::string_view item : Split(tres, ',')) {
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos)
      sum += std::strtod(std::string(item.substr(eq + 1)).c_str(), nullptr);
  }
  return sum;
}

// What -S compares for a letter: a number or a text of the row; none for a
// letter sprio cannot sort by. Weighted and normalized letters order alike.
using SortValue = std::variant<double, std::string>;
std::optional<std::function<SortValue(const Row&)>> SortKey(char letter) {
  using F = std::function<SortValue(const Row&)>;
  switch (letter) {
    case 'i':
      return F([](const Row& r) -> SortValue { return double(r.job_id()); });
    case 'r':
      return F([](const Row& r) -> SortValue { return r.partition(); });
    case 'u':
      return F([](const Row& r) -> SortValue { return r.user(); });
    case 'c':
      return F([](const Row&) -> SortValue { return 0.0; });  // One cluster
    case 'S':
      return F([](const Row&) -> SortValue { return 0.0; });  // No site factor
    case 'N':
      return F([](const Row& r) -> SortValue { return double(r.weighted().nice()); });
    case 'Y':
    case 'y':
      return F([](const Row& r) -> SortValue { return double(r.priority()); });
    case 'A':
    case 'a':
      return F([](const Row& r) -> SortValue { return r.weighted().age(); });
    case 'B':
    case 'b':
      return F([](const Row& r) -> SortValue { return r.weighted().assoc(); });
    case 'F':
    case 'f':
      return F([](const Row& r) -> SortValue { return r.weighted().fairshare(); });
    case 'J':
    case 'j':
      return F([](const Row& r) -> SortValue { return r.weighted().job_size(); });
    case 'P':
    case 'p':
      return F([](const Row& r) -> SortValue { return r.weighted().partition(); });
    case 'Q':
    case 'q':
      return F([](const Row& r) -> SortValue { return r.weighted().qos(); });
    case 'T':
    case 't':
      return F([](const Row& r) -> SortValue { return TresSum(r.weighted().tres()); });
    default:
      return std::nullopt;
  }
}

struct SortBy {
  std::function<SortValue(const Row&)> key;
  bool descending = false;
};

Result<std::vector<SortBy>> ParseSort(std::string_view sort) {
  std::vector<SortBy> keys;
  bool descending = false;
  for (char c : sort) {
    if (c == ',') continue;
    if (c == '+' || c == '-') {
      descending = c == '-';
      continue;
    }
    auto key = SortKey(c);
    if (!key) return InvalidArgument(std::string("Invalid sort specification: ") + c);
    keys.push_back({std::move(*key), descending});
    descending = false;
  }
  return keys;
}

}  // namespace

Status CheckSprioSort(std::string_view sort) { return ParseSort(sort).status(); }

std::string FormatSprio(const wire::PriorityResponse& response, const SprioOptions& options,
                        std::string* error) {
  const FieldTable<Row, Ctx>& table = SprioFields();
  // As Slurm: the default shows ASSOC only when its weight is set.
  const bool assoc = options.format == kSprioDefaultFormat && response.weights().assoc() > 0;
  Result<FormatSpec> spec = table.ParseShort(assoc ? kSprioAssocFormat : options.format);
  if (!spec.ok()) {
    *error = spec.status().message();
    return "";
  }
  // Slurm carries on past an unknown letter; sprio here stops at the first.
  if (!spec->errors.empty()) {
    *error = spec->errors.front();
    return "";
  }
  if (options.normalized) UseFactors(table, *spec);
  if (options.weights) {
    const Row none;
    const Row* line[] = {&none};
    return table.Render(*spec, line, Ctx{&response.weights()}, options.no_header);
  }
  std::vector<const Row*> rows;
  rows.reserve(static_cast<size_t>(response.rows_size()));
  for (const Row& row : response.rows()) rows.push_back(&row);
  Result<std::vector<SortBy>> sort = ParseSort(options.sort);
  if (!sort.ok()) {
    *error = sort.status().message();
    return "";
  }
  // The first letter decides first; ties keep the order of the next ones.
  std::stable_sort(rows.begin(), rows.end(), [&](const Row* a, const Row* b) {
    for (const SortBy& by : *sort) {
      const SortValue x = by.key(*a), y = by.key(*b);
      if (x != y) return by.descending ? y < x : x < y;
    }
    return false;
  });
  return table.Render(*spec, rows, Ctx{}, options.no_header);
}

}  // namespace rota::cli
