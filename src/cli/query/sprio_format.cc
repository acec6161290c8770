#include "cli/query/sprio_format.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

namespace rota::cli {
namespace {

struct Field {
  std::string literal;  // Text before the field (or all of it for a trailing literal)
  char letter = 0;      // 0: literal only
  bool right = false;
  size_t width = 0;
};

std::optional<std::vector<Field>> ParseFormat(const std::string& format, std::string* error) {
  std::vector<Field> fields;
  std::string literal;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      literal += format[i];
      continue;
    }
    Field f;
    f.literal = std::move(literal);
    literal.clear();
    ++i;
    if (i < format.size() && format[i] == '.') {
      f.right = true;
      ++i;
    }
    while (i < format.size() && format[i] >= '0' && format[i] <= '9') {
      f.width = f.width * 10 + static_cast<size_t>(format[i] - '0');
      ++i;
    }
    if (i >= format.size()) {
      *error = "Invalid format specification: " + format;
      return std::nullopt;
    }
    f.letter = format[i];
    if (std::string_view("iruYySaAbBfFjJpPqQNnTtc").find(f.letter) == std::string_view::npos) {
      *error = fmt::format("Invalid job format specification: {}", f.letter);
      return std::nullopt;
    }
    fields.push_back(std::move(f));
  }
  if (!literal.empty()) {
    Field tail;
    tail.literal = std::move(literal);
    fields.push_back(std::move(tail));
  }
  return fields;
}

std::string Header(char letter) {
  switch (letter) {
    case 'i':
      return "JOBID";
    case 'r':
      return "PARTITION";
    case 'u':
      return "USER";
    case 'Y':
    case 'y':
      return "PRIORITY";
    case 'S':
      return "SITE";
    case 'a':
    case 'A':
      return "AGE";
    case 'b':
    case 'B':
      return "ASSOC";
    case 'f':
    case 'F':
      return "FAIRSHARE";
    case 'j':
    case 'J':
      return "JOBSIZE";
    case 'p':
    case 'P':
      return "PARTITION";
    case 'q':
    case 'Q':
      return "QOS";
    case 'N':
    case 'n':
      return "NICE";
    case 't':
    case 'T':
      return "TRES";
    case 'c':
      return "CLUSTER";
  }
  return "";
}

std::string Whole(double v) { return fmt::format("{}", std::llround(v)); }
std::string Factor(double v) { return fmt::format("{:.7f}", v); }

std::string JobValue(char letter, const wire::PriorityRow& row) {
  const wire::PriorityFactors& w = row.weighted();
  const wire::PriorityFactors& n = row.normalized();
  switch (letter) {
    case 'i':
      return std::to_string(row.job_id());
    case 'r':
      return row.partition();
    case 'u':
      return row.user();
    case 'Y':
      return std::to_string(row.priority());
    case 'y':
      return Factor(row.priority() / 4294967295.0);
    case 'S':
      return "0";
    case 'A':
      return Whole(w.age());
    case 'a':
      return Factor(n.age());
    case 'B':
      return Whole(w.assoc());
    case 'b':
      return Factor(n.assoc());
    case 'F':
      return Whole(w.fairshare());
    case 'f':
      return Factor(n.fairshare());
    case 'J':
      return Whole(w.job_size());
    case 'j':
      return Factor(n.job_size());
    case 'P':
      return Whole(w.partition());
    case 'p':
      return Factor(n.partition());
    case 'Q':
      return Whole(w.qos());
    case 'q':
      return Factor(n.qos());
    case 'N':
    case 'n':
      return std::to_string(w.nice());
    case 'T':
      return w.tres();
    case 't':
      return n.tres();
  }
  return "";
}

std::string WeightValue(char letter, const wire::PriorityWeightsInfo& w) {
  switch (letter) {
    case 'i':
      return "Weights";
    case 'S':
      return std::to_string(w.site());
    case 'a':
    case 'A':
      return std::to_string(w.age());
    case 'b':
    case 'B':
      return std::to_string(w.assoc());
    case 'f':
    case 'F':
      return std::to_string(w.fairshare());
    case 'j':
    case 'J':
      return std::to_string(w.job_size());
    case 'p':
    case 'P':
      return std::to_string(w.partition());
    case 'q':
    case 'Q':
      return std::to_string(w.qos());
    case 't':
    case 'T':
      return w.tres();
  }
  return "";  // Partition, user, priority and nice have no weight.
}

void Cell(std::string& line, const Field& f, std::string value) {
  line += f.literal;
  if (f.letter == 0) return;
  if (f.width > 0 && value.size() > f.width) value.resize(f.width);
  if (f.width == 0) {
    line += value;
  } else if (f.right) {
    line += fmt::format("{:>{}}", value, f.width);
  } else {
    line += fmt::format("{:<{}}", value, f.width);
  }
}

char Normalized(char letter) {
  switch (letter) {
    case 'Y':
    case 'A':
    case 'B':
    case 'F':
    case 'J':
    case 'P':
    case 'Q':
    case 'T':
      return static_cast<char>(letter - 'A' + 'a');
  }
  return letter;
}

}  // namespace

std::string FormatSprio(const wire::PriorityResponse& response, const SprioOptions& options,
                        std::string* error) {
  // As Slurm: the default shows ASSOC only when its weight is set.
  const bool assoc = options.format == kSprioDefaultFormat && response.weights().assoc() > 0;
  std::optional<std::vector<Field>> fields =
      ParseFormat(assoc ? kSprioAssocFormat : options.format, error);
  if (!fields) return "";
  if (options.normalized) {
    for (Field& f : *fields) f.letter = Normalized(f.letter);
  }
  std::string out;
  auto emit = [&](auto value_of) {
    std::string line;
    for (const Field& f : *fields) Cell(line, f, f.letter == 0 ? "" : value_of(f.letter));
    out += line + "\n";
  };
  if (!options.no_header) emit([](char letter) { return Header(letter); });
  if (options.weights) {
    emit([&](char letter) { return WeightValue(letter, response.weights()); });
    return out;
  }
  for (const wire::PriorityRow& row : response.rows()) {
    emit([&](char letter) { return JobValue(letter, row); });
  }
  return out;
}

}  // namespace rota::cli
