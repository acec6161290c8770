#include "cli/accounting/sreport_fields.h"

#include <gtest/gtest.h>

#include "cli/accounting/sreport_assoc.h"
#include "cli/accounting/sreport_gpu_efficiency.h"
#include "cli/accounting/sreport_job_sizes.h"
#include "cli/accounting/sreport_test_support.h"

namespace rota::cli {
namespace {

using sreport_test::Aligned;
using sreport_test::Job;
using sreport_test::kDay;
using sreport_test::kWindow;
using sreport_test::Parsable;

// Half a day of the whole machine: 7200 of 14400 CPU-minutes.
const std::vector<wire::AccountingJob> kHalfDay = {Job("a", "x", kDay, kDay + 43200, "cpu=10")};

ReportOptions WithFormat(ReportOptions o, std::string format) {
  o.format = std::move(format);
  o.no_header = true;
  return o;
}

// What follows the banner: the column header and the lines.
std::string AfterBanner(const std::string& text) {
  const std::string rule(80, '-');
  const size_t last = text.rfind(rule + "\n");
  return last == std::string::npos ? text : text.substr(last + rule.size() + 1);
}

TEST(SreportFormat, ChoosesAndOrdersTheColumnsNamesInAnyCase) {
  ReportOptions o = Parsable();
  o.format = "reported,CLUSTER,alloc,TresCount";
  const std::string text =
      ClusterUtilizationReport("c1", {"cpu"}, {{"cpu", 10}}, kHalfDay, kWindow, o);
  EXPECT_NE(text.find("Cluster Utilization 2027-01-15T00:00:00"), std::string::npos) << text;
  EXPECT_EQ(AfterBanner(text),
            "Reported|Cluster|Allocated|TRES Count\n"
            "14400|c1|7200|10\n");
  // The fields the default leaves out, and Slurm's other names for two.
  EXPECT_EQ(ClusterUtilizationReport("c1", {"cpu"}, {{"cpu", 10}}, kHalfDay, kWindow,
                                     WithFormat(Parsable(), "OverCommitted,PLNDDown,Reserved")),
            "0|0|0\n");
  o.format = "OverComm,PlannedDown,Planned";
  EXPECT_EQ(
      AfterBanner(ClusterUtilizationReport("c1", {"cpu"}, {{"cpu", 10}}, kHalfDay, kWindow, o)),
      "Over Comm|PLND Down|Planned\n"
      "0|0|0\n");
}

TEST(SreportFormat, AWidthSizesTheAlignedColumnAndCutsLongerValues) {
  ReportOptions o = Aligned();
  o.format = "Cluster%4,Allocated%12,Idle%3";
  const std::string text =
      ClusterUtilizationReport("a-long-name", {"cpu"}, {{"cpu", 10}}, kHalfDay, kWindow, o);
  // Headers are cut plainly, values with a '+' where the cut is.
  EXPECT_EQ(AfterBanner(text),
            "Clus    Allocated Idl \n"
            "---- ------------ --- \n"
            "a-l+         7200 72+ \n");
  // A field's own width without %N, and with -t percent's wider columns.
  o.format = "Cluster,Down";
  o.time.percent = true;
  EXPECT_EQ(
      AfterBanner(ClusterUtilizationReport("c1", {"cpu"}, {{"cpu", 10}}, kHalfDay, kWindow, o)),
      "  Cluster               Down \n"
      "--------- ------------------ \n"
      "       c1           0(0.00%) \n");
}

TEST(SreportFormat, ParsableLayoutsFollowTheChosenColumns) {
  std::vector<wire::AccountingJob> jobs = {Job("alice", "phys", kDay, kDay + 3600, "cpu=4"),
                                           Job("bob", "chem", kDay, kDay + 60, "cpu=1")};
  const std::map<std::string, uint64_t> cap = {{"cpu", 64}};
  ReportOptions o = Parsable();
  o.no_header = false;
  o.format = "Used,login";
  EXPECT_EQ(AfterBanner(UserTopUsageReport("c1", {"cpu"}, cap, jobs, kWindow, 10, false, {}, o)),
            "Used|Login\n"
            "240|alice\n"
            "1|bob\n");
  o.layout = SacctLayout::kParsable;
  o.no_header = true;
  EXPECT_EQ(UserTopUsageReport("c1", {"cpu"}, cap, jobs, kWindow, 10, false, {}, o),
            "240|alice|\n"
            "1|bob|\n");
  // -T names the TRES in the default columns only; format= says for itself.
  o.layout = SacctLayout::kParsable2;
  o.tres_named = true;
  o.format = "Login,Accounts,Used";
  EXPECT_EQ(UserTopUsageReport("c1", {"cpu"}, cap, jobs, kWindow, 10, false, {}, o),
            "alice|phys|240\n"
            "bob|chem|1\n");
  o.format = "tresname,used";
  EXPECT_EQ(UserTopUsageReport("c1", {"cpu"}, cap, jobs, kWindow, 1, false, {}, o), "cpu|240\n");
}

TEST(SreportFormat, UnknownFieldsAreRefusedByName) {
  ReportOptions o;
  o.format = "Cluster,Bogus%10";
  Status s = CheckSreportFormat(SreportReport::kUtilization, o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Unknown field 'Bogus'");
  // Each report has its own fields: TopUsage has no TRES count, the
  // per-account GPU report no login, the job report no Used.
  o.format = "Login,TresCount";
  EXPECT_EQ(CheckSreportFormat(SreportReport::kTopUsage, o).message(), "Unknown field 'TresCount'");
  EXPECT_TRUE(CheckSreportFormat(SreportReport::kUserUtilizationByAccount, o).ok());
  o.format = "login";
  EXPECT_EQ(CheckSreportFormat(SreportReport::kGpuEfficiencyByAccount, o).message(),
            "Unknown field 'login'");
  EXPECT_TRUE(CheckSreportFormat(SreportReport::kGpuEfficiencyByUser, o).ok());
  o.format = "Account,Used";
  EXPECT_EQ(CheckSreportFormat(SreportReport::kSizesByAccount, o).message(),
            "Unknown field 'Used'");
  o.format = ",";
  EXPECT_EQ(CheckSreportFormat(SreportReport::kAccountUtilizationByUser, o).message(),
            "No fields requested");
  o.format.clear();
  EXPECT_TRUE(CheckSreportFormat(SreportReport::kAccountUtilizationByUser, o).ok());
  o.format = "ALLOCATED,cluster%20,TRESNAME";
  EXPECT_TRUE(CheckSreportFormat(SreportReport::kUtilization, o).ok());
}

TEST(SreportFormat, UnknownFieldsAreDroppedAndNamedAsSlurmDoes) {
  ReportOptions o;
  o.format = "Cluster,Bogus%10,login,Allocated%12";
  EXPECT_EQ(DropUnknownFields(SreportReport::kUtilization, o),
            (std::vector<std::string>{"Unknown field 'Bogus'", "Unknown field 'login'"}));
  EXPECT_EQ(o.format, "Cluster,Allocated%12");
  o.format = "cluster,used";  // All known: left as it was
  EXPECT_TRUE(DropUnknownFields(SreportReport::kTopUsage, o).empty());
  EXPECT_EQ(o.format, "cluster,used");
  o.format = "Bogus";
  EXPECT_EQ(DropUnknownFields(SreportReport::kSizesByAccount, o).size(), 1u);
  EXPECT_EQ(o.format, "");  // Nothing left to show
}

TEST(SreportFormat, TheConditionsKeyIsFormatInAnyCase) {
  EXPECT_EQ(FormatCondition("format=Cluster,Used%12"), "Cluster,Used%12");
  EXPECT_EQ(FormatCondition("Format=login"), "login");
  EXPECT_EQ(FormatCondition("FORMAT="), "");
  EXPECT_EQ(FormatCondition("format"), std::nullopt);
  EXPECT_EQ(FormatCondition("formats=Login"), std::nullopt);
  EXPECT_EQ(FormatCondition("TopCount=3"), std::nullopt);
}

TEST(SreportFormat, TheAccountTreeStaysLeftJustified) {
  AssocTree tree;
  tree.parent_of = {{"root", ""}, {"phys", "root"}};
  tree.users = {{"phys", "alice"}};
  std::vector<wire::AccountingJob> jobs = {Job("alice", "phys", kDay, kDay + 3600, "cpu=4")};
  ReportOptions o;
  o.now = kDay + 86400 * 2;
  o.format = "Accounts%8,Login,TresCount,Used";
  EXPECT_EQ(AfterBanner(AccountUtilizationByUserReport("c1", {"cpu"}, {{"cpu", 64}}, jobs, tree, {},
                                                       {}, kWindow, {}, o)),
            "Account      Login TRES Count       Used \n"
            "-------- --------- ---------- ---------- \n"
            "root                                 240 \n"
            " phys                                240 \n"
            "  phys       alice                   240 \n");
  o.layout = SacctLayout::kParsable2;
  o.no_header = true;
  o.format = "login,proper,accounts";
  EXPECT_EQ(UserUtilizationByAccountReport("c1", {"cpu"}, {{"cpu", 64}}, jobs, kWindow,
                                           {{"alice", "Alice A"}}, o),
            "alice|Alice A|phys\n");
}

TEST(SreportFormat, JobSizesChoosesTheLeadingColumnsAndKeepsTheRanges) {
  AssocTree tree;
  tree.parent_of = {{"root", ""}, {"phys", "root"}};
  wire::AccountingJob job = Job("u", "phys", kDay, kDay + 3600, "cpu=4");
  job.set_alloc_cpus(4);
  ReportOptions o = Parsable();
  o.no_header = false;
  o.format = "Account";
  JobSizesOptions sizes;
  sizes.grouping = {8};
  EXPECT_EQ(AfterBanner(JobSizesByAccountReport("c1", {job}, tree, kWindow, sizes, o)),
            "Account|0-7 CPUs|>= 8 CPUs|% of cluster\n"
            "phys|240|0|100.00%\n");
}

TEST(SreportFormat, GpuEfficiencyColumnsByName) {
  wire::AccountingJob job = Job("alice", "phys", kDay, kDay + 3600, "cpu=4,gres/gpu=2");
  wire::GpuUsage* g = job.mutable_batch_usage()->mutable_gpu();
  g->set_gpus(2);
  g->set_samples(10);
  g->set_util_ave(100);  // 50% per GPU
  ReportOptions o = Parsable();
  o.no_header = false;
  o.format = "Login,Eff,jobs,U";
  EXPECT_EQ(AfterBanner(GpuEfficiencyReport("c1", {job}, kWindow, false, {}, o)),
            "Login|Efficiency|Jobs|Used\n"
            "alice|50.00%|1|60\n");
}

}  // namespace
}  // namespace rota::cli
