#include "cli/format/accounting_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace rota::cli::format {
namespace {

std::string Table(TableLayout layout) {
  const std::vector<TableColumn> columns = {{"Account", 4, true}, {"User", 6, false}};
  const std::vector<std::vector<std::string>> rows = {{"root", "alice"}, {"physics", "bartholomew"}};
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
  EXPECT_EQ(Table(TableLayout::kParsable),
            "Account|User|\nroot|alice|\nphysics|bartholomew|\n");
  EXPECT_EQ(Table(TableLayout::kParsable2), "Account|User\nroot|alice\nphysics|bartholomew\n");
}

TEST(AccountingTableTest, AZeroWidthColumnShowsNothingButItsSpace) {
  std::string out;
  AppendTableCell(out, "abc", 0, true);
  EXPECT_EQ(out, "");
  AppendTableCell(out, "abc", 1, true);
  EXPECT_EQ(out, "+");
}

}  // namespace
}  // namespace rota::cli::format
