#include "cli/format/squeue_fields.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace rota::cli::format {
namespace {

using wire::JobRecord;

// The moment of the listings in /work/shared/slurm-observed/squeue.txt:
// Sun Nov 29 07:14:15 2026 UTC.
constexpr int64_t kNow = 1795936455;
constexpr int64_t kT0 = 1795936441;  // First submissions (07:14:01).

// Builds the observed cluster's jobs (squeue.txt, reasons.txt, the --json dump).
class ObservedJobs {
 public:
  ObservedJobs() {
    Pending(21, "wrap", 1010, "PartitionConfig", kT0).set_req_nodes(32);
    Pending(23, "wrap", 138, "PartitionTimeLimit", kT0).set_time_limit_s(2 * 86400);
    Pending(25, "part_time", 1128, "PartitionTimeLimit", kT0)
        .mutable_spec()
        ->set_partition("short");
    Pending(26, "held", 0, "JobHeldUser", kT0);
    Pending(27, "begin", 138, "BeginTime", kT0).set_start_time(kT0 + 3600);
    Running(28, "qos_run", 2201, "n1", kT0 + 3, "gpu:2");
    Pending(29, "qos_limit", 2170, "QOSMaxGRESPerUser", kT0 + 3).mutable_spec()->set_gres("gpu:1");
    Pending(30, "dep", 138, "Dependency", kT0 + 3);
    Pending(31, "reqnode", 138, "ReqNodeNotAvail, UnavailableNodes:n4", kT0 + 3);
    Running(32, "fill1", 326, "n1", kT0 + 6, "gpu:6");
    Running(33, "fill2", 388, "n2", kT0 + 6, "gpu:8");
    Running(34, "fill3", 388, "n3", kT0 + 6, "gpu:8");
    Pending(35, "resources", 170, "Resources", kT0 + 6).mutable_spec()->set_gres("gpu:1");
    Pending(36, "priority", 1, "Priority", kT0 + 6).mutable_spec()->set_gres("gpu:1");
    Pending(37, "cpu_only", 138, "Priority", kT0 + 6);
  }

  // The jobs in the order the controller sent them. Slurm's sorts are
  // stable, so jobs tying on partition, state and priority (27, 37, 31, 30,
  // 23 at priority 138; 33 and 34 at 388) print in the controller's order;
  // this order is one that yields the observed listing.
  std::vector<JobRecord> InControllerOrder() const {
    std::vector<JobRecord> out;
    for (uint32_t id : {25, 28, 32, 33, 34, 36, 26, 27, 21, 37, 29, 31, 35, 30, 23}) {
      out.push_back(*std::find_if(jobs_.begin(), jobs_.end(),
                                  [id](const JobRecord& j) { return j.job_id() == id; }));
    }
    return out;
  }

 private:
  JobRecord& Add(uint32_t id, const std::string& name, uint32_t priority, int64_t submit) {
    JobRecord& j = jobs_.emplace_back();
    j.set_job_id(id);
    j.set_priority(priority);
    j.set_submit_time(submit);
    j.set_time_limit_s(3600);
    j.set_alloc_mem_mb(0);
    wire::JobSpec* s = j.mutable_spec();
    s->set_name(name);
    s->set_partition("batch");
    s->set_account("observe");
    s->set_qos("normal");
    s->set_user("root");
    s->set_group("root");
    s->set_mem_per_cpu_mb(1024);
    s->set_work_dir("/home/alice/project");
    return j;
  }
  JobRecord& Pending(uint32_t id, const std::string& name, uint32_t priority,
                     const std::string& reason, int64_t submit) {
    JobRecord& j = Add(id, name, priority, submit);
    j.set_state(wire::JOB_STATE_PENDING);
    j.set_reason(reason);
    return j;
  }
  JobRecord& Running(uint32_t id, const std::string& name, uint32_t priority,
                     const std::string& node, int64_t start, const std::string& gres) {
    JobRecord& j = Add(id, name, priority, start - 3);
    j.set_state(wire::JOB_STATE_RUNNING);
    j.set_start_time(start);
    j.set_end_time(start + 3600);
    j.add_nodes(node);
    j.set_alloc_cpus(1);
    j.mutable_spec()->set_gres(gres);
    return j;
  }

