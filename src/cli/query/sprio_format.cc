#include "cli/query/sprio_format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "cli/format/format_spec.h"

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

}  // namespace

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
  return table.Render(*spec, rows, Ctx{}, options.no_header);
}

}  // namespace rota::cli
