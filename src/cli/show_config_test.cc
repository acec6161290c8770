#include "cli/show_config.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::cli {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

TEST(ShowConfigTest, EveryKeyInSlurmsLayoutWithSetValuesAndDefaults) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {"ClusterName=alpha\nSlurmctldHost=head(10.0.0.1)\nKillWait=45\nGresTypes=gpu\n"
            "SelectTypeParameters=CR_Core_Memory\nNodeName=n1 CPUs=4\n"
            "PartitionName=p Nodes=n1 Default=YES\n",
            "", "ConstrainDevices=yes\nAllowedRAMSpace=95\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  ShowConfigContext context{1700000000, true, "head"};
  std::string out = FormatShowConfig(**loaded.config, context);
  EXPECT_EQ(out.rfind("Configuration data as of ", 0), 0u) << out;
  for (const char* line :
       {"ClusterName             = alpha\n", "KillWait                = 45 sec\n",
        "MinJobAge               = 300 sec\n", "SelectTypeParameters    = CR_CORE_MEMORY\n",
        "SlurmctldHost[0]        = head(10.0.0.1)\n", "DefMemPerNode           = UNLIMITED\n",
        "GresTypes               = gpu\n", "TCPTimeout              = 2 sec\n",
        "\nCgroup Support Configuration:\n", "ConstrainDevices        = yes\n",
        "AllowedRAMSpace         = 95.0%\n", "ConstrainCores          = no\n",
        "\nSlurmctld(primary) at head is UP\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "in:\n" << out;
  }
  // Keys keep Slurm's order (alphabetical, as it prints them).
  EXPECT_LT(out.find("AccountingStorageType"), out.find("AuthType"));
  EXPECT_LT(out.find("AuthType"), out.find("ClusterName"));
  context.controller_up = false;
  EXPECT_NE(FormatShowConfig(**loaded.config, context).find("at head is DOWN"), std::string::npos);
}

TEST(ShowConfigTest, WarnsThatSuspendedJobsKeepTheirGpuMemory) {
  TempDir dir;
  const std::string base =
      "ClusterName=alpha\nSlurmctldHost=head\nNodeName=n1 CPUs=4\n"
      "PartitionName=low Nodes=n1 Default=YES PriorityTier=1\n";
  ShowConfigContext context{1700000000, true, "head"};
  auto requeue =
      LoadConfigFiles(dir, {base + "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n"
                                   "PartitionName=high Nodes=n1 PriorityTier=2\n"});
  ASSERT_TRUE(requeue.config.ok()) << requeue.Text();
  EXPECT_EQ(FormatShowConfig(**requeue.config, context).find("WARNING"), std::string::npos);
  // One partition that suspends is enough.
  auto suspend = LoadConfigFiles(
      dir, {base + "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n"
                   "PartitionName=high Nodes=n1 PriorityTier=2 PreemptMode=SUSPEND\n"});
  ASSERT_TRUE(suspend.config.ok()) << suspend.Text();
  std::string out = FormatShowConfig(**suspend.config, context);
  EXPECT_NE(out.find("\nWARNING: PreemptMode=SUSPEND: a suspended job keeps its memory on the "
                     "node and on its GPUs"),
            std::string::npos)
      << out;
  // Without preemption the mode means nothing.
  auto none = LoadConfigFiles(dir, {base + "PreemptMode=SUSPEND\n"});
  ASSERT_TRUE(none.config.ok()) << none.Text();
  EXPECT_EQ(FormatShowConfig(**none.config, context).find("WARNING"), std::string::npos);
}

TEST(ShowConfigTest, GangTimeSlicingListsTheSliceAndWarnsAboutGpuMemory) {
  TempDir dir;
  const std::string base = "ClusterName=alpha\nSlurmctldHost=head\nNodeName=n1 CPUs=4\n";
  ShowConfigContext context{1700000000, true, "head"};
  auto gang = LoadConfigFiles(
      dir, {base + "PreemptMode=GANG\nSchedulerTimeSlice=60\n"
                   "PartitionName=shared Nodes=n1 Default=YES OverSubscribe=FORCE:2\n"});
  ASSERT_TRUE(gang.config.ok()) << gang.Text();
  EXPECT_EQ((*gang.config)->settings.scheduler_time_slice, 60);
  std::string out = FormatShowConfig(**gang.config, context);
  EXPECT_NE(out.find("SchedulerTimeSlice      = 60 sec\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nWARNING: PreemptMode=GANG: a job waiting for its time slice is suspended"),
            std::string::npos)
      << out;
  // GANG without a FORCE partition slices nothing: no warning.
  auto plain = LoadConfigFiles(
      dir, {base + "PreemptMode=GANG\nPartitionName=p Nodes=n1 Default=YES OverSubscribe=YES:2\n"});
  ASSERT_TRUE(plain.config.ok()) << plain.Text();
  out = FormatShowConfig(**plain.config, context);
  EXPECT_EQ(out.find("WARNING"), std::string::npos);
  EXPECT_NE(out.find("SchedulerTimeSlice      = 30 sec\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace rota::cli
