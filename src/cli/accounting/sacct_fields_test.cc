#include "cli/accounting/sacct_fields.h"

#include <gtest/gtest.h>

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

TEST(SacctFieldsTest, EveryFieldIsFoundByItsNameInAnyCase) {
  const auto& fields = SacctFields().fields();
  ASSERT_EQ(fields.size(), 42u);
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
