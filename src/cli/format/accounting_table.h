#pragma once
// The table layout of Slurm's accounting commands (sacct, sacctmgr, sreport,
// sshare): aligned columns each followed by a space, under a header and a
// rule of dashes; -p: every value followed by '|'; -P: values separated by
// '|'. In the aligned layout a header is cut plainly to its column, and a
// value longer than its column keeps width-1 characters and ends in '+', so
// that the cut shows.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rota::cli::format {

enum class TableLayout { kAligned, kParsable, kParsable2 };

struct TableColumn {
  std::string header;
  int width = 10;
  bool left = false;  // Left-justified (header and values)
  // A value cut to the column ends in '+' (names, text); false: cut plainly.
  bool mark_cut = true;
};

// One entry of a field list ("JobName%20"): the name, and the width when a
// '%' gives one.
struct NamedWidth {
  std::string_view name;
  std::optional<uint64_t> width;
};
// The entries of a comma-separated field list, trimmed, empty ones left out.
std::vector<std::string_view> SplitFieldList(std::string_view list);
// Parses "Name" or "Name%N"; nullopt when what follows '%' is not a number.
std::optional<NamedWidth> ParseNamedWidth(std::string_view entry);

// `value` in its column of the aligned layout, without the space after it;
// cut with a '+' at the end.
void AppendTableCell(std::string& out, std::string_view value, int width, bool left);

// The header line and, in the aligned layout, the rule under it.
// `delimiter`: the separator of the parsable layouts (sacct --delimiter).
void AppendTableHeader(std::string& out, std::span<const TableColumn> columns, TableLayout layout,
                       std::string_view delimiter = "|");

// One line: `cell(i)` is column i's value.
void AppendTableLine(std::string& out, std::span<const TableColumn> columns, TableLayout layout,
                     const std::function<std::string(size_t column)>& cell,
                     std::string_view delimiter = "|");

}  // namespace rota::cli::format
