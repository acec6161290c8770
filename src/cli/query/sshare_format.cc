#include "cli/query/sshare_format.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "common/strings.h"

namespace rota::cli {
namespace {

enum class Field {
  kAccount,
  kUser,
  kRawShares,
  kNormShares,
  kRawUsage,
  kNormUsage,
  kEffectv,
  kFairShare,
  kLevelFs
};

struct FieldSpec {
  std::string_view name;
  Field field;
  int width;
};

constexpr FieldSpec kFields[] = {
    {"Account", Field::kAccount, 20},      {"User", Field::kUser, 10},
    {"RawShares", Field::kRawShares, 10},  {"NormShares", Field::kNormShares, 11},
    {"RawUsage", Field::kRawUsage, 11},    {"NormUsage", Field::kNormUsage, 11},
    {"EffectvUsage", Field::kEffectv, 13}, {"FairShare", Field::kFairShare, 10},
    {"LevelFS", Field::kLevelFs, 10},
};

struct Column {
  FieldSpec spec;
  int width;
};

std::optional<Column> ParseColumn(std::string_view text) {
  std::string_view name = text;
  std::optional<int> width;
  size_t pct = text.find('%');
  if (pct != std::string_view::npos) {
    name = text.substr(0, pct);
    std::optional<uint64_t> w = ParseUint(text.substr(pct + 1));
    if (!w || *w > 1000) return std::nullopt;
    width = static_cast<int>(*w);
  }
  for (const FieldSpec& f : kFields) {
    if (EqualsIgnoreCase(f.name, name)) return Column{f, width.value_or(f.width)};
  }
  return std::nullopt;
}

std::string Fixed(double v) { return fmt::format("{:.6f}", v); }

std::string Value(const wire::FairshareRow& row, Field f) {
  switch (f) {
    case Field::kAccount:
      return std::string(row.depth(), ' ') + row.account();
    case Field::kUser:
      return row.user();
    case Field::kRawShares:
      return row.raw_shares();
    case Field::kNormShares:
      return Fixed(row.norm_shares());
    case Field::kRawUsage:
      return fmt::format("{}", std::llround(row.raw_usage()));
    case Field::kNormUsage:
      return Fixed(row.norm_usage());
    case Field::kEffectv:
      return Fixed(row.effective_usage());
    case Field::kFairShare:
      return row.fairshare() < 0 ? "" : Fixed(row.fairshare());
    case Field::kLevelFs:
      if (row.level_fs() < 0 || (row.depth() == 0 && row.user().empty())) return "";
      return std::isinf(row.level_fs()) ? "inf" : Fixed(row.level_fs());
  }
  return "";
}

}  // namespace

std::string FormatSshare(const wire::FairshareResponse& response, const SshareOptions& options,
                         std::string* error) {
  std::vector<std::string> names = options.fields;
  if (names.empty()) {
    names = {"Account", "User", "RawShares", "NormShares", "RawUsage"};
    if (options.long_format) names.push_back("NormUsage");
    names.push_back("EffectvUsage");
    names.push_back("FairShare");
    if (options.long_format && response.fair_tree()) names.push_back("LevelFS");
  }
  std::vector<Column> columns;
  for (const std::string& n : names) {
    std::optional<Column> c = ParseColumn(n);
    if (!c) {
      *error = fmt::format("Invalid field requested: \"{}\"", n);
      return "";
    }
    columns.push_back(*c);
  }
  const bool parsable = options.parsable || options.parsable2;
  auto line = [&](auto cell) {
    std::string out;
    for (size_t i = 0; i < columns.size(); ++i) {
      const Column& c = columns[i];
      std::string text = cell(c);
      if (parsable) {
        out += text;
        if (options.parsable || i + 1 < columns.size()) out += '|';
        continue;
      }
      if (static_cast<int>(text.size()) > c.width) text.resize(c.width);
      out += text;
      out.append(c.width - text.size(), ' ');
      out += ' ';
    }
    out += '\n';
    return out;
  };
  auto right = [](const std::string& text, int width) {
    return text.size() >= static_cast<size_t>(width) ? text
                                                     : std::string(width - text.size(), ' ') + text;
  };
  std::string out;
  if (!options.no_header) {
    if (parsable) {
      out += line([](const Column& c) { return std::string(c.spec.name); });
    } else {
      std::string header, rule;
      for (const Column& c : columns) {
        header += right(std::string(c.spec.name).substr(0, c.width), c.width) + ' ';
        rule += std::string(c.width, '-') + ' ';
      }
      out += header + '\n' + rule + '\n';
    }
  }
  for (const wire::FairshareRow& row : response.rows()) {
    out += line([&](const Column& c) {
      std::string text = Value(row, c.spec.field);
      // Accounts read left to right; the other columns are right-justified.
      if (parsable || c.spec.field == Field::kAccount) return text;
      return right(text, c.width);
    });
  }
  return out;
}

}  // namespace rota::cli
