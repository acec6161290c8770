#include "cli/accounting/sacct_fields.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <iterator>

#include "common/strings.h"

namespace rota::cli {
namespace {

// Job 28 of the reference capture: cancelled by root after 12 seconds on 2 GPUs.
wire::AccountingJob Job28() {
  wire::AccountingJob j;
  j.set_job_id(28);
  j.set_name("qos_run");
  j.set_partition("batch");
  j.set_account("observe");
  j.set_alloc_cpus(1);
  j.set_state(wire::JOB_STATE_CANCELLED);
  j.set_ended(true);
  j.set_cancelled(true);
  j.set_cancelled_by_uid(0);
  j.set_start_time(1000);
  j.set_end_time(1012);
  j.set_alloc_tres("cpu=1,mem=1G,node=1,billing=1,gres/gpu=2");
  j.set_req_tres("cpu=1,mem=1G,node=1,billing=1,gres/gpu=2");
  j.set_reason("None");
  return j;
}

// Job 17: failed without ever being allocated.
wire::AccountingJob Job17() {
  wire::AccountingJob j;
  j.set_job_id(17);
  j.set_name("wrap");
  j.set_partition("batch");
  j.set_account("observe");
  j.set_state(wire::JOB_STATE_FAILED);
  j.set_ended(true);
  j.set_exit_code(1 << 8);
  j.set_req_tres("cpu=1,mem=1G,node=1,billing=1,gres/gpu=9");
  j.set_reason("None");
  return j;
}

std::string Render(std::string_view format, SacctLayout layout,
                   const std::vector<wire::AccountingJob>& jobs, bool no_header = false) {
  auto columns = ParseSacctFormat(format);
  EXPECT_TRUE(columns.ok()) << columns.status().ToString();
  return RenderSacct(*columns, layout, no_header, jobs, SacctContext{});
}

TEST(SacctFieldsTest, AlignedLayoutAsSlurmPrintsIt) {
  // sacct -j 28 -o JobID,JobName,State,AllocTRES%60,Elapsed (the job line).
  EXPECT_EQ(Render("JobID,JobName,State,AllocTRES%60,Elapsed", SacctLayout::kAligned, {Job28()}),
            "JobID           JobName      State                                                    "
            "AllocTRES    Elapsed \n"
            "------------ ---------- ---------- "
            "------------------------------------------------------------ ---------- \n"
            "28              qos_run CANCELLED+                     "
            "billing=1,cpu=1,gres/gpu=2,mem=1G,node=1   00:00:12 \n");
}

TEST(SacctFieldsTest, Parsable2DefaultFormat) {
  // sacct --parsable2 -j 28 (the job line).
  EXPECT_EQ(Render(kSacctDefaultFormat, SacctLayout::kParsable2, {Job28(), Job17()}),
            "JobID|JobName|Partition|Account|AllocCPUS|State|ExitCode\n"
            "28|qos_run|batch|observe|1|CANCELLED by 0|0:0\n"
            "17|wrap|batch|observe|1|FAILED|1:0\n");
}

TEST(SacctFieldsTest, ReasonAndTresColumns) {
  // sacct --parsable2 -X -o JobID,State,Reason,AllocTRES,ReqTRES
  EXPECT_EQ(Render("JobID,State,Reason,AllocTRES,ReqTRES", SacctLayout::kParsable2,
                   {Job17(), Job28()}, /*no_header=*/true),
            "17|FAILED|None||billing=1,cpu=1,gres/gpu=9,mem=1G,node=1\n"
            "28|CANCELLED by 0|None|billing=1,cpu=1,gres/gpu=2,mem=1G,node=1|"
            "billing=1,cpu=1,gres/gpu=2,mem=1G,node=1\n");
}

TEST(SacctFieldsTest, ParsableEndsEveryFieldWithABar) {
  EXPECT_EQ(Render("jobid,state,exitcode", SacctLayout::kParsable, {Job17()}),
            "JobID|State|ExitCode|\n17|FAILED|1:0|\n");
}

TEST(SacctFieldsTest, ValuesAndUnknownFields) {
  EXPECT_EQ(SacctElapsed(12), "00:00:12");
  EXPECT_EQ(SacctElapsed(86400 + 2 * 3600 + 3 * 60 + 4), "1-02:03:04");
  wire::AccountingJob oom;
  oom.set_exit_code(9);  // Killed by signal 9
  EXPECT_EQ(SacctExitCode(oom), "0:9");
  EXPECT_EQ(SacctTres("cpu=2,mem=2G,node=1,billing=2,gres/gpu=2"),
            "billing=2,cpu=2,gres/gpu=2,mem=2G,node=1");
  auto bad = ParseSacctFormat("JobID,Bogus");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Bogus"), std::string::npos);

  // Never started: Unknown start and end, no nodes; a running job's elapsed counts to now.
  wire::AccountingJob running;
  running.set_job_id(5);
  running.set_state(wire::JOB_STATE_RUNNING);
  running.set_start_time(100);
  running.set_nodelist("n[1-2]");
  running.set_restarts(1);
  auto columns = ParseSacctFormat("JobID,State,Elapsed,End,NodeList,Restarts");
  ASSERT_TRUE(columns.ok());
  SacctContext ctx;
  ctx.now = 100 + 3661;
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, true, {running}, ctx),
            "5|RUNNING|01:01:01|Unknown|n[1-2]|1\n");
}