  std::vector<JobRecord> jobs_;
};

std::string Squeue(const SqueueOptions& options, int64_t now = kNow) {
  const std::vector<JobRecord> jobs = ObservedJobs().InControllerOrder();
  Result<Listing> listing = RenderSqueue(jobs, options, SqueueContext{now, 0});
  EXPECT_TRUE(listing.ok()) << listing.status().ToString();
  if (!listing.ok()) return "";
  EXPECT_TRUE(listing->errors.empty());
  return listing->text;
}

// ---- Golden listings, copied from /work/shared/slurm-observed ----

TEST(SqueueGoldenTest, Default) {
  EXPECT_EQ(
      Squeue({}),
      "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
      "                29     batch qos_limi     root PD       0:00      1 (QOSMaxGRESPerUser)\n"
      "                21     batch     wrap     root PD       0:00     32 (PartitionConfig)\n"
      "                35     batch resource     root PD       0:00      1 (Resources)\n"
      "                27     batch    begin     root PD       0:00      1 (BeginTime)\n"
      "                37     batch cpu_only     root PD       0:00      1 (Priority)\n"
      "                31     batch  reqnode     root PD       0:00      1 (ReqNodeNotAvail, "
      "UnavailableNodes:n4)\n"
      "                30     batch      dep     root PD       0:00      1 (Dependency)\n"
      "                23     batch     wrap     root PD       0:00      1 (PartitionTimeLimit)\n"
      "                36     batch priority     root PD       0:00      1 (Priority)\n"
      "                26     batch     held     root PD       0:00      1 (JobHeldUser)\n"
      "                28     batch  qos_run     root  R       0:11      1 n1\n"
      "                33     batch    fill2     root  R       0:08      1 n2\n"
      "                34     batch    fill3     root  R       0:08      1 n3\n"
      "                32     batch    fill1     root  R       0:08      1 n1\n"
      "                25     short part_tim     root PD       0:00      1 (PartitionTimeLimit)\n");
}

TEST(SqueueGoldenTest, Long) {
  SqueueOptions o;
  o.long_format = true;
  EXPECT_EQ(
      Squeue(o),
      "Sun Nov 29 07:14:15 2026\n"
      "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES "
      "NODELIST(REASON)\n"
      "                29     batch qos_limi     root  PENDING       0:00   1:00:00      1 "
      "(QOSMaxGRESPerUser)\n"
      "                21     batch     wrap     root  PENDING       0:00   1:00:00     32 "
      "(PartitionConfig)\n"
      "                35     batch resource     root  PENDING       0:00   1:00:00      1 "
      "(Resources)\n"
      "                27     batch    begin     root  PENDING       0:00   1:00:00      1 "
      "(BeginTime)\n"
      "                37     batch cpu_only     root  PENDING       0:00   1:00:00      1 "
      "(Priority)\n"
      "                31     batch  reqnode     root  PENDING       0:00   1:00:00      1 "
      "(ReqNodeNotAvail, UnavailableNodes:n4)\n"
      "                30     batch      dep     root  PENDING       0:00   1:00:00      1 "
      "(Dependency)\n"
      "                23     batch     wrap     root  PENDING       0:00 2-00:00:00      1 "
      "(PartitionTimeLimit)\n"
      "                36     batch priority     root  PENDING       0:00   1:00:00      1 "
      "(Priority)\n"
      "                26     batch     held     root  PENDING       0:00   1:00:00      1 "
      "(JobHeldUser)\n"
      "                28     batch  qos_run     root  RUNNING       0:11   1:00:00      1 n1\n"
      "                33     batch    fill2     root  RUNNING       0:08   1:00:00      1 n2\n"
      "                34     batch    fill3     root  RUNNING       0:08   1:00:00      1 n3\n"
      "                32     batch    fill1     root  RUNNING       0:08   1:00:00      1 n1\n"
      "                25     short part_tim     root  PENDING       0:00   1:00:00      1 "
      "(PartitionTimeLimit)\n");
}

TEST(SqueueGoldenTest, Start) {
  SqueueOptions o;
  o.start = true;
  EXPECT_EQ(Squeue(o),
            "             JOBID PARTITION     NAME     USER ST          START_TIME  NODES "
            "SCHEDNODES           NODELIST(REASON)\n"
            "                27     batch    begin     root PD 2026-11-29T08:14:01      1 (null)   "
            "            (BeginTime)\n"
            "                21     batch     wrap     root PD                 N/A     32 (null)   "
            "            (PartitionConfig)\n"
            "                23     batch     wrap     root PD                 N/A      1 (null)   "
            "            (PartitionTimeLimit)\n"
            "                25     short part_tim     root PD                 N/A      1 (null)   "
            "            (PartitionTimeLimit)\n"
            "                26     batch     held     root PD                 N/A      1 (null)   "
            "            (JobHeldUser)\n"
            "                29     batch qos_limi     root PD                 N/A      1 (null)   "
            "            (QOSMaxGRESPerUser)\n"
            "                30     batch      dep     root PD                 N/A      1 (null)   "
            "            (Dependency)\n"
            "                31     batch  reqnode     root PD                 N/A      1 (null)   "
            "            (ReqNodeNotAvail, UnavailableNodes:n4)\n"
            "                35     batch resource     root PD                 N/A      1 (null)   "
            "            (Resources)\n"
            "                36     batch priority     root PD                 N/A      1 (null)   "
            "            (Priority)\n"
            "                37     batch cpu_only     root PD                 N/A      1 (null)   "
            "            (Priority)\n");
}

TEST(SqueueGoldenTest, NoHeaderCustomFormat) {
  SqueueOptions o;
  o.no_header = true;
  o.format = "%i|%T|%r";
  EXPECT_EQ(Squeue(o),
            "29|PENDING|QOSMaxGRESPerUser\n"
            "21|PENDING|PartitionConfig\n"
            "35|PENDING|Resources\n"
            "27|PENDING|BeginTime\n"
            "37|PENDING|Priority\n"
            "31|PENDING|ReqNodeNotAvail, UnavailableNodes:n4\n"
            "30|PENDING|Dependency\n"
            "23|PENDING|PartitionTimeLimit\n"
            "36|PENDING|Priority\n"
            "26|PENDING|JobHeldUser\n"
            "28|RUNNING|None\n"
            "33|RUNNING|None\n"
            "34|RUNNING|None\n"
            "32|RUNNING|None\n"
            "25|PENDING|PartitionTimeLimit\n");
}

TEST(SqueueGoldenTest, TresPerNode) {
  SqueueOptions o;
  o.format = "%.8i %.10j %.8T %.6D %b %R";
  EXPECT_EQ(Squeue(o),
            "   JOBID       NAME    STATE  NODES TRES_PER_NODE NODELIST(REASON)\n"
            "      29  qos_limit  PENDING      1 gres:gpu:1 (QOSMaxGRESPerUser)\n"
            "      21       wrap  PENDING     32 N/A (PartitionConfig)\n"
            "      35  resources  PENDING      1 gres:gpu:1 (Resources)\n"
            "      27      begin  PENDING      1 N/A (BeginTime)\n"
            "      37   cpu_only  PENDING      1 N/A (Priority)\n"
            "      31    reqnode  PENDING      1 N/A (ReqNodeNotAvail, UnavailableNodes:n4)\n"
            "      30        dep  PENDING      1 N/A (Dependency)\n"
            "      23       wrap  PENDING      1 N/A (PartitionTimeLimit)\n"
            "      36   priority  PENDING      1 gres:gpu:1 (Priority)\n"
            "      26       held  PENDING      1 N/A (JobHeldUser)\n"
            "      28    qos_run  RUNNING      1 gres:gpu:2 n1\n"
            "      33      fill2  RUNNING      1 gres:gpu:8 n2\n"
            "      34      fill3  RUNNING      1 gres:gpu:8 n3\n"
            "      32      fill1  RUNNING      1 gres:gpu:6 n1\n"
            "      25  part_time  PENDING      1 N/A (PartitionTimeLimit)\n");
}

TEST(SqueueFormatTest, LongFormatNamesWidthsAndJustification) {
  SqueueOptions o;
  o.format_long = "JobID:10,Name:.20,State";
  const std::string text = Squeue(o);
  EXPECT_EQ(text.substr(0, 3 * 51),
            "JOBID                     NAMESTATE               \n"
            "29                   qos_limitPENDING             \n"
            "21                        wrapPENDING             \n");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 16);
}

