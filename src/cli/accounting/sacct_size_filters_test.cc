#include "cli/accounting/sacct_size_filters.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

wire::AccountingJob Ran(uint32_t nodes, uint32_t cpus, int64_t limit_s, std::string reason) {
  wire::AccountingJob j;
  j.set_alloc_nodes(nodes);
  j.set_alloc_cpus(cpus);
  j.set_time_limit_s(limit_s);
  j.set_reason(std::move(reason));
  return j;
}

TEST(SacctSizeFiltersTest, RangesAreOneNumberOrMinToMax) {
  Result<CountRange> one = ParseCountRange("4");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->min, 4u);
  EXPECT_EQ(one->max, 4u);
  Result<CountRange> span = ParseCountRange("2-8");
  ASSERT_TRUE(span.ok());
  EXPECT_EQ(span->min, 2u);
  EXPECT_EQ(span->max, 8u);
  for (const char* bad : {"", "x", "8-2", "2-", "-3", "1-2-3"}) {
    EXPECT_FALSE(ParseCountRange(bad).ok()) << bad;
  }
}

TEST(SacctSizeFiltersTest, EachFilterGivenMustPass) {
  SacctSizeFilters none;
  EXPECT_TRUE(none.Pass(Ran(0, 0, -1, "None")));

  SacctSizeFilters nodes;
  nodes.nodes = CountRange{2, 4};
  EXPECT_FALSE(nodes.Pass(Ran(1, 8, 60, "None")));
  EXPECT_TRUE(nodes.Pass(Ran(2, 8, 60, "None")));
  EXPECT_FALSE(nodes.Pass(Ran(5, 8, 60, "None")));

  SacctSizeFilters cpus;
  cpus.cpus = CountRange{8, 8};
  EXPECT_TRUE(cpus.Pass(Ran(1, 8, 60, "None")));
  EXPECT_FALSE(cpus.Pass(Ran(1, 4, 60, "None")));

  // -k alone: at least; with -K: up to it too; an unlimited job is the longest.
  SacctSizeFilters limits;
  limits.limit_min_s = 3600;
  EXPECT_FALSE(limits.Pass(Ran(1, 1, 600, "None")));
  EXPECT_TRUE(limits.Pass(Ran(1, 1, 7200, "None")));
  EXPECT_TRUE(limits.Pass(Ran(1, 1, -1, "None")));
  limits.limit_max_s = 7200;
  EXPECT_TRUE(limits.Pass(Ran(1, 1, 7200, "None")));
  EXPECT_FALSE(limits.Pass(Ran(1, 1, -1, "None")));
  // -K alone changes nothing, as in Slurm.
  SacctSizeFilters max_only;
  max_only.limit_max_s = 60;
  EXPECT_TRUE(max_only.Pass(Ran(1, 1, 7200, "None")));

  SacctSizeFilters reasons;
  reasons.reasons = {"Dependency", "priority"};
  EXPECT_TRUE(reasons.Pass(Ran(0, 0, 60, "Priority")));
  EXPECT_FALSE(reasons.Pass(Ran(0, 0, 60, "Resources")));
}

}  // namespace
}  // namespace rota::cli
