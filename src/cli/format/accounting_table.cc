#include "cli/format/accounting_table.h"

#include "common/strings.h"

namespace rota::cli::format {
namespace {

// A value or header padded to `width`; `mark_cut` puts '+' where a longer
// value is cut.
void AppendPadded(std::string& out, std::string_view value, int width, bool left, bool mark_cut) {
  const size_t w = static_cast<size_t>(width < 0 ? 0 : width);
  if (value.size() > w) {
    if (mark_cut && w > 0) {
      out.append(value.substr(0, w - 1));
      out.push_back('+');
    } else {
      out.append(value.substr(0, w));
    }
    return;
  }
  if (!left) out.append(w - value.size(), ' ');
  out.append(value);
  if (left) out.append(w - value.size(), ' ');
}

// Separators of `layout` after column `i` of `count`.
void AppendSeparator(std::string& out, TableLayout layout, size_t i, size_t count,
                     std::string_view delimiter) {
  switch (layout) {
    case TableLayout::kAligned:
      out.push_back(' ');
      break;
    case TableLayout::kParsable:
      out.append(delimiter);
      break;
    case TableLayout::kParsable2:
      if (i + 1 < count) out.append(delimiter);
      break;
  }
}

}  // namespace

std::vector<std::string_view> SplitFieldList(std::string_view list) {
  std::vector<std::string_view> out;
  for (std::string_view raw : Split(list, ',')) {
    if (std::string_view entry = Trim(raw); !entry.empty()) out.push_back(entry);
  }
  return out;
}

std::optional<NamedWidth> ParseNamedWidth(std::string_view entry) {
  const size_t pct = entry.find('%');
  if (pct == std::string_view::npos) return NamedWidth{entry, std::nullopt};
  std::optional<uint64_t> width = ParseUint(entry.substr(pct + 1));
  if (!width) return std::nullopt;
  return NamedWidth{entry.substr(0, pct), width};
}

void AppendTableCell(std::string& out, std::string_view value, int width, bool left) {
  AppendPadded(out, value, width, left, true);
}

void AppendTableHeader(std::string& out, std::span<const TableColumn> columns, TableLayout layout,
                       std::string_view delimiter) {
  for (size_t i = 0; i < columns.size(); ++i) {
    const TableColumn& c = columns[i];
    if (layout == TableLayout::kAligned) {
      AppendPadded(out, c.header, c.width, c.left, false);
    } else {
      out.append(c.header);
    }
    AppendSeparator(out, layout, i, columns.size(), delimiter);
  }
  out.push_back('\n');
  if (layout != TableLayout::kAligned) return;
  for (const TableColumn& c : columns) {
    out.append(static_cast<size_t>(c.width < 0 ? 0 : c.width), '-');
    out.push_back(' ');
  }
  out.push_back('\n');
}

void AppendTableLine(std::string& out, std::span<const TableColumn> columns, TableLayout layout,
                     const std::function<std::string(size_t column)>& cell,
                     std::string_view delimiter) {
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string value = cell(i);
    if (layout == TableLayout::kAligned) {
      const TableColumn& c = columns[i];
      AppendPadded(out, value, c.width, c.left, c.mark_cut);
    } else {
      out.append(value);
    }
    AppendSeparator(out, layout, i, columns.size(), delimiter);
  }
  out.push_back('\n');
}

}  // namespace rota::cli::format