TEST(SacctFieldsTest, SizeAndLimitColumns) {
  wire::AccountingJob j = Job28();
  j.set_uid(1001);
  j.set_alloc_nodes(1);
  j.set_time_limit_s(90 * 60);
  wire::AccountingJob never = Job17();  // Never allocated: sizes from what it asked for
  never.set_time_limit_s(-1);
  EXPECT_EQ(Render("JobID,UID,Timelimit,NNodes,AllocNodes,NCPUS,ReqCPUS", SacctLayout::kParsable2,
                   {j, never}),
            "JobID|UID|Timelimit|NNodes|AllocNodes|NCPUS|ReqCPUS\n"
            "28|1001|01:30:00|1|1|1|1\n"
            "17|0|UNLIMITED|1|0|1|1\n");
  EXPECT_EQ(Render("Timelimit,NNodes", SacctLayout::kAligned, {j}),
            " Timelimit   NNodes \n"
            "---------- -------- \n"
            "  01:30:00        1 \n");
}

// Job 28 as the controller records it now: a batch job (its script killed by
// SIGTERM) on n1, with one srun step that failed.
wire::AccountingJob Job28WithSteps() {
  wire::AccountingJob j = Job28();
  j.set_exit_code(SIGTERM);
  j.set_nodelist("n1");
  j.set_batch(true);
  j.set_batch_cpus(1);
  j.set_batch_tres("cpu=1,mem=1G,node=1,gres/gpu=2");
  wire::AccountingStep* s = j.add_steps();
  s->set_step_id(0);
  s->set_name("gpuprobe.sh");
  s->set_state(wire::JOB_STATE_FAILED);
  s->set_exit_code(1 << 8);
  s->set_start_time(1002);
  s->set_end_time(1005);
  s->set_nodelist("n1");
  s->set_alloc_cpus(1);
  s->set_alloc_nodes(1);
  s->set_alloc_tres("cpu=1,node=1");
  return j;
}

TEST(SacctFieldsTest, StepsFollowTheirJobUnlessAllocationsOnly) {
  // sacct --parsable2 -j 28, and the aligned capture's batch line.
  SacctContext ctx;
  ctx.now = 5000;
  ctx.steps = true;
  auto columns = ParseSacctFormat(kSacctDefaultFormat);
  ASSERT_TRUE(columns.ok());
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, false, {Job28WithSteps(), Job17()}, ctx),
            "JobID|JobName|Partition|Account|AllocCPUS|State|ExitCode\n"
            "28|qos_run|batch|observe|1|CANCELLED by 0|0:0\n"
            "28.batch|batch||observe|1|CANCELLED|0:15\n"
            "28.0|gpuprobe.sh||observe|1|FAILED|1:0\n"
            "17|wrap|batch|observe|1|FAILED|1:0\n");
  auto wide = ParseSacctFormat("JobID,JobName,State,AllocTRES%60,Elapsed,JobIDRaw,User,NodeList");
  ASSERT_TRUE(wide.ok());
  std::string text = RenderSacct(*wide, SacctLayout::kParsable2, true, {Job28WithSteps()}, ctx);
  EXPECT_NE(
      text.find("28.batch|batch|CANCELLED|cpu=1,gres/gpu=2,mem=1G,node=1|00:00:12|28.batch||n1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("28.0|gpuprobe.sh|FAILED|cpu=1,node=1|00:00:03|28.0||n1\n"),
            std::string::npos)
      << text;
  // -X: allocations only.
  ctx.steps = false;
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, true, {Job28WithSteps()}, ctx),
            "28|qos_run|batch|observe|1|CANCELLED by 0|0:0\n");
  // -j 28.0: only that step, not the job's own row (also with -X).
  ctx.only_steps[28] = {"0"};
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, true, {Job28WithSteps(), Job17()}, ctx),
            "28.0|gpuprobe.sh||observe|1|FAILED|1:0\n"
            "17|wrap|batch|observe|1|FAILED|1:0\n");
  ctx.only_steps.clear();
  // A job that never started has no steps.
  ctx.steps = true;
  EXPECT_TRUE(SacctStepRows(Job17()).empty());
  wire::AccountingJob interactive = Job28WithSteps();
  interactive.set_batch(false);
  ASSERT_EQ(SacctStepRows(interactive).size(), 1u);
  EXPECT_EQ(SacctStepRows(interactive)[0].step, "0");
}