TEST(SqueueFormatTest, TimeFieldsUseTheContextClock) {
  SqueueOptions o;
  o.format = "%i %S %e %V %L %l %M %Q %q %a %P %u %U %g %D %C %m %N";
  o.no_header = true;
  o.sort = "-p";
  const std::string first_line = Squeue(o).substr(0, Squeue(o).find('\n'));
  EXPECT_EQ(first_line,
            "28 2026-11-29T07:14:04 2026-11-29T08:14:04 2026-11-29T07:14:01 59:49 1:00:00 0:11 "
            "2201 normal observe batch root 0 root 1 1 1G n1");
}

TEST(SqueueFormatTest, NothingDependsOnTheWallClockOrTimeZone) {
  const std::string at_now = Squeue({});
  EXPECT_EQ(Squeue({}), at_now);
  setenv("TZ", "Asia/Kolkata", 1);
  EXPECT_EQ(Squeue({}), at_now);
  unsetenv("TZ");
  // A minute later only the running jobs' TIME moves.
  const std::string later = Squeue({}, kNow + 60);
  EXPECT_NE(later.find("      1:11      1 n1\n"), std::string::npos);
  EXPECT_NE(later.find("      1:08      1 n2\n"), std::string::npos);
  EXPECT_NE(later.find("      0:00     32 (PartitionConfig)\n"), std::string::npos);
}

