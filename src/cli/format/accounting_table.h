#pragma once
// The table layout of Slurm's accounting commands (sacct, sacctmgr, sreport,
// sshare): aligned columns each followed by a space, under a header and a
// rule of dashes; -p: every value followed by '|'; -P: values separated by
// '|'. In the aligned layout a header is cut plainly to its column, and a
// value longer than its column keeps width-1 characters and ends in '+', so
// that the cut shows.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace rota::cli::format {

enum class TableLayout { kAligned, kParsable, kParsable2 };

struct TableColumn {
  std::string header;
  int width = 10;
  bool left = false;  // Left-justified (header and values)
  // A value cut to the column ends in '+' (names, text); false: cut plainly.
  bool mark_cut = true;
};

// `value` in its column of the aligned layout, without the space after it;
// cut with a '+' at the end.
void AppendTableCell(std::string& out, std::string_view value, int width, bool left);

// The header line and, in the aligned layout, the rule under it.
void AppendTableHeader(std::string& out, std::span<const TableColumn> columns, TableLayout layout);

// One line: `cell(i)` is column i's value.
void AppendTableLine(std::string& out, std::span<const TableColumn> columns, TableLayout layout,
                     const std::function<std::string(size_t column)>& cell);

}  // namespace rota::cli::format