TEST(SacctFieldsTest, WckeyIsTheJobsAsGiven) {
  wire::AccountingJob with = Job17();
  with.set_wckey("submitit");
  EXPECT_EQ(Render("JobID,WCKey", SacctLayout::kParsable2, {with, Job17()}),
            "JobID|WCKey\n17|submitit\n17|\n");
}

// Every field of Slurm 22.05's sacct (its --helpformat), in its order: by
// name in any case (where 22.05 puts Restarts among Reserved and ResvCPU is
// not confirmed).
constexpr std::string_view kSlurmFields =
    "Account AdminComment AllocCPUS AllocNodes AllocTRES AssocID AveCPU AveCPUFreq AveDiskRead "
    "AveDiskWrite AvePages AveRSS AveVMSize BlockID Cluster Comment Constraints ConsumedEnergy "
    "ConsumedEnergyRaw Container CPUTime CPUTimeRAW DBIndex DerivedExitCode Elapsed ElapsedRaw "
    "Eligible End ExitCode Flags GID Group JobID JobIDRaw JobName Layout MaxDiskRead "
    "MaxDiskReadNode MaxDiskReadTask MaxDiskWrite MaxDiskWriteNode MaxDiskWriteTask MaxPages "
    "MaxPagesNode MaxPagesTask MaxRSS MaxRSSNode MaxRSSTask MaxVMSize MaxVMSizeNode MaxVMSizeTask "
    "McsLabel MinCPU MinCPUNode MinCPUTask NCPUS NNodes NodeList NTasks Partition Priority QOS "
    "QOSRAW Reason ReqCPUFreq ReqCPUFreqGov ReqCPUFreqMax ReqCPUFreqMin ReqCPUS ReqMem ReqNodes "
    "ReqTRES Reservation ReservationId Reserved Restarts ResvCPU ResvCPURAW Start State Submit "
    "SubmitLine Suspended SystemComment SystemCPU Timelimit TimelimitRaw TotalCPU TRESUsageInAve "
    "TRESUsageInMax TRESUsageInMaxNode TRESUsageInMaxTask TRESUsageInMin TRESUsageInMinNode "
    "TRESUsageInMinTask TRESUsageInTot TRESUsageOutAve TRESUsageOutMax TRESUsageOutMaxNode "
    "TRESUsageOutMaxTask TRESUsageOutMin TRESUsageOutMinNode TRESUsageOutMinTask TRESUsageOutTot "
    "UID User UserCPU WCKey WCKeyID WorkDir";

TEST(SacctFieldsTest, SlurmsFieldsInSlurmsOrder) {
  std::vector<std::string> names;
  for (const auto& field : SacctFields().fields()) names.emplace_back(field.info.long_name);
  std::vector<std::string> slurm;
  for (std::string_view name : Split(kSlurmFields, ' ')) slurm.emplace_back(name);
  EXPECT_EQ(names, slurm);
  // --helpformat: four to a line, in columns of 20, no trailing blanks.
  const std::string help = SacctHelpFormat();
  EXPECT_EQ(help.substr(0, help.find('\n') + 1),
            "Account             AdminComment        AllocCPUS           AllocNodes\n");
  EXPECT_EQ(std::count(help.begin(), help.end(), '\n'), 28);  // 110 fields
  EXPECT_TRUE(help.ends_with("WCKeyID             WorkDir\n")) << help;
}

TEST(SacctFieldsTest, AFieldNameMayBeCutShort) {
  // As Slurm's sacct: the first field, in its order, that starts so.
  auto columns = ParseSacctFormat("jobid,maxrssn,tresusageinmaxt,node,res");
  ASSERT_TRUE(columns.ok()) << columns.status().ToString();
  std::vector<std::string_view> names;
  for (const auto& c : *columns) names.push_back(SacctFields().fields()[c.field].info.long_name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"JobID", "MaxRSSNode", "TRESUsageInMaxTask",
                                                  "NodeList", "Reservation"}));
  // -l's list names every field in full, and all exist.
  EXPECT_TRUE(ParseSacctFormat(kSacctLongFormat).ok());
  EXPECT_FALSE(ParseSacctFormat("maxrssnodes").ok());
}