TEST(SqueueFormatTest, ArrayIdForms) {
  JobRecord task;
  task.set_job_id(1240);
  task.set_array_job_id(1234);
  task.set_array_task_id(7);
  EXPECT_EQ(JobIdText(task), "1234_7");
  JobRecord meta;
  meta.set_job_id(1234);
  meta.set_array_job_id(1234);
  meta.set_array_meta(true);
  meta.set_array_pending("8-1000");
  EXPECT_EQ(JobIdText(meta), "1234_[8-1000]");
  meta.set_array_max_running(50);
  EXPECT_EQ(JobIdText(meta), "1234_[8-1000%50]");
  JobRecord plain;
  plain.set_job_id(99);
  EXPECT_EQ(JobIdText(plain), "99");

  std::vector<JobRecord> jobs = {meta, task, plain};
  SqueueOptions o;
  o.format = "%.18i %.6A %.6F %K";
  o.sort = "i";
  Result<Listing> listing = RenderSqueue(jobs, o, SqueueContext{kNow, 0});
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->text,
            "             JOBID  JOBID ARRAY_ ARRAY_TASK_ID\n"
            "                99     99     99 N/A\n"
            "            1234_7   1240   1234 7\n"
            "  1234_[8-1000%50]   1234   1234 8-1000%50\n");
}

TEST(SqueueFormatTest, LicensesByLetterAndName) {
  JobRecord with;
  with.set_job_id(7);
  with.mutable_spec()->set_licenses("fluent:2");
  JobRecord without;
  without.set_job_id(8);
  std::vector<JobRecord> jobs = {with, without};
  SqueueOptions o;
  o.format = "%.4i %W";
  o.sort = "i";
  Result<Listing> listing = RenderSqueue(jobs, o, SqueueContext{kNow, 0});
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->text,
            "JOBI LICENSES\n"
            "   7 fluent:2\n"
            "   8 (null)\n");
  o.format.clear();
  o.format_long = "JobId:4,Licenses";
  listing = RenderSqueue(jobs, o, SqueueContext{kNow, 0});
  ASSERT_TRUE(listing.ok());
  EXPECT_NE(listing->text.find("fluent:2"), std::string::npos) << listing->text;
}

