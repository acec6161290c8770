// The slurm.conf keys that set jobs' defaults and limits (DefCpuPerGPU,
// DefMemPerGPU, MaxMemPerCPU, MaxCPUsPerNode, EnforcePartLimits,
// OverTimeLimit, JobRequeue, PriorityUsageResetPeriod): typed values,
// partition overrides, and errors at the line.
#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::conf {
namespace {

using rota::testing::kMinimalHead;
using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

TEST(JobLimitKeysTest, DefaultsAreSlurms) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + "NodeName=n1\nPartitionName=p Nodes=n1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const SlurmConf& s = (*loaded.config)->settings;
  EXPECT_FALSE(s.def_cpu_per_gpu);
  EXPECT_FALSE(s.def_mem_per_gpu);
  EXPECT_FALSE(s.max_mem_per_cpu);
  EXPECT_EQ(s.enforce_part_limits, "NO");
  EXPECT_EQ(s.over_time_limit, 0);
  EXPECT_TRUE(s.job_requeue);
  EXPECT_EQ(s.priority_usage_reset_period, "NONE");
  const PartitionConfig& p = (*loaded.config)->partitions.front();
  EXPECT_EQ(p.max_cpus_per_node, kUnlimitedCount);
  EXPECT_FALSE(p.over_time_limit);
}

TEST(JobLimitKeysTest, ClusterAndPartitionValues) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) +
            "DefCpuPerGPU=4\nDefMemPerGPU=16G\nMaxMemPerCPU=4000\nEnforcePartLimits=all\n"
            "OverTimeLimit=UNLIMITED\nJobRequeue=0\nPriorityUsageResetPeriod=monthly\n"
            "NodeName=n1 CPUs=8\n"
            "PartitionName=p Nodes=n1 DefCpuPerGPU=2 DefMemPerGPU=1000 MaxMemPerCPU=2G "
            "MaxCPUsPerNode=6 OverTimeLimit=5\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const SlurmConf& s = (*loaded.config)->settings;
  EXPECT_EQ(s.def_cpu_per_gpu, 4u);
  EXPECT_EQ(s.def_mem_per_gpu, 16384u);
  EXPECT_EQ(s.max_mem_per_cpu, 4000u);
  EXPECT_EQ(s.enforce_part_limits, "ALL");
  EXPECT_EQ(s.over_time_limit, kInfiniteDuration);
  EXPECT_FALSE(s.job_requeue);
  EXPECT_EQ(s.priority_usage_reset_period, "MONTHLY");
  const PartitionConfig& p = (*loaded.config)->partitions.front();
  EXPECT_EQ(p.def_cpu_per_gpu, 2u);
  EXPECT_EQ(p.def_mem_per_gpu, 1000u);
  EXPECT_EQ(p.max_mem_per_cpu, 2048u);
  EXPECT_EQ(p.max_cpus_per_node, 6u);
  EXPECT_EQ(p.over_time_limit, 300);  // Minutes, as Slurm writes them
  // They take effect, so nothing says they have none.
  EXPECT_EQ(loaded.Text().find("has no effect"), std::string::npos) << loaded.Text();
}

TEST(JobLimitKeysTest, BadValuesAreErrorsAtTheirLine) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "EnforcePartLimits=SOME\n"           // 4
                                        "JobRequeue=2\n"                     // 5
                                        "PriorityUsageResetPeriod=HOURLY\n"  // 6
                                        "DefMemPerGPU=lots\n"                // 7
                                        "NodeName=n1\n"
                                        "PartitionName=p Nodes=n1 MaxCPUsPerNode=x\n"});  // 9
  EXPECT_FALSE(loaded.config.ok());
  const std::string text = loaded.Text();
  for (const char* expected :
       {"slurm.conf line 4: EnforcePartLimits=SOME is not one of",
        "slurm.conf line 5: JobRequeue=2 is not 0 or 1",
        "slurm.conf line 6: PriorityUsageResetPeriod=HOURLY is not one of",
        "slurm.conf line 7: DefMemPerGPU=lots", "slurm.conf line 9: MaxCPUsPerNode=x"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
}

}  // namespace
}  // namespace rota::conf