// The request's fields on the job's line only; steps have their own NTasks
// and Layout; what Rota does not keep is blank.
TEST(SacctFieldsTest, TheRequestTheWaitAndTheLayout) {
  wire::AccountingJob j = Job28WithSteps();
  j.set_cluster("c1");
  j.set_gid(0);
  j.set_qos("normal");
  j.set_comment("calib");
  j.set_submit_line("sbatch --comment=calib job.sh");
  j.set_priority(4242);
  j.set_req_nodes(1);
  j.set_eligible_time(940);  // Waited a minute for its start at 1000
  j.set_time_limit_s(90);
  j.set_suspended_s(5);  // Of the 12 s between start and end
  j.mutable_steps(0)->set_ntasks(4);
  j.mutable_steps(0)->set_layout("Cyclic");
  j.mutable_steps(0)->set_exit_code(3 << 8);
  wire::AccountingStep* second = j.add_steps();
  *second = j.steps(0);
  second->set_step_id(1);
  second->set_exit_code(1 << 8);
  second->clear_layout();  // Written before layouts were kept
  SacctContext ctx;
  ctx.steps = true;
  auto columns = ParseSacctFormat(
      "JobID,Cluster,Group,QOS,Comment,SubmitLine,Priority,ReqNodes,Reserved,ResvCPURAW,Elapsed,"
      "Suspended,TimelimitRaw,DerivedExitCode,NTasks,Layout,MaxVMSize,DBIndex,ReqCPUFreq");
  ASSERT_TRUE(columns.ok());
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, true, {j}, ctx),
            "28|c1|root|normal|calib|sbatch --comment=calib job.sh|4242|1|00:01:00|60|00:00:07|"
            "00:00:05|2|3:0|||||\n"
            "28.batch|c1|root|normal|||||||00:00:12|00:00:05|2||1|Unknown|||Unknown\n"
            "28.0|c1|root|normal|||||||00:00:03|00:00:05|2||4|Cyclic|||Unknown\n"
            "28.1|c1|root|normal|||||||00:00:03|00:00:05|2||4|Block|||Unknown\n");
}

TEST(SacctFieldsTest, EveryFieldIsFoundByItsNameInAnyCase) {
  const auto& fields = SacctFields().fields();
  ASSERT_EQ(fields.size(), 110u);
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string name(fields[i].info.long_name);
    EXPECT_EQ(fields[i].info.header, name);
    for (const std::string& spelled : {name, ToLower(name), ToUpper(name)}) {
      auto columns = ParseSacctFormat(spelled + "%7");
      ASSERT_TRUE(columns.ok()) << spelled;
      ASSERT_EQ(columns->size(), 1u);
      EXPECT_EQ((*columns)[0].field, static_cast<int>(i)) << spelled;
      EXPECT_EQ((*columns)[0].width, 7) << spelled;
    }
  }
}

TEST(SacctFieldsTest, DefaultWidthsAndJustification) {
  // Slurm's widths; JobID, JobIDRaw and NodeList are left-justified.
  auto columns = ParseSacctFormat(
      "JobID,JobIDRaw,JobName,Partition,Account,AllocCPUS,AllocTRES,ReqTRES,ReqMem,Elapsed,"
      "ElapsedRaw,State,ExitCode,Start,End,Submit,NodeList,Reason,Restarts,User,UID,Timelimit,"
      "NNodes,AllocNodes,NCPUS,ReqCPUS,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxVMSize,"
      "TRESUsageInMax");
  ASSERT_TRUE(columns.ok());
  const int widths[] = {12, 12, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 8,  19, 19, 19,
                        15, 20, 8,  9,  6,  10, 8,  10, 10, 8,  10, 10, 10, 10, 10, 14};
  ASSERT_EQ(columns->size(), std::size(widths));
  std::string rule;
  for (size_t i = 0; i < columns->size(); ++i) {
    EXPECT_EQ((*columns)[i].width, widths[i]) << i;
    rule += std::string(static_cast<size_t>(widths[i]), '-') + " ";
  }
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kAligned, false, {}, SacctContext{}),
            "JobID        JobIDRaw        JobName  Partition    Account  AllocCPUS  AllocTRES    "
            "ReqTRES     ReqMem    Elapsed ElapsedRaw      State ExitCode               Start    "
            "             End              Submit NodeList                      Reason Restarts  "
            "    User    UID  Timelimit   NNodes AllocNodes      NCPUS  ReqCPUS     MaxRSS "
            "MaxRSSNode MaxRSSTask     AveRSS  MaxVMSize TRESUsageInMax \n" +
                rule + "\n");
}