TEST(SqueueFormatTest, NoConvertKeepsMemoryInMegabytes) {
  JobRecord job;
  job.set_job_id(7);
  job.mutable_spec()->set_mem_per_node_mb(2048);
  job.mutable_spec()->set_mem_given(true);
  std::vector<JobRecord> jobs = {job};
  SqueueOptions o;
  o.format = "%m";
  o.no_header = true;
  SqueueContext ctx{kNow, 0};
  Result<Listing> listing = RenderSqueue(jobs, o, ctx);
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->text, "2G\n");
  ctx.no_convert = true;
  listing = RenderSqueue(jobs, o, ctx);
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->text, "2048M\n");
}

// Every letter of Slurm 22.05's job format is known; the per-node requests
// print "*" until a job asks.
TEST(SqueueFormatTest, WckeyAndPerNodeRequestsByLetterAndName) {
  JobRecord asked;
  asked.set_job_id(7);
  wire::JobSpec& spec = *asked.mutable_spec();
  spec.set_wckey("submitit");
  spec.set_sockets_per_node(2);
  spec.set_cores_per_socket(8);
  spec.set_threads_per_core(1);
  spec.set_min_cpus_per_node(16);
  spec.set_tmp_disk_mb(10240);
  spec.set_oversubscribe(true);
  JobRecord plain;
  plain.set_job_id(8);
  std::vector<JobRecord> jobs = {asked, plain};
  SqueueOptions o;
  o.format = "%.4i|%w|%H|%I|%J|%z|%X|%s|%c|%d|%h";
  o.sort = "i";
  Result<Listing> listing = RenderSqueue(jobs, o, SqueueContext{kNow, 0});
  ASSERT_TRUE(listing.ok());
  EXPECT_TRUE(listing->errors.empty());
  EXPECT_EQ(listing->text,
            "JOBI|WCKEY|SOCKETS_PER_NODE|CORES_PER_SOCKET|THREADS_PER_CORE|S:C:T|CORE_SPEC|"
            "SELECT_JOBINFO|MIN_CPUS|MIN_TMP_DISK|OVER_SUBSCRIBE\n"
            "   7|submitit|2|8|1|2:8:1|N/A|N/A|16|10G|YES\n"
            "   8|(null)|*|*|*|*:*:*|N/A|N/A|1|0|OK\n");
  o.format.clear();
  o.format_long = "JobId:4,WCKey:10,SCT:8,Sockets:4,Cores:4,Threads:4";
  listing = RenderSqueue(jobs, o, SqueueContext{kNow, 0});
  ASSERT_TRUE(listing.ok());
  EXPECT_TRUE(listing->errors.empty());
  EXPECT_NE(listing->text.find("7   submitit  2:8:1   2   8   1"), std::string::npos)
      << listing->text;
}

TEST(SqueueFormatTest, UnknownFieldsAreReportedLikeSlurm) {
  SqueueOptions o;
  o.format = "%.6i %!|%j";
  o.no_header = true;
  std::vector<JobRecord> jobs = ObservedJobs().InControllerOrder();
  Result<Listing> listing = RenderSqueue(jobs, o, SqueueContext{kNow, 0});
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->errors.size(), 1u);
  EXPECT_EQ(listing->errors[0], "Invalid job format specification: !");
  EXPECT_EQ(listing->text.substr(0, listing->text.find('\n')), "    29 %!|qos_limit");

  o.format.clear();
  o.format_long = "JobId,NoSuchField";
  listing = RenderSqueue(jobs, o, SqueueContext{kNow, 0});
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->errors.size(), 1u);
  EXPECT_EQ(listing->errors[0], "Invalid job format specification: NoSuchField");
}

