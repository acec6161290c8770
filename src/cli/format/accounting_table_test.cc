#include "cli/format/accounting_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace rota::cli::format {
namespace {

std::string Table(TableLayout layout) {
  const std::vector<TableColumn> columns = {{"Account", 4, true}, {"User", 6, false}};
  const std::vector<std::vector<std::string>> rows = {{"root", "alice"},
                                                      {"physics", "bartholomew"}};
  std::string out;
  AppendTableHeader(out, columns, layout);
  for (const auto& row : rows) {
    AppendTableLine(out, columns, layout, [&](size_t i) { return row[i]; });
  }
  return out;
}

TEST(AccountingTableTest, AlignedCutsHeadersPlainlyAndMarksCutValues) {
  EXPECT_EQ(Table(TableLayout::kAligned),
            "Acco   User \n"
            "---- ------ \n"
            "root  alice \n"
            "phy+ barth+ \n");
}

TEST(AccountingTableTest, ParsableLayoutsKeepWholeValues) {
  EXPECT_EQ(Table(TableLayout::kParsable), "Account|User|\nroot|alice|\nphysics|bartholomew|\n");
  EXPECT_EQ(Table(TableLayout::kParsable2), "Account|User\nroot|alice\nphysics|bartholomew\n");
}

TEST(AccountingTableTest, AZeroWidthColumnShowsNothingButItsSpace) {
  std::string out;
  AppendTableCell(out, "abc", 0, true);
  EXPECT_EQ(out, "");
  AppendTableCell(out, "abc", 1, true);
  EXPECT_EQ(out, "+");
}

TEST(AccountingTableTest, FieldListsAreTrimmedAndWidthsFollowAPercentSign) {
  std::vector<std::string_view> entries = SplitFieldList(" JobID , JobName%20,,State ");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1], "JobName%20");

  std::optional<NamedWidth> plain = ParseNamedWidth("JobID");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->name, "JobID");
  EXPECT_FALSE(plain->width.has_value());
  std::optional<NamedWidth> wide = ParseNamedWidth("JobName%20");
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->name, "JobName");
  EXPECT_EQ(wide->width, 20u);
  EXPECT_FALSE(ParseNamedWidth("JobName%x").has_value());
  EXPECT_FALSE(ParseNamedWidth("JobName%").has_value());
}

}  // namespace
}  // namespace rota::cli::format