TEST(SacctFieldsTest, MemoryInSlurmsUnits) {
  EXPECT_EQ(SacctMemoryKb(0), "0");
  EXPECT_EQ(SacctMemoryKb(1234), "1234K");
  EXPECT_EQ(SacctMemoryKb(51200), "50M");  // Exactly 50 MiB
  EXPECT_EQ(SacctMemoryKb(51201), "51201K");
  EXPECT_EQ(SacctMemoryKb(1024), "1M");
  EXPECT_EQ(SacctMemoryKb(3ull * 1024 * 1024), "3G");
  EXPECT_EQ(SacctMemoryKb(51200, /*convert=*/false), "51200K");  // --noconvert
  EXPECT_EQ(SacctMemoryKb(1536ull * 1024), "1536M");
}

TEST(SacctFieldsTest, UsageOnStepLinesBlankOnTheJobs) {
  wire::AccountingJob j = Job28WithSteps();
  j.mutable_batch_usage()->set_max_rss_kb(51200);
  j.mutable_batch_usage()->set_max_rss_node("n1");
  j.mutable_batch_usage()->set_ave_rss_kb(51200);
  j.mutable_batch_usage()->set_tasks(1);
  wire::StepUsage& u = *j.mutable_steps(0)->mutable_usage();
  u.set_max_rss_kb(70001);
  u.set_max_rss_node("n2");
  u.set_max_rss_task(3);
  u.set_ave_rss_kb(40000);
  u.set_tasks(4);
  SacctContext ctx;
  ctx.steps = true;
  auto columns =
      ParseSacctFormat("JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxVMSize,TRESUsageInMax");
  ASSERT_TRUE(columns.ok()) << columns.status().message();
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, false, {j}, ctx),
            "JobID|MaxRSS|MaxRSSNode|MaxRSSTask|AveRSS|MaxVMSize|TRESUsageInMax\n"
            "28||||||\n"
            "28.batch|50M|n1|0|50M||mem=50M\n"
            "28.0|70001K|n2|3|40000K||mem=70001K\n");
  // Not measured: blank, also on step lines.
  j.clear_batch_usage();
  auto one = ParseSacctFormat("JobID,MaxRSS");
  ASSERT_TRUE(one.ok());
  ctx.only_steps[28] = {"batch"};
  EXPECT_EQ(RenderSacct(*one, SacctLayout::kParsable2, true, {j}, ctx), "28.batch|\n");
  // The aligned layout right-justifies them in ten columns, as Slurm.
  ctx.only_steps[28] = {"0"};
  EXPECT_EQ(RenderSacct(*one, SacctLayout::kAligned, true, {j}, ctx), "28.0             70001K \n");
}

TEST(SacctFieldsTest, TheExternStepComesFirstAndEndsCompleted) {
  wire::AccountingJob j = Job28WithSteps();
  j.set_extern_step(true);
  j.set_alloc_nodes(1);
  SacctContext ctx;
  ctx.steps = true;
  auto columns = ParseSacctFormat("JobID,JobName,AllocCPUS,State,ExitCode,NodeList");
  ASSERT_TRUE(columns.ok());
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, true, {j}, ctx),
            "28|qos_run|1|CANCELLED by 0|0:0|n1\n"
            "28.extern|extern|1|COMPLETED|0:0|n1\n"
            "28.batch|batch|1|CANCELLED|0:15|n1\n"
            "28.0|gpuprobe.sh|1|FAILED|1:0|n1\n");
  // sacct -j 28.extern
  ctx.only_steps[28] = {"extern"};
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, true, {j}, ctx),
            "28.extern|extern|1|COMPLETED|0:0|n1\n");
  // While the job runs, so does its extern step.
  j.set_state(wire::JOB_STATE_RUNNING);
  j.set_ended(false);
  j.set_end_time(0);
  EXPECT_EQ(SacctStepRows(j).front().record.state(), wire::JOB_STATE_RUNNING);
  // Without PrologFlags=Contain: none.
  j.set_extern_step(false);
  EXPECT_EQ(SacctStepRows(j).front().step, "batch");
}

}  // namespace
}  // namespace rota::cli