TEST(SqueueSortTest, StableMultiKeyAndErrors) {
  std::vector<JobRecord> jobs = ObservedJobs().InControllerOrder();
  std::vector<const JobRecord*> ptrs;
  for (const JobRecord& j : jobs) ptrs.push_back(&j);
  const SqueueContext ctx{kNow, 0};
  ASSERT_TRUE(SortJobs(ptrs, "-i", ctx).ok());
  EXPECT_EQ(ptrs.front()->job_id(), 37u);
  EXPECT_EQ(ptrs.back()->job_id(), 21u);
  // Equal keys keep their incoming order: 33 and 34 both run at 388.
  ASSERT_TRUE(SortJobs(ptrs, "-p", ctx).ok());
  EXPECT_EQ(ptrs[0]->job_id(), 28u);
  EXPECT_EQ(ptrs[4]->job_id(), 34u);  // -i put 34 before 33.
  EXPECT_EQ(ptrs[5]->job_id(), 33u);
  const Status bad = SortJobs(ptrs, "P,z", ctx);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "Invalid sort specification: z");
}

TEST(SqueueFormatTest, StateNames) {
  EXPECT_EQ(JobStateCompactText(wire::JOB_STATE_COMPLETING), "CG");
  EXPECT_EQ(JobStateCompactText(wire::JOB_STATE_OUT_OF_MEMORY), "OOM");
  EXPECT_EQ(JobStateCompactText(wire::JOB_STATE_REQUEUED), "RQ");
  EXPECT_EQ(JobStateText(wire::JOB_STATE_NODE_FAIL), "NODE_FAIL");
  EXPECT_EQ(JobStateText(wire::JOB_STATE_TIMEOUT), "TIMEOUT");
}

TEST(SqueueFormatTest, ReasonListShowsReasonsForEndedJobsAndNodesOtherwise) {
  JobRecord j;
  j.set_job_id(5);
  j.add_nodes("n2");
  j.add_nodes("n1");
  j.set_state(wire::JOB_STATE_TIMEOUT);
  j.set_reason("TimeLimit");
  std::vector<JobRecord> jobs = {j};
  SqueueOptions o;
  o.format = "%R %N";
  o.no_header = true;
  EXPECT_EQ(RenderSqueue(jobs, o, SqueueContext{kNow, 0})->text, "(TimeLimit) n[1-2]\n");
  jobs[0].set_state(wire::JOB_STATE_COMPLETED);
  EXPECT_EQ(RenderSqueue(jobs, o, SqueueContext{kNow, 0})->text, "n[1-2] n[1-2]\n");
}

TEST(SqueueFormatTest, JsonIsAnExplicitHook) {
  SqueueOptions o;
  o.json = true;
  EXPECT_EQ(RenderSqueue(std::span<const JobRecord>(), o, SqueueContext{kNow, 0}).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST(SqueueFormatTest, StartRangeFieldsScaleThePlanByPastOutcomes) {
  std::vector<wire::JobRecord> jobs(3);
  jobs[0].set_job_id(1);
  jobs[0].set_state(wire::JOB_STATE_PENDING);
  jobs[0].set_sched_start_time(1'800'001'140);  // Planned 1,140 s ahead
  jobs[1].set_job_id(2);
  jobs[1].set_state(wire::JOB_STATE_PENDING);  // No plan
  jobs[2].set_job_id(3);
  jobs[2].set_state(wire::JOB_STATE_RUNNING);
  jobs[2].set_start_time(1'799'990'000);
  SqueueOptions o;
  o.format_long = "JobID:4,StartP50:20,StartP90";
  SqueueContext ctx;
  ctx.now = 1'800'000'000;
  ctx.forecast.set_p50(1.5);
  ctx.forecast.set_p90(3.0);
  ctx.forecast.set_samples(100);
  Result<Listing> listing = RenderSqueue(jobs, o, ctx);
  ASSERT_TRUE(listing.ok());
  // (1,140 + 60) x 1.5 - 60 = 1,740 s and x 3 - 60 = 3,540 s from now.
  EXPECT_EQ(listing->text,
            "JOBISTART_P50           START_P90           \n"
            "1   2027-01-15T08:29:00 2027-01-15T08:59:00 \n"
            "2   N/A                 N/A                 \n"
            "3   N/A                 N/A                 \n");
  ctx.forecast.set_samples(19);  // Too few measured: no range
  listing = RenderSqueue(jobs, o, ctx);
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->text.find("2027"), std::string::npos) << listing->text;
}

}  // namespace
}  // namespace rota::cli::format
