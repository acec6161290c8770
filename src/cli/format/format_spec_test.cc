#include "cli/format/format_spec.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace rota::cli::format {
namespace {

// A toy table: a row is a vector of strings, field i prints element i.
using Row = std::vector<std::string>;
struct NoCtx {};

const FieldTable<Row, NoCtx>& Toy() {
  static const FieldTable<Row, NoCtx> table(
      "Invalid toy format specification: ",
      {
          {{'i', "Id", "ID"}, [](const Row& r, const NoCtx&) { return r[0]; }},
          {{'n', "Name", "NAME"}, [](const Row& r, const NoCtx&) { return r[1]; }},
          {{'N', "NodeList", "NODELIST", false, false},
           [](const Row& r, const NoCtx&) { return r[2]; }},
      });
  return table;
}

std::string RenderToy(std::string_view format, const std::vector<Row>& rows,
                      bool long_format = false, bool no_header = false) {
  Result<FormatSpec> spec = long_format ? Toy().ParseLong(format) : Toy().ParseShort(format);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  std::vector<const Row*> ptrs;
  for (const Row& r : rows) ptrs.push_back(&r);
  return Toy().Render(*spec, ptrs, NoCtx{}, no_header);
}

TEST(JustifyTest, FollowsSlurmPrintStr) {
  EXPECT_EQ(Justify("abc", 0, false, true), "abc");
  EXPECT_EQ(Justify("abc", 5, false, true), "abc  ");
  EXPECT_EQ(Justify("abc", 5, true, true), "  abc");
  // Right-justified values are cut only when the field says so.
  EXPECT_EQ(Justify("abcdefgh", 5, true, true), "abcde");
  EXPECT_EQ(Justify("abcdefgh", 5, true, false), "abcdefgh");
  // Left-justified values are always cut (printf's precision).
  EXPECT_EQ(Justify("abcdefgh", 5, false, false), "abcde");
  EXPECT_EQ(Justify("", 3, true, true), "   ");
}

TEST(ShortFormatTest, WidthsJustificationAndLiterals) {
  const std::vector<Row> rows = {{"7", "alpha", "n[1-3]"}, {"1234", "a-much-longer-name", "n4"}};
  EXPECT_EQ(RenderToy("%.5i %6n|%N", rows),
            "   ID NAME  |NODELIST\n"
            "    7 alpha |n[1-3]\n"
            " 1234 a-much|n4\n");
  // No width: natural width. Text before the first '%' is a prefix.
  EXPECT_EQ(RenderToy("jobs: %i=%n", rows),
            "jobs: ID=NAME\n"
            "jobs: 7=alpha\n"
            "jobs: 1234=a-much-longer-name\n");
  EXPECT_EQ(RenderToy("%i", rows, false, /*no_header=*/true), "7\n1234\n");
}

TEST(ShortFormatTest, RightJustifiedHeadersAreCutUnlessTheFieldSaysNot) {
  const std::vector<Row> rows = {{"1", "x", "node-with-long-name"}};
  EXPECT_EQ(RenderToy("%.1n %.3N", rows), "N NODELIST\nx node-with-long-name\n");
}

TEST(ShortFormatTest, UnknownLettersAreReportedAndPrintedVerbatim) {
  Result<FormatSpec> spec = Toy().ParseShort("%i %.5q| %n");
  ASSERT_TRUE(spec.ok());
  ASSERT_EQ(spec->errors.size(), 1u);
  EXPECT_EQ(spec->errors[0], "Invalid toy format specification: q");
  const std::vector<Row> rows = {{"1", "x", ""}};
  EXPECT_EQ(RenderToy("%i %.5q| %n", rows), "ID %.5q| NAME\n1 %.5q| x\n");
}

TEST(FindFieldByNameTest, MatchesLongNamesInAnyCaseOnly) {
  const FieldCatalog catalog = Toy().catalog();
  EXPECT_EQ(FindFieldByName(catalog, "Id"), 0);
  EXPECT_EQ(FindFieldByName(catalog, "NAME"), 1);
  EXPECT_EQ(FindFieldByName(catalog, "nodelist"), 2);
  // Not by letter, header or prefix.
  EXPECT_EQ(FindFieldByName(catalog, "i"), -1);
  EXPECT_EQ(FindFieldByName(catalog, "Node"), -1);
  EXPECT_EQ(FindFieldByName(catalog, ""), -1);
  // A field with no -O name is never found by name.
  const FieldInfo letter_only[] = {{'x', {}, "X"}};
  EXPECT_EQ(FindFieldByName(FieldCatalog{letter_only, ""}, ""), -1);
}

TEST(ShortFormatTest, EmptyFormatIsAnError) {
  EXPECT_FALSE(Toy().ParseShort("").ok());
  EXPECT_FALSE(Toy().ParseLong("").ok());
}

TEST(ShortFormatTest, DoublePercentCollapsesLikeStrtok) {
  const std::vector<Row> rows = {{"1", "x", ""}};
  EXPECT_EQ(RenderToy("%%i", rows), "ID\n1\n");
}

TEST(LongFormatTest, DefaultsSizesAndSuffixes) {
  const std::vector<Row> rows = {{"7", "alpha", "n1"}};
  // No size: left-justified in 20 columns.
  EXPECT_EQ(RenderToy("id,name", rows, true),
            "ID                  NAME                \n"
            "7                   alpha               \n");
  // ":.N" right-justifies, ":N" sets the width, text after it follows the field.
  EXPECT_EQ(RenderToy("Id:.4|,NAME:3", rows, true), "  ID|NAM\n   7|alp\n");
  // ':' without a number: natural width.
  EXPECT_EQ(RenderToy("name:,id:", rows, true), "NAMEID\nalpha7\n");
}

TEST(LongFormatTest, UnknownNamesAreReported) {
  Result<FormatSpec> spec = Toy().ParseLong("Id,Bogus:5,Name");
  ASSERT_TRUE(spec.ok());
  ASSERT_EQ(spec->errors.size(), 1u);
  EXPECT_EQ(spec->errors[0], "Invalid toy format specification: Bogus");
}

TEST(RenderListingTest, AutoWidthTakesTheWidestValueAndAMinimum) {
  Result<FormatSpec> spec = Toy().ParseShort("%N|%i");
  ASSERT_TRUE(spec.ok());
  spec->items[0].auto_min_width = 4;
  const std::array<Row, 2> rows = {Row{"1", "", "ab"}, Row{"2", "", "abcdef"}};
  std::vector<const Row*> ptrs = {&rows[0], &rows[1]};
  EXPECT_EQ(Toy().Render(*spec, ptrs, NoCtx{}, false), "NODELI|ID\nab    |1\nabcdef|2\n");
}

}  // namespace
}  // namespace rota::cli::format
