#include "cli/query/sshare_format.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "cli/format/format_spec.h"
#include "common/strings.h"

namespace rota::cli {
namespace {

using format::FieldTable;
using format::FormatItem;
using format::FormatSpec;
using wire::FairshareRow;

// sshare's fields read nothing besides the row.
struct SshareContext {};

using Row = FairshareRow;
using Ctx = SshareContext;

std::string Fixed(double v) { return fmt::format("{:.6f}", v); }

// The fields by name, as Slurm 22.05's sshare spells them. Values and
// headers are cut to the width either way.
const FieldTable<Row, Ctx>& SshareFields() {
  static const FieldTable<Row, Ctx> table(
      "Invalid field requested: ",
      {
          {{0, "Account", "Account"},
           [](const Row& r, const Ctx&) { return std::string(r.depth(), ' ') + r.account(); }},
          {{0, "User", "User"}, [](const Row& r, const Ctx&) { return r.user(); }},
          {{0, "RawShares", "RawShares"}, [](const Row& r, const Ctx&) { return r.raw_shares(); }},
          {{0, "NormShares", "NormShares"},
           [](const Row& r, const Ctx&) { return Fixed(r.norm_shares()); }},
          {{0, "RawUsage", "RawUsage"},
           [](const Row& r, const Ctx&) { return fmt::format("{}", std::llround(r.raw_usage())); }},
          {{0, "NormUsage", "NormUsage"},
           [](const Row& r, const Ctx&) { return Fixed(r.norm_usage()); }},
          {{0, "EffectvUsage", "EffectvUsage"},
           [](const Row& r, const Ctx&) { return Fixed(r.effective_usage()); }},
          {{0, "FairShare", "FairShare"},
           [](const Row& r, const Ctx&) {
             return r.fairshare() < 0 ? std::string() : Fixed(r.fairshare());
           }},
          {{0, "LevelFS", "LevelFS"},
           [](const Row& r, const Ctx&) {
             if (r.level_fs() < 0 || (r.depth() == 0 && r.user().empty())) return std::string();
             return std::isinf(r.level_fs()) ? std::string("inf") : Fixed(r.level_fs());
           }},
      });
  return table;
}

// Each field's width when -o gives none, in the table's order; Account's
// values are left-justified, the others right-justified.
constexpr int kDefaultWidths[] = {20, 10, 10, 11, 11, 11, 13, 10, 10};
constexpr int kAccount = 0;
constexpr int kUser = 1;

// One -o entry, "Name" or "Name%width" (%0: the default width, as Slurm).
std::optional<FormatItem> ParseColumn(const FieldTable<Row, Ctx>& table, std::string_view text) {
  std::string_view name = text;
  std::optional<uint64_t> width;
  const size_t pct = text.find('%');
  if (pct != std::string_view::npos) {
    name = text.substr(0, pct);
    width = ParseUint(text.substr(pct + 1));
    if (!width || *width > 1000) return std::nullopt;
  }
  for (size_t i = 0; i < table.fields().size(); ++i) {
    if (!EqualsIgnoreCase(table.fields()[i].info.long_name, name)) continue;
    FormatItem item;
    item.field = static_cast<int>(i);
    item.width = width.value_or(0) > 0 ? static_cast<int>(*width) : kDefaultWidths[i];
    item.right = item.field != kAccount;
    return item;
  }
  return std::nullopt;
}

}  // namespace

std::string FormatSshare(const wire::FairshareResponse& response, const SshareOptions& options,
                         std::string* error) {
  const FieldTable<Row, Ctx>& table = SshareFields();
  std::vector<std::string> names = options.fields;
  if (names.empty()) {
    names = {"Account", "User", "RawShares", "NormShares", "RawUsage"};
    if (options.long_format) names.push_back("NormUsage");
    names.push_back("EffectvUsage");
    names.push_back("FairShare");
    if (options.long_format && response.fair_tree()) names.push_back("LevelFS");
  }
  FormatSpec spec;
  for (const std::string& n : names) {
    std::optional<FormatItem> item = ParseColumn(table, n);
    if (!item) {
      *error = fmt::format("{}\"{}\"", table.catalog().invalid_message, n);
      return "";
    }
    spec.items.push_back(*item);
  }

  std::vector<const Row*> rows;
  rows.reserve(static_cast<size_t>(response.rows_size()));
  for (const Row& row : response.rows()) rows.push_back(&row);

  if (options.parsable || options.parsable2) {
    // Natural widths, a '|' after each field (-P: between fields).
    for (size_t i = 0; i < spec.items.size(); ++i) {
      FormatItem& item = spec.items[i];
      item.width = 0;
      item.right = false;
      if (options.parsable || i + 1 < spec.items.size()) item.suffix = "|";
    }
    return table.Render(spec, rows, Ctx{}, options.no_header);
  }

  // Fixed width: a space after each field; headers justified as their
  // values, over a rule of dashes.
  for (FormatItem& item : spec.items) item.suffix = " ";
  std::string out;
  if (!options.no_header) {
    out += table.Render(spec, {}, Ctx{}, false);
    for (const FormatItem& item : spec.items) {
      out.append(static_cast<size_t>(item.width), '-');
      out += ' ';
    }
    out += '\n';
  }
  // As Slurm, a name (account, user) longer than its column ends in '+'
  // where it is cut; numbers are cut plainly.
  std::vector<int> width_of(table.fields().size(), 0);
  for (const FormatItem& item : spec.items) {
    int& width = width_of[static_cast<size_t>(item.field)];
    if (width == 0) width = item.width;
  }
  auto cell = [&](size_t r, int f) {
    std::string value = table.fields()[static_cast<size_t>(f)].value(*rows[r], Ctx{});
    const size_t width = static_cast<size_t>(width_of[static_cast<size_t>(f)]);
    if ((f == kAccount || f == kUser) && width > 0 && value.size() > width) {
      value.resize(width - 1);
      value += '+';
    }
    return value;
  };
  out += format::RenderListing(spec, table.catalog(), rows.size(), cell, true);
  return out;
}

}  // namespace rota::cli
