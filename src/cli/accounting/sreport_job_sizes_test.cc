#include "cli/accounting/sreport_job_sizes.h"

#include <gtest/gtest.h>

#include "cli/accounting/sreport_test_support.h"

namespace rota::cli {
namespace {

using sreport_test::kDay;
using sreport_test::kWindow;
using sreport_test::Parsable;

wire::AccountingJob Job(const std::string& account, uint32_t cpus, int64_t seconds) {
  wire::AccountingJob j = sreport_test::Job("u", account, kDay + 3600, kDay + 3600 + seconds,
                                            "cpu=" + std::to_string(cpus));
  j.set_alloc_cpus(cpus);
  return j;
}

AssocTree Tree() {
  AssocTree t;
  t.parent_of = {
      {"root", ""}, {"science", "root"}, {"phys", "science"}, {"chem", "science"}, {"ops", "root"}};
  return t;
}

std::vector<wire::AccountingJob> Jobs() {
  return {Job("phys", 4, 3600), Job("chem", 64, 1800), Job("ops", 600, 60), Job("root", 1, 60)};
}

TEST(SreportJobSizes, CpuTimeByRangeForTheAccountsBelowRoot) {
  EXPECT_EQ(JobSizesByAccountReport("c1", Jobs(), Tree(), kWindow, {}, Parsable()),
            "--------------------------------------------------------------------------------\n"
            "Job Sizes 2027-01-15T00:00:00 - 2027-01-15T23:59:59 (86400 secs)\n"
            "Time reported in CPU Minutes\n"
            "--------------------------------------------------------------------------------\n"
            "Cluster|Account|0-49 CPUs|50-249 CPUs|250-499 CPUs|500-999 CPUs|>= 1000 CPUs|"
            "% of cluster\n"
            "c1|ops|0|0|0|600|0|21.73%\n"
            "c1|root|1|0|0|0|0|0.04%\n"
            "c1|science|240|1920|0|0|0|78.23%\n");
}

TEST(SreportJobSizes, GroupingAccountsFlatViewAndJobCounts) {
  ReportOptions o = Parsable();
  o.no_header = true;
  JobSizesOptions sizes;
  sizes.grouping = *ParseGrouping("10,100");
  sizes.parents = {"science"};
  EXPECT_EQ(JobSizesByAccountReport("c1", Jobs(), Tree(), kWindow, sizes, o),
            "c1|chem|0|1920|0|88.89%\n"
            "c1|phys|240|0|0|11.11%\n");
  sizes.parents.clear();
  sizes.flat_view = true;
  sizes.print_job_count = true;
  EXPECT_EQ(JobSizesByAccountReport("c1", Jobs(), Tree(), kWindow, sizes, o),
            "c1|chem|0|1|0|25.00%\n"
            "c1|ops|0|0|1|25.00%\n"
            "c1|phys|1|0|0|25.00%\n"
            "c1|root|1|0|0|25.00%\n");
  o.no_header = false;
  o.layout = SacctLayout::kAligned;
  std::string text = JobSizesByAccountReport("c1", Jobs(), Tree(), kWindow, sizes, o);
  EXPECT_NE(text.find("Units are in number of jobs ran\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  Cluster   Account      0-9 CPUs    10-99 CPUs   >= 100 CPUs "
                      "% of cluster \n"),
            std::string::npos)
      << text;
  EXPECT_FALSE(ParseGrouping("50,20").ok());
  EXPECT_FALSE(ParseGrouping("0").ok());
  EXPECT_FALSE(ParseGrouping("a").ok());
}

}  // namespace
}  // namespace rota::cli
