// sacct's usage fields: CPU time, CPUTime, TRESUsageIn{Max,Ave,Tot} and
// ConsumedEnergy, on step rows and summed on the job's.
#include <gtest/gtest.h>

#include <iterator>

#include "cli/accounting/sacct_fields.h"

namespace rota::cli {
namespace {

// Job 60: a batch job on n1 (4 CPUs, 100 s) with two srun steps. The batch
// step's memory and CPU were measured; step 0's also its two GPUs; step 1's
// CPU time only.
wire::AccountingJob Job60() {
  wire::AccountingJob j;
  j.set_job_id(60);
  j.set_name("train");
  j.set_state(wire::JOB_STATE_COMPLETED);
  j.set_ended(true);
  j.set_start_time(1000);
  j.set_end_time(1100);
  j.set_nodelist("n1");
  j.set_alloc_cpus(4);
  j.set_alloc_nodes(1);
  j.set_batch(true);
  j.set_batch_cpus(4);
  j.set_extern_step(true);  // Never measured: its usage fields stay blank
  wire::StepUsage* b = j.mutable_batch_usage();
  b->set_user_cpu_us(1'000'000);
  b->set_system_cpu_us(250'000);
  b->set_tasks(1);
  b->set_max_rss_kb(51200);
  b->set_ave_rss_kb(51200);
  b->set_max_rss_node("n1");

  wire::AccountingStep* s0 = j.add_steps();
  s0->set_step_id(0);
  s0->set_name("python");
  s0->set_state(wire::JOB_STATE_COMPLETED);
  s0->set_start_time(1010);
  s0->set_end_time(1070);
  s0->set_nodelist("n1");
  s0->set_ntasks(2);
  s0->set_alloc_cpus(2);
  s0->set_alloc_nodes(1);
  wire::StepUsage* u0 = s0->mutable_usage();
  u0->set_user_cpu_us(100'000'000);
  u0->set_system_cpu_us(20'000'000);
  u0->set_tasks(2);
  u0->set_max_rss_kb(70001);
  u0->set_max_rss_node("n1");
  u0->set_max_rss_task(1);
  u0->set_ave_rss_kb(40000);
  wire::GpuUsage* g = u0->mutable_gpu();
  g->set_gpus(2);
  g->set_samples(12);
  g->set_util_ave(150.4);
  g->set_util_max(190);
  g->set_mem_max_bytes(2ull << 30);
  g->set_mem_ave_bytes(1ull << 30);
  g->set_mem_total_bytes(160ull << 30);
  g->set_energy_j(1535.6);
  g->set_node("n1");

  wire::AccountingStep* s1 = j.add_steps();
  s1->set_step_id(1);
  s1->set_name("hostname");
  s1->set_state(wire::JOB_STATE_COMPLETED);
  s1->set_start_time(1070);
  s1->set_end_time(1080);
  s1->set_nodelist("n1");
  s1->set_ntasks(1);
  s1->set_alloc_cpus(1);
  s1->set_alloc_nodes(1);
  s1->mutable_usage()->set_user_cpu_us(2'000'000);
  return j;
}

std::string RenderSteps(std::string_view format, const std::vector<wire::AccountingJob>& jobs) {
  auto columns = ParseSacctFormat(format);
  EXPECT_TRUE(columns.ok()) << columns.status().ToString();
  SacctContext ctx;
  ctx.steps = true;
  return RenderSacct(*columns, SacctLayout::kParsable2, /*no_header=*/true, jobs, ctx);
}

TEST(SacctUsageFieldsTest, CpuTimeInSlurmsForms) {
  EXPECT_EQ(SacctCpuTime(0), "00:00:00");
  EXPECT_EQ(SacctCpuTime(1'250'000), "00:01.250");
  EXPECT_EQ(SacctCpuTime(61'250'999), "01:01.250");  // Milliseconds cut, not rounded
  EXPECT_EQ(SacctCpuTime(3'723'500'000), "01:02:03");
  EXPECT_EQ(SacctCpuTime(93'784'000'000), "1-02:03:04");
}

TEST(SacctUsageFieldsTest, EnergyInSlurmsUnits) {
  EXPECT_EQ(SacctEnergy(0), "0");
  EXPECT_EQ(SacctEnergy(500), "500");
  EXPECT_EQ(SacctEnergy(1023), "1023");
  EXPECT_EQ(SacctEnergy(1024), "1K");
  EXPECT_EQ(SacctEnergy(1536), "1.50K");
  EXPECT_EQ(SacctEnergy(2048), "2K");
  EXPECT_EQ(SacctEnergy(1ull << 20), "1M");
  EXPECT_EQ(SacctEnergy(3ull << 29), "1.50G");
}

TEST(SacctUsageFieldsTest, CpuFieldsOnStepsAndSummedOnTheJob) {
  EXPECT_EQ(RenderSteps("JobID,TotalCPU,UserCPU,SystemCPU", {Job60()}),
            "60|02:03.250|01:43.000|00:20.250\n"  // 1.25 s + 120 s + 2 s
            "60.extern|||\n"
            "60.batch|00:01.250|00:01.000|00:00.250\n"
            "60.0|02:00.000|01:40.000|00:20.000\n"
            "60.1|00:02.000|00:02.000|00:00:00\n");
}

TEST(SacctUsageFieldsTest, CpuTimeIsElapsedTimesCpusOnEveryRow) {
  EXPECT_EQ(RenderSteps("JobID,CPUTime,CPUTimeRAW", {Job60()}),
            "60|00:06:40|400\n"
            "60.extern|00:06:40|400\n"
            "60.batch|00:06:40|400\n"
            "60.0|00:02:00|120\n"
            "60.1|00:00:10|10\n");
}

TEST(SacctUsageFieldsTest, TresUsageInWhatWasMeasured) {
  EXPECT_EQ(RenderSteps("JobID,TRESUsageInMax,TRESUsageInAve,TRESUsageInTot", {Job60()}),
            "60|||\n"
            "60.extern|||\n"
            "60.batch|cpu=00:00:01,mem=50M|cpu=00:00:01,mem=50M|cpu=00:00:01,mem=50M\n"
            "60.0|cpu=00:02:00,energy=1536,gres/gpumem=2G,gres/gpuutil=190,mem=70001K|"
            "cpu=00:01:00,energy=1536,gres/gpumem=1G,gres/gpuutil=150,mem=40000K|"
            "cpu=00:02:00,energy=1536,gres/gpumem=2G,gres/gpuutil=190,mem=80000K\n"
            "60.1|cpu=00:00:02|cpu=00:00:02|cpu=00:00:02\n");
}

TEST(SacctUsageFieldsTest, MemoryFieldsBlankWhereOnlyCpuWasMeasured) {
  EXPECT_EQ(RenderSteps("JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS", {Job60()}),
            "60||||\n"
            "60.extern||||\n"
            "60.batch|50M|n1|0|50M\n"
            "60.0|70001K|n1|1|40000K\n"
            "60.1||||\n");
}

TEST(SacctUsageFieldsTest, UnitsShowsMemoryInTheUnitAsked) {
  wire::AccountingJob j = Job60();
  j.set_req_mem_mb(1000);
  auto columns = ParseSacctFormat("JobID,MaxRSS,AveRSS,ReqMem");
  ASSERT_TRUE(columns.ok());
  SacctContext ctx;
  ctx.steps = true;
  ctx.units = format::Unit::kMega;
  ctx.no_convert = true;  // --units wins over --noconvert, as in Slurm
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, true, {j}, ctx),
            "60|||1000M\n"
            "60.extern|||0\n"
            "60.batch|50M|50M|0\n"
            "60.0|68.36M|39.06M|0\n"
            "60.1|||0\n");
  ctx.units = format::Unit::kGiga;
  ctx.steps = false;
  EXPECT_EQ(RenderSacct(*columns, SacctLayout::kParsable2, true, {j}, ctx), "60|||0.98G\n");
}

TEST(SacctUsageFieldsTest, ConsumedEnergyOfTheGpus) {
  EXPECT_EQ(RenderSteps("JobID,ConsumedEnergy,ConsumedEnergyRaw", {Job60()}),
            "60|1.50K|1536\n"
            "60.extern||\n"
            "60.batch|0|0\n"
            "60.0|1.50K|1536\n"
            "60.1|0|0\n");
}

TEST(SacctUsageFieldsTest, AJobWithoutMeasuredStepsShowsZeros) {
  wire::AccountingJob never;  // Failed before it was allocated
  never.set_job_id(17);
  never.set_state(wire::JOB_STATE_FAILED);
  never.set_ended(true);
  never.set_req_tres("cpu=1,node=1");
  EXPECT_EQ(RenderSteps("JobID,TotalCPU,UserCPU,SystemCPU,CPUTime,CPUTimeRAW,ConsumedEnergy,"
                        "ConsumedEnergyRaw,TRESUsageInTot",
                        {never}),
            "17|00:00:00|00:00:00|00:00:00|00:00:00|0|0|0|\n");
}

TEST(SacctUsageFieldsTest, GpuSamplesAloneMakeAStepMeasured) {
  wire::AccountingJob j = Job60();
  j.clear_batch_usage();
  j.mutable_steps()->DeleteSubrange(1, 1);
  wire::StepUsage* u = j.mutable_steps(0)->mutable_usage();
  wire::GpuUsage gpu = u->gpu();
  u->Clear();
  *u->mutable_gpu() = gpu;
  EXPECT_EQ(RenderSteps("JobID,TotalCPU,MaxRSS,TRESUsageInAve,ConsumedEnergyRaw", {j}),
            "60|00:00:00|||1536\n"
            "60.extern||||\n"
            "60.batch||||\n"
            "60.0|00:00:00||energy=1536,gres/gpumem=1G,gres/gpuutil=150|1536\n");
}

TEST(SacctUsageFieldsTest, DefaultWidthsRightJustified) {
  auto columns = ParseSacctFormat(
      "TotalCPU,UserCPU,SystemCPU,CPUTime,CPUTimeRAW,TRESUsageInAve,TRESUsageInTot,"
      "ConsumedEnergy,ConsumedEnergyRaw");
  ASSERT_TRUE(columns.ok());
  const int widths[] = {10, 10, 10, 10, 10, 14, 14, 14, 17};
  ASSERT_EQ(columns->size(), std::size(widths));
  for (size_t i = 0; i < columns->size(); ++i) EXPECT_EQ((*columns)[i].width, widths[i]) << i;
  auto one = ParseSacctFormat("JobID,TotalCPU");
  ASSERT_TRUE(one.ok());
  SacctContext ctx;
  ctx.only_steps[60] = {"batch"};
  ctx.steps = true;
  EXPECT_EQ(RenderSacct(*one, SacctLayout::kAligned, true, {Job60()}, ctx),
            "60.batch      00:01.250 \n");
}

}  // namespace
}  // namespace rota::cli
