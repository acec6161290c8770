#include "cli/query/sshare_format.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "cli/format/accounting_table.h"
#include "cli/format/format_spec.h"
#include "common/strings.h"

namespace rota::cli {
namespace {

using format::FieldTable;
using format::TableColumn;
using wire::FairshareRow;

// sshare's fields read nothing besides the row.
struct SshareContext {
  const std::string* cluster = nullptr;
};

using Row = FairshareRow;
using Ctx = SshareContext;

std::string Fixed(double v) { return fmt::format("{:.6f}", v); }

// The fields by name, as Slurm 22.05's sshare spells them, with their
// headers and values.
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
          {{0, "Cluster", "Cluster"},
           [](const Row&, const Ctx& c) { return c.cluster ? *c.cluster : std::string(); }},
          // Associations are per account and user, never per partition: blank.
          {{0, "Partition", "Partition"}, [](const Row&, const Ctx&) { return std::string(); }},
      });
  return table;
}

// Each field's width when -o gives none, in the table's order; Account's
// values are left-justified, the others right-justified.
constexpr int kDefaultWidths[] = {20, 10, 10, 11, 11, 11, 13, 10, 10, 10, 12};
constexpr size_t kAccount = 0;
constexpr size_t kUser = 1;

// A column of the listing: which field, and how it is printed.
struct Column {
  size_t field;
  TableColumn layout;
};

// One -o entry, "Name" or "Name%width" (%0: the default width, as Slurm). A
// name (account, user) cut to its column ends in '+'; numbers are cut plainly.
std::optional<Column> ParseColumn(const FieldTable<Row, Ctx>& table, std::string_view text) {
  std::optional<format::NamedWidth> entry = format::ParseNamedWidth(text);
  if (!entry || entry->width.value_or(0) > 1000) return std::nullopt;
  for (size_t i = 0; i < table.fields().size(); ++i) {
    if (!EqualsIgnoreCase(table.fields()[i].info.long_name, entry->name)) continue;
    const int width =
        entry->width.value_or(0) > 0 ? static_cast<int>(*entry->width) : kDefaultWidths[i];
    return Column{i,
                  {std::string(table.fields()[i].info.header), width, i == kAccount,
                   i == kAccount || i == kUser}};
  }
  return std::nullopt;
}

}  // namespace

std::string FormatSshare(const wire::FairshareResponse& response, const SshareOptions& options,
                         std::string* error) {
  const FieldTable<Row, Ctx>& table = SshareFields();
  std::vector<std::string> names = options.fields;
  if (names.empty()) {
    names = {"Account", "User"};
    if (options.partitions) names.push_back("Partition");
    for (const char* n : {"RawShares", "NormShares", "RawUsage"}) names.push_back(n);
    if (options.long_format) names.push_back("NormUsage");
    names.push_back("EffectvUsage");
    names.push_back("FairShare");
    if (options.long_format && response.fair_tree()) names.push_back("LevelFS");
  }
  std::vector<size_t> fields;
  std::vector<TableColumn> columns;
  for (const std::string& n : names) {
    std::optional<Column> column = ParseColumn(table, n);
    if (!column) {
      *error = fmt::format("{}\"{}\"", table.catalog().invalid_message, n);
      return "";
    }
    fields.push_back(column->field);
    columns.push_back(std::move(column->layout));
  }

  const format::TableLayout layout = options.parsable    ? format::TableLayout::kParsable
                                     : options.parsable2 ? format::TableLayout::kParsable2
                                                         : format::TableLayout::kAligned;
  std::string out;
  if (!options.no_header) format::AppendTableHeader(out, columns, layout);
  const Ctx ctx{&options.cluster};
  for (const Row& row : response.rows()) {
    if (options.users_only && row.user().empty()) continue;
    format::AppendTableLine(out, columns, layout,
                            [&](size_t i) { return table.fields()[fields[i]].value(row, ctx); });
  }
  return out;
}

std::string SshareHelpFormat() {
  // Slurm's order of the names; those Rota has no figure for (ID,
  // GrpTRESMins, TRESRunMins) are not offered.
  static constexpr const char* kNames[] = {"Account",   "Cluster",    "EffectvUsage", "FairShare",
                                           "LevelFS",   "NormShares", "NormUsage",    "Partition",
                                           "RawShares", "RawUsage",   "User"};
  std::string out;
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (i % 4 != 0) {
      out += ' ';
    } else if (i > 0) {
      out += '\n';
    }
    out += fmt::format("{:<17}", kNames[i]);
  }
  return out + "\n";
}

}  // namespace rota::cli
