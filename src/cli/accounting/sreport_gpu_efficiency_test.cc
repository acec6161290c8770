#include "cli/accounting/sreport_gpu_efficiency.h"

#include <gtest/gtest.h>

#include "cli/accounting/sreport_test_support.h"

namespace rota::cli {
namespace {

using sreport_test::Job;
using sreport_test::kDay;
using sreport_test::kWindow;
using sreport_test::Parsable;

// A job of `gpus` GPUs for `hours` from the window's start, its batch step
// sampled at `util_per_gpu`% (summed over its GPUs, as rotad records it).
wire::AccountingJob GpuJob(const std::string& user, const std::string& account, int gpus, int hours,
                           double util_per_gpu, bool sampled = true) {
  wire::AccountingJob j =
      Job(user, account, kDay, kDay + hours * 3600, "cpu=4,gres/gpu=" + std::to_string(gpus));
  if (sampled) {
    wire::GpuUsage* g = j.mutable_batch_usage()->mutable_gpu();
    g->set_gpus(static_cast<uint32_t>(gpus));
    g->set_samples(100);
    g->set_util_ave(util_per_gpu * gpus);
  }
  return j;
}

TEST(SreportGpuEfficiency, UsedIsAllocatedWeightedByEachJobsUtilisation) {
  std::vector<wire::AccountingJob> jobs = {
      GpuJob("alice", "phys", 4, 2, 25),                 // 8 GPU-h, 2 used
      GpuJob("alice", "phys", 1, 4, 100),                // 4 GPU-h, 4 used
      GpuJob("bob", "chem", 2, 1, 50),                   // 2 GPU-h, 1 used
      GpuJob("bob", "chem", 8, 1, 0, false),             // 8 GPU-h never sampled
      Job("carol", "phys", kDay, kDay + 3600, "cpu=8"),  // No GPUs: not listed
  };
  ReportOptions o = Parsable();
  o.no_header = true;
  o.time.unit = ReportUnit::kHours;
  EXPECT_EQ(GpuEfficiencyReport("c1", jobs, kWindow, false, {{"alice", "Alice A."}}, o),
            "c1|alice|Alice A.|phys|12|6|50.00%|0|2\n"
            "c1|bob||chem|2|1|50.00%|8|2\n");
  EXPECT_EQ(GpuEfficiencyReport("c1", jobs, kWindow, true, {}, o),
            "c1|phys|12|6|50.00%|0|2\n"
            "c1|chem|2|1|50.00%|8|2\n");
}

TEST(SreportGpuEfficiency, OnlyNeverSampledJobsShowNoEfficiency) {
  ReportOptions o = Parsable();
  o.time.unit = ReportUnit::kHours;
  const std::string out =
      GpuEfficiencyReport("c1", {GpuJob("bob", "chem", 2, 3, 0, false)}, kWindow, true, {}, o);
  EXPECT_NE(out.find("GPU Efficiency by Account"), std::string::npos) << out;
  EXPECT_NE(out.find("Usage reported in GPU Hours"), std::string::npos) << out;
  EXPECT_NE(out.find("Cluster|Account|Allocated|Used|Efficiency|Unmeasured|Jobs\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("c1|chem|0|0|N/A|6|1\n"), std::string::npos) << out;
}

TEST(SreportGpuEfficiency, TheWindowClipsAJobsTime) {
  // Ran 2 h before and 2 h inside the window at 75% per GPU.
  wire::AccountingJob j = GpuJob("alice", "phys", 2, 2, 75);
  j.set_start_time(kDay - 7200);
  ReportOptions o = Parsable();
  o.no_header = true;
  o.time.unit = ReportUnit::kMinutes;
  EXPECT_EQ(GpuEfficiencyReport("c1", {j}, kWindow, true, {}, o), "c1|phys|240|180|75.00%|0|1\n");
}

}  // namespace
}  // namespace rota::cli
