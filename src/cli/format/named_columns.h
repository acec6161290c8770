#pragma once
// A command's fields with their default columns, chosen by a --format list of
// names ("JobID,MaxRSS%12"), printed in the accounting commands' layouts
// (accounting_table.h): sacct's, sstat's and sreport's tables.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/format/accounting_table.h"
#include "cli/format/format_spec.h"
#include "common/status.h"
#include "common/strings.h"

namespace rota::cli::format {

// A field shown blank, by name, at its default width.
struct BlankColumn {
  std::string_view name;
  int width = 0;
};

// sacct's and sstat's TRESUsageOut* (disk I/O, which Rota does not measure).
inline constexpr BlankColumn kTresUsageOutColumns[] = {
    {"TRESUsageOutAve", 15},     {"TRESUsageOutMax", 15}, {"TRESUsageOutMaxNode", 19},
    {"TRESUsageOutMaxTask", 19}, {"TRESUsageOutMin", 15}, {"TRESUsageOutMinNode", 19},
    {"TRESUsageOutMinTask", 19}, {"TRESUsageOutTot", 15}};

// How Parse's error names a field the table lacks: `before`, the name as
// written, `after`.
struct UnknownFieldText {
  std::string_view before;
  std::string_view after;
};
// sacct's and sstat's: `Invalid field requested: "X"`.
inline constexpr UnknownFieldText kInvalidFieldRequested{"Invalid field requested: \"", "\""};

// A field of the table and the width it is shown at.
struct ChosenColumn {
  int field = 0;  // Index into the table's fields
  int width = 0;  // Columns in the aligned layout
};

template <typename Row, typename Ctx>
class NamedColumns {
 public:
  using Extract = std::string (*)(const Row& row, const Ctx& ctx);
  struct Def {
    Field<Row, Ctx> field;
    TableColumn column;  // Its header, default width and justification
  };
  // A field whose name is also its header.
  static Def Named(std::string_view name, int width, bool left, Extract value) {
    return {{FieldInfo{0, name, name}, value}, {std::string(name), width, left}};
  }
  // A field found by `name` and shown under another `header` ("Proper" as
  // "Proper Name").
  static Def Titled(std::string_view name, std::string_view header, int width, bool left,
                    Extract value) {
    return {{FieldInfo{0, name, header}, value}, {std::string(header), width, left}};
  }
  // Right-justified fields always shown blank (what Rota does not measure or
  // keep), appended to `defs`.
  static std::vector<Def> WithBlanks(std::vector<Def> defs, std::span<const BlankColumn> blanks) {
    for (const BlankColumn& b : blanks) {
      defs.push_back(
          Named(b.name, b.width, false, [](const Row&, const Ctx&) { return std::string(); }));
    }
    return defs;
  }

  // The fields in the command's order: the order --helpformat lists them in
  // and abbreviations are matched in.
  // `unknown`: how Parse's error names a field the table lacks.
  explicit NamedColumns(const std::vector<Def>& defs,
                        UnknownFieldText unknown = kInvalidFieldRequested)
      : table_("Invalid field requested: ", FieldsOf(defs)), unknown_(unknown) {
    for (const Def& d : defs) columns_.push_back(d.column);
  }

  // `defs` by name in any case (sacct's order).
  static std::vector<Def> ByName(std::vector<Def> defs) {
    std::stable_sort(defs.begin(), defs.end(), [](const Def& a, const Def& b) {
      return ToLower(a.column.header) < ToLower(b.column.header);
    });
    return defs;
  }

  const FieldTable<Row, Ctx>& fields() const { return table_; }

  // Names are case-insensitive and may be cut short ("maxrssn" is
  // MaxRSSNode: the first field, in Slurm's order, that starts so); "Name%N"
  // sets the width. Errors name the unknown field in the table's words
  // (sacct: `Invalid field requested: "X"`), or say that none was asked for.
  Result<std::vector<ChosenColumn>> Parse(std::string_view format) const {
    const FieldCatalog catalog = table_.catalog();
    std::vector<ChosenColumn> chosen;
    for (std::string_view item : SplitFieldList(format)) {
      std::optional<NamedWidth> entry = ParseNamedWidth(item);
      const int field = entry ? FindByNameOrStart(catalog, entry->name) : -1;
      if (field < 0) {
        return InvalidArgument(
            fmt::format("{}{}{}", unknown_.before, entry ? entry->name : item, unknown_.after));
      }
      const int width = entry->width ? static_cast<int>(*entry->width)
                                     : columns_[static_cast<size_t>(field)].width;
      chosen.push_back({field, width});
    }
    if (chosen.empty()) return InvalidArgument("No fields requested");
    return chosen;
  }

  // The chosen fields' columns, at their widths.
  std::vector<TableColumn> Shown(const std::vector<ChosenColumn>& chosen) const {
    std::vector<TableColumn> shown;
    shown.reserve(chosen.size());
    for (const ChosenColumn& c : chosen) {
      TableColumn column = columns_[static_cast<size_t>(c.field)];
      column.width = c.width;
      shown.push_back(std::move(column));
    }
    return shown;
  }

  std::string Value(const ChosenColumn& c, const Row& row, const Ctx& ctx) const {
    return table_.fields()[static_cast<size_t>(c.field)].value(row, ctx);
  }

  // --helpformat: every field's name, four to a line in columns of 20.
  std::string HelpFormat() const {
    std::string out;
    int in_line = 0;
    for (const auto& field : table_.fields()) {
      out += fmt::format("{:<20}", field.info.long_name);
      if (++in_line == 4) {
        while (!out.empty() && out.back() == ' ') out.pop_back();
        out += '\n';
        in_line = 0;
      }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (in_line != 0) out += '\n';
    return out;
  }

 private:
  static int FindByNameOrStart(const FieldCatalog& catalog, std::string_view name) {
    const int exact = FindFieldByName(catalog, name);
    if (exact >= 0 || name.empty()) return exact;
    for (size_t i = 0; i < catalog.fields.size(); ++i) {
      const std::string_view field_name = catalog.fields[i].long_name;
      if (field_name.size() >= name.size() &&
          EqualsIgnoreCase(field_name.substr(0, name.size()), name)) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  static std::vector<Field<Row, Ctx>> FieldsOf(const std::vector<Def>& defs) {
    std::vector<Field<Row, Ctx>> fields;
    fields.reserve(defs.size());
    for (const Def& d : defs) fields.push_back(d.field);
    return fields;
  }

  FieldTable<Row, Ctx> table_;
  UnknownFieldText unknown_;
  std::vector<TableColumn> columns_;  // Parallel to table_.fields(): the defaults
};

}  // namespace rota::cli::format
