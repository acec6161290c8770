#include "common/gres_spec.h"

#include "common/strings.h"

namespace rota {
namespace {

Status InvalidGres(std::string_view text, std::string_view why) {
  std::string message = "invalid GRES \"";
  message += text;
  message += "\": ";
  message += why;
  return InvalidArgument(std::move(message));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// True when `field` has the shape of a count: digits with at most one
// K/M/G suffix. Shape decides whether "gpu:X" names a type or a count.
bool LooksLikeCount(std::string_view field) {
  if (field.empty()) return false;
  size_t digits_end = field.size();
  char last = field.back();
  if (!IsDigit(last)) {
    if (std::string_view("kKmMgG").find(last) == std::string_view::npos) return false;
    --digits_end;
  }
  if (digits_end == 0) return false;
  for (size_t i = 0; i < digits_end; ++i) {
    if (!IsDigit(field[i])) return false;
  }
  return true;
}

// REQUIRES: LooksLikeCount(field). nullopt when the count overflows.
std::optional<uint64_t> ParseCount(std::string_view field) {
  uint64_t multiplier = 1;
  switch (field.back()) {
    case 'k':
    case 'K':
      multiplier = uint64_t{1} << 10;
      break;
    case 'm':
    case 'M':
      multiplier = uint64_t{1} << 20;
      break;
    case 'g':
    case 'G':
      multiplier = uint64_t{1} << 30;
      break;
    default:
      break;
  }
  if (multiplier != 1) field.remove_suffix(1);
  std::optional<uint64_t> value = ParseUint(field);
  if (!value || *value > UINT64_MAX / multiplier) return std::nullopt;
  return *value * multiplier;
}

}  // namespace

std::string GresSpec::ToString() const {
  std::string out = name;
  if (!type.empty()) {
    out += ':';
    out += type;
  }
  out += ':';
  out += std::to_string(count);
  return out;
}

Result<uint64_t> ParseGresCount(std::string_view text) {
  std::string message = "invalid GRES count \"" + std::string(text) + "\"";
  if (!LooksLikeCount(text)) return InvalidArgument(std::move(message));
  std::optional<uint64_t> count = ParseCount(text);
  if (!count) return InvalidArgument(message + ": too large");
  return *count;
}

Result<GresSpec> ParseGresSpec(std::string_view text) {
  std::vector<std::string_view> fields = Split(text, ':');
  if (fields.size() > 3) return InvalidGres(text, "expected name[:type][:count]");
  if (fields[0].empty()) return InvalidGres(text, "empty name");
  for (std::string_view field : fields) {
    if (field.empty()) return InvalidGres(text, "empty field");
  }
  GresSpec spec;
  spec.name = std::string(fields[0]);
  if (fields.size() == 1) return spec;

  // The last field is the count when it has a count's shape; with three
  // fields it must be one.
  std::string_view last = fields.back();
  const bool has_count = LooksLikeCount(last);
  if (fields.size() == 3 && !has_count)
    return InvalidGres(text, "bad count \"" + std::string(last) + "\"");
  if (has_count) {
    std::optional<uint64_t> count = ParseCount(last);
    if (!count) return InvalidGres(text, "count \"" + std::string(last) + "\" is too large");
    spec.count = *count;
  }
  if (fields.size() == 3 || !has_count) spec.type = std::string(fields[1]);
  return spec;
}

Result<std::vector<GresSpec>> ParseGresList(std::string_view text) {
  std::vector<GresSpec> list;
  // Slurm prints an unset GRES field as "(null)" and reads it back that way.
  if (text.empty() || text == "(null)") return list;
  for (std::string_view item : Split(text, ',')) {
    if (item.empty()) {
      return InvalidArgument("invalid GRES list \"" + std::string(text) + "\": empty item");
    }
    Result<GresSpec> spec = ParseGresSpec(item);
    if (!spec.ok()) return spec.status();
    list.push_back(std::move(spec).value());
  }
  return list;
}

std::string FormatGresList(const std::vector<GresSpec>& list) {
  std::string out;
  for (const GresSpec& spec : list) {
    if (!out.empty()) out += ',';
    out += spec.ToString();
  }
  return out;
}

}  // namespace rota
