#pragma once
// The one format-spec engine behind squeue, sinfo and sprio: parses Slurm's
// -o/--format and -O/--Format strings against a command's table of fields
// and prints header and rows with Slurm's padding and cutting rules. sacct
// and sshare keep their fields in the same FieldTable and print them in the
// accounting layouts instead (accounting_table.h).
//
//   -o  "%[.][width]<letter>" with literal text in between:
//       "%.18i %.9P %.8j"   "%i|%T|%r"   "JOBS: %i"   ('.' = right-justify;
//       no width = natural width; text before the first '%' is a prefix).
//   -O  "Name[:[.][width][suffix]]" separated by commas:
//       "JobID:10,Name:.20,State"  (no ':' = left-justified, width 20;
//       ':' with no number = natural width; text after the number is printed
//       after the field, e.g. "JobID:10|").
//
// Names are matched case-insensitively, letters exactly. As in Slurm, an
// unknown field is not fatal: it is reported in FormatSpec::errors and prints
// as the literal text it was written as (-o) or as its suffix only (-O).
//
// Padding and cutting follow Slurm's _print_str: a left-justified value is
// always cut to its width; a right-justified one is cut only when its field
// says so (Slurm leaves node lists and durations uncut); both are then padded
// to the width.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace rota::cli::format {

// What the engine needs to know about one column of a command's table.
struct FieldInfo {
  char letter = 0;             // -o letter; 0: only reachable by name.
  std::string_view long_name;  // -O name; empty: only reachable by letter.
  std::string_view header;     // Column title.
  bool cut_value = true;       // Cut right-justified values to the width.
  bool cut_header = true;      // Cut right-justified headers to the width.
};

// One parsed field of a format string.
struct FormatItem {
  int field = -1;          // Index in the table; -1: invalid, prints `suffix` only.
  int width = 0;           // 0: natural width.
  bool right = false;      // Right-justify.
  int auto_min_width = 0;  // > 0 with width 0: as wide as the widest value, at least this.
  std::string suffix;      // Literal text printed after the field.
};

// A parsed format string. Plain data: callers may adjust items (sinfo sizes
// its node list column from the data, as Slurm does for its default formats).
struct FormatSpec {
  std::string prefix;  // Literal text before the first field.
  std::vector<FormatItem> items;
  std::vector<std::string> errors;  // "Invalid job format specification: q", one per bad field.
};

// A command's fields, in table order. `invalid_message` starts each entry of
// FormatSpec::errors ("Invalid job format specification: ").
struct FieldCatalog {
  std::span<const FieldInfo> fields;
  std::string_view invalid_message;
};

// The index of the field whose -O name is `name` (letters in any case), or
// -1. Also how commands with their own field-list syntax (sacct's
// "Name%N") find a field.
int FindFieldByName(const FieldCatalog& catalog, std::string_view name);

// Parses an -o string. InvalidArgument only for an empty format (Slurm:
// "Format option lacks specification"); unknown letters go to `errors`.
Result<FormatSpec> ParseShortFormat(std::string_view format, const FieldCatalog& catalog);

// Parses an -O string; unknown names go to `errors`.
Result<FormatSpec> ParseLongFormat(std::string_view format, const FieldCatalog& catalog);

// Slurm's _print_str: `value` justified in `width` columns (0: as is).
std::string Justify(std::string_view value, int width, bool right, bool cut);
// The same, appended to `out`.
void AppendJustified(std::string& out, std::string_view value, int width, bool right, bool cut);

// Every value of a listing, row by row, in one buffer: a listing of 100,000
// rows is a few allocations, not one string per cell. Rows are added in
// order; each row has one value per item of the FormatSpec (invalid items
// hold an empty value).
class CellGrid {
 public:
  explicit CellGrid(size_t columns) : columns_(columns) { ends_.push_back(0); }

  // Appends the next value of the row being filled.
  void Add(std::string_view value) {
    text_.append(value);
    ends_.push_back(text_.size());
  }
  // Closes the row being filled. REQUIRES: `columns` values were added to it.
  void EndRow() { ++rows_; }
  // Room for `rows` rows of about `bytes_per_row` bytes.
  void Reserve(size_t rows, size_t bytes_per_row);

  size_t columns() const { return columns_; }
  size_t rows() const { return rows_; }
  std::string_view At(size_t row, size_t column) const {
    const size_t i = row * columns_ + column;
    return std::string_view(text_).substr(ends_[i], ends_[i + 1] - ends_[i]);
  }

 private:
  size_t columns_;
  size_t rows_ = 0;
  std::string text_;
  std::vector<size_t> ends_;  // ends_[k]..ends_[k+1]: value k, row-major.
};

// Prints the header (unless `no_header`) and one line per row of `cells`, in
// the order `order` gives (empty: as added), each ending in '\n'. Auto-sized
// columns (FormatItem::auto_min_width) are as wide as their widest value.
// REQUIRES: cells.columns() == spec.items.size().
std::string RenderCells(const FormatSpec& spec, const FieldCatalog& catalog, const CellGrid& cells,
                        std::span<const size_t> order, bool no_header);

// Prints the header (unless `no_header`) and one line per row, each ending
// in '\n'. `cell(row, field)` gives a value; it is called exactly once per
// cell, before anything is printed, so auto-sized columns see every value.
std::string RenderListing(const FormatSpec& spec, const FieldCatalog& catalog, size_t row_count,
                          const std::function<std::string(size_t row, int field)>& cell,
                          bool no_header);

// A typed table: what squeue/sinfo declare. Row is the record printed per
// line, Ctx what every extractor may read besides it (the time "now", name
// maps); extractors never read the clock or any other global state.
template <typename Row, typename Ctx>
struct Field {
  FieldInfo info;
  std::string (*value)(const Row& row, const Ctx& ctx);
};

template <typename Row, typename Ctx>
class FieldTable {
 public:
  FieldTable(std::string invalid_message, std::vector<Field<Row, Ctx>> fields)
      : invalid_message_(std::move(invalid_message)), fields_(std::move(fields)) {
    infos_.reserve(fields_.size());
    for (const Field<Row, Ctx>& f : fields_) infos_.push_back(f.info);
  }

  FieldCatalog catalog() const { return FieldCatalog{infos_, invalid_message_}; }
  const std::vector<Field<Row, Ctx>>& fields() const { return fields_; }

  Result<FormatSpec> ParseShort(std::string_view format) const {
    return ParseShortFormat(format, catalog());
  }
  Result<FormatSpec> ParseLong(std::string_view format) const {
    return ParseLongFormat(format, catalog());
  }

  // Header (unless `no_header`) and one line per row, in the given order.
  std::string Render(const FormatSpec& spec, std::span<const Row* const> rows, const Ctx& ctx,
                     bool no_header) const {
    return RenderListing(
        spec, catalog(), rows.size(),
        [&](size_t r, int f) { return fields_[static_cast<size_t>(f)].value(*rows[r], ctx); },
        no_header);
  }

 private:
  std::string invalid_message_;
  std::vector<Field<Row, Ctx>> fields_;
  std::vector<FieldInfo> infos_;
};

// Output of a whole command listing: the text for stdout and the complaints
// Slurm would print on stderr ("squeue: error: " is the caller's to add).
struct Listing {
  std::string text;
  std::vector<std::string> errors;
};

}  // namespace rota::cli::format
