#include "cli/accounting/sstat_fields.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

wire::StepLiveFigures Node(const std::string& name, uint32_t tasks, uint64_t cpu_us,
                           uint64_t max_kb, uint64_t now_kb) {
  wire::StepLiveFigures f;
  f.set_job_id(12);
  f.set_step("0");
  f.set_node(name);
  f.set_tasks(tasks);
  f.mutable_usage()->set_user_cpu_us(cpu_us);
  if (max_kb > 0) {
    f.mutable_usage()->set_max_rss_kb(max_kb);
    f.mutable_usage()->set_ave_rss_kb(now_kb);
    f.mutable_usage()->set_max_rss_node(name);
    f.mutable_usage()->set_tasks(tasks);
  }
  return f;
}

void AddGpu(wire::StepLiveFigures& f, uint32_t util, uint64_t mem_bytes, double joules) {
  wire::GpuUsage& gpu = *f.mutable_usage()->mutable_gpu();
  gpu.set_gpus(1);
  gpu.set_samples(4);
  gpu.set_util_ave(util);
  gpu.set_util_max(util);
  gpu.set_mem_ave_bytes(mem_bytes);
  gpu.set_mem_max_bytes(mem_bytes);
  gpu.set_energy_j(joules);
}

std::string Render(const std::string& format, const std::vector<SstatStep>& steps,
                   SacctLayout layout = SacctLayout::kParsable2, bool no_header = true) {
  auto columns = ParseSstatFormat(format);
  EXPECT_TRUE(columns.ok()) << columns.status().message();
  return columns.ok() ? RenderSstat(*columns, layout, no_header, steps, SstatContext{}) : "";
}

TEST(SstatFieldsTest, AStepsNodesAddUp) {
  SstatStep step{
      12, "0", {Node("n2", 2, 4'000'000, 2048, 1024), Node("n1", 1, 3'000'000, 4096, 3072)}};
  AddGpu(step.nodes[0], 80, 10ull << 30, 300);
  AddGpu(step.nodes[1], 60, 10ull << 30, 200);
  const SstatTotals t = SstatTotalsOf(step);
  EXPECT_EQ(t.tasks, 3u);
  EXPECT_EQ(t.nodelist, "n[1-2]");
  EXPECT_EQ(t.cpu_total_us, 7'000'000u);
  EXPECT_EQ(t.cpu_min_us, 2'000'000u);  // n2's 4 s over its two tasks
  EXPECT_EQ(t.cpu_min_node, "n2");
  EXPECT_EQ(t.cpu_max_node, "n1");
  EXPECT_EQ(t.max_rss_kb, 4096u);
  EXPECT_EQ(t.max_rss_node, "n1");
  EXPECT_EQ(t.ave_rss_kb, (1024u * 2 + 3072u) / 3);
  EXPECT_EQ(t.gpu.util_max(), 140u);  // Summed over the nodes' GPUs
  EXPECT_EQ(t.gpu_min_util, 60u);

  EXPECT_EQ(Render("JobID,NTasks,Nodelist,MinCPU,MinCPUNode,AveCPU,MaxRSS,MaxRSSNode,"
                   "ConsumedEnergyRaw",
                   {step}),
            "12.0|3|n[1-2]|00:02.000|n2|00:02.333|4M|n1|500\n");
  EXPECT_EQ(Render("TRESUsageInAve,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMin", {step}),
            "cpu=00:00:02,energy=500,gres/gpumem=20G,gres/gpuutil=140,mem=1706K|"
            "cpu=00:00:03,energy=500,gres/gpumem=20G,gres/gpuutil=140,mem=4M|"
            "cpu=n1,gres/gpumem=n2,gres/gpuutil=n2,mem=n1|"
            "cpu=00:00:02,energy=500,gres/gpumem=10G,gres/gpuutil=60,mem=1M\n");
}

TEST(SstatFieldsTest, WhatRotaDoesNotMeasureShowsAsSlurmShowsItsGatherersGaps) {
  SstatStep batch{7, "batch", {Node("n1", 1, 0, 0, 0)}};
  EXPECT_EQ(Render("JobID,MaxVMSize,MaxVMSizeNode,MaxRSS,AveCPU,ReqCPUFreqMin,AveDiskRead,"
                   "TRESUsageInAve,TRESUsageOutTot,ConsumedEnergy",
                   {batch}),
            "7.batch|0|n1|0|00:00:00|Unknown|0|||0\n");
}

TEST(SstatFieldsTest, TheDefaultFieldsAreSlurmsInItsLayout) {
  auto columns = ParseSstatFormat(kSstatDefaultFormat);
  ASSERT_TRUE(columns.ok()) << columns.status().message();
  EXPECT_EQ(columns->size(), 47u);
  const std::string out = Render("JobID,AveCPU,NTasks", {}, SacctLayout::kAligned, false);
  EXPECT_EQ(out,
            "JobID            AveCPU   NTasks \n"
            "------------ ---------- -------- \n");
  EXPECT_FALSE(ParseSstatFormat("JobID,Bogus").ok());
  EXPECT_NE(ParseSstatFormat("JobID,Bogus").status().message().find("Bogus"), std::string::npos);
  EXPECT_NE(SstatHelpFormat().find("TRESUsageInAve"), std::string::npos);
}

TEST(SstatFieldsTest, JobListsNameJobsStepsAndTheBatchStep) {
  auto jobs = ParseSstatJobs("12,13.batch,14.3,15.extern");
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 4u);
  EXPECT_EQ((*jobs)[0].kind, SstatSelection::Kind::kDefault);
  EXPECT_EQ((*jobs)[1].kind, SstatSelection::Kind::kBatch);
  EXPECT_EQ((*jobs)[2].kind, SstatSelection::Kind::kStep);
  EXPECT_EQ((*jobs)[2].step_id, 3u);
  EXPECT_EQ((*jobs)[3].kind, SstatSelection::Kind::kExtern);
  EXPECT_FALSE(ParseSstatJobs("12.x").ok());
  EXPECT_EQ(ParseSstatJobs("abc").status().message(), "Invalid job id: abc");
  EXPECT_TRUE(ParseSstatJobs("")->empty());
}

}  // namespace
}  // namespace rota::cli
