#include "cli/format/format_spec.h"

#include <algorithm>

#include "common/strings.h"

namespace rota::cli::format {
namespace {

// Slurm's default width for an -O field given without ":size".
constexpr int kLongFormatDefaultWidth = 20;

// Slurm splits with strtok_r, which skips empty pieces: "%%i" is "%i", and
// ",,Name" is "Name". Keeping that quirk keeps odd format strings compatible.
std::vector<std::string_view> SplitSkippingEmpty(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (std::string_view piece : Split(s, sep)) {
    if (!piece.empty()) parts.push_back(piece);
  }
  return parts;
}

int FindByLetter(const FieldCatalog& catalog, char letter) {
  for (size_t i = 0; i < catalog.fields.size(); ++i) {
    if (catalog.fields[i].letter != 0 && catalog.fields[i].letter == letter) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// Reads a run of decimal digits at `pos` like Slurm's strtol/atoi loops do;
// absurd widths are clamped rather than overflowing.
int ReadWidth(std::string_view s, size_t& pos) {
  int width = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
    width = std::min(width * 10 + (s[pos] - '0'), 1 << 20);
    ++pos;
  }
  return width;
}

}  // namespace

int FindFieldByName(const FieldCatalog& catalog, std::string_view name) {
  for (size_t i = 0; i < catalog.fields.size(); ++i) {
    const std::string_view field_name = catalog.fields[i].long_name;
    if (!field_name.empty() && EqualsIgnoreCase(field_name, name)) return static_cast<int>(i);
  }
  return -1;
}

Result<FormatSpec> ParseShortFormat(std::string_view format, const FieldCatalog& catalog) {
  if (format.empty()) return InvalidArgument("Format option lacks specification.");
  FormatSpec spec;
  std::vector<std::string_view> tokens = SplitSkippingEmpty(format, '%');
  size_t first = 0;
  if (format.front() != '%') {
    // Text before the first '%' is printed as is on every line.
    spec.prefix = std::string(tokens.empty() ? format : tokens.front());
    first = 1;
  }
  for (size_t t = first; t < tokens.size(); ++t) {
    const std::string_view token = tokens[t];
    FormatItem item;
    size_t pos = 0;
    if (token[pos] == '.') {
      item.right = true;
      ++pos;
    }
    item.width = ReadWidth(token, pos);
    const char letter = pos < token.size() ? token[pos++] : '\0';
    item.field = letter == '\0' ? -1 : FindByLetter(catalog, letter);
    if (item.field >= 0) {
      item.suffix = std::string(token.substr(pos));
    } else {
      // Slurm prints an unknown field back verbatim and carries on.
      item.suffix = "%" + std::string(token);
      spec.errors.push_back(std::string(catalog.invalid_message) +
                            (letter == '\0' ? std::string() : std::string(1, letter)));
    }
    spec.items.push_back(std::move(item));
  }
  return spec;
}

Result<FormatSpec> ParseLongFormat(std::string_view format, const FieldCatalog& catalog) {
  if (format.empty()) return InvalidArgument("Format long option lacks specification");
  FormatSpec spec;
  for (std::string_view token : SplitSkippingEmpty(format, ',')) {
    FormatItem item;
    std::string_view name = token;
    const size_t colon = token.find(':');
    if (colon == std::string_view::npos) {
      item.width = kLongFormatDefaultWidth;
    } else {
      name = token.substr(0, colon);
      size_t pos = colon + 1;
      if (pos < token.size() && token[pos] == '.') {
        item.right = true;
        ++pos;
      }
      item.width = ReadWidth(token, pos);
      item.suffix = std::string(token.substr(pos));
    }
    item.field = FindFieldByName(catalog, name);
    if (item.field < 0) {
      spec.errors.push_back(std::string(catalog.invalid_message) + std::string(name));
    }
    spec.items.push_back(std::move(item));
  }
  return spec;
}

std::string Justify(std::string_view value, int width, bool right, bool cut) {
  std::string out;
  AppendJustified(out, value, width, right, cut);
  return out;
}

void AppendJustified(std::string& out, std::string_view value, int width, bool right, bool cut) {
  if (width <= 0) {
    out.append(value);
    return;
  }
  const size_t w = static_cast<size_t>(width);
  if (right) {
    // printf("%*s") pads on the left and never cuts; Slurm cuts afterwards
    // only for fields that ask for it.
    const size_t pad = value.size() < w ? w - value.size() : 0;
    out.append(pad, ' ');
    out.append(cut ? value.substr(0, w - pad) : value);
  } else {
    // printf("%.*s") always cuts, whatever the field asked for.
    const std::string_view kept = value.substr(0, w);
    out.append(kept);
    out.append(w - kept.size(), ' ');
  }
}

void CellGrid::Reserve(size_t rows, size_t bytes_per_row) {
  text_.reserve(rows * bytes_per_row);
  ends_.reserve(rows * columns_ + 1);
}

std::string RenderCells(const FormatSpec& spec, const FieldCatalog& catalog, const CellGrid& cells,
                        std::span<const size_t> order, bool no_header) {
  const size_t row_count = cells.rows();
  std::vector<int> widths;
  widths.reserve(spec.items.size());
  for (const FormatItem& item : spec.items) widths.push_back(item.width);
  for (size_t i = 0; i < spec.items.size(); ++i) {
    const FormatItem& item = spec.items[i];
    if (item.field < 0 || item.width != 0 || item.auto_min_width <= 0) continue;
    size_t widest = static_cast<size_t>(item.auto_min_width);
    for (size_t r = 0; r < row_count; ++r) widest = std::max(widest, cells.At(r, i).size());
    widths[i] = static_cast<int>(widest);
  }

  std::string out;
  size_t line_width = spec.prefix.size() + 1;
  for (size_t i = 0; i < spec.items.size(); ++i) {
    line_width += static_cast<size_t>(std::max(widths[i], 0)) + spec.items[i].suffix.size();
  }
  out.reserve((row_count + 1) * line_width);
  auto emit_line = [&](auto&& text_of, bool header) {
    out += spec.prefix;
    for (size_t i = 0; i < spec.items.size(); ++i) {
      const FormatItem& item = spec.items[i];
      if (item.field >= 0) {
        const FieldInfo& info = catalog.fields[static_cast<size_t>(item.field)];
        AppendJustified(out, text_of(i, info), widths[i], item.right,
                        header ? info.cut_header : info.cut_value);
      }
      out += item.suffix;
    }
    out += '\n';
  };
  if (!no_header) {
    emit_line([](size_t, const FieldInfo& info) { return std::string_view(info.header); }, true);
  }
  for (size_t k = 0; k < row_count; ++k) {
    const size_t r = order.empty() ? k : order[k];
    emit_line([&](size_t i, const FieldInfo&) { return cells.At(r, i); }, false);
  }
  return out;
}

std::string RenderListing(const FormatSpec& spec, const FieldCatalog& catalog, size_t row_count,
                          const std::function<std::string(size_t row, int field)>& cell,
                          bool no_header) {
  // Gather every value first: auto-sized columns depend on all of them.
  CellGrid cells(spec.items.size());
  for (size_t r = 0; r < row_count; ++r) {
    for (const FormatItem& item : spec.items) {
      cells.Add(item.field < 0 ? std::string() : cell(r, item.field));
    }
    cells.EndRow();
  }
  return RenderCells(spec, catalog, cells, {}, no_header);
}

}  // namespace rota::cli::format
