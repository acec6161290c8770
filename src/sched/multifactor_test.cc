#include "sched/multifactor.h"

#include <gtest/gtest.h>

namespace rota::sched {
namespace {

// The cluster of the Slurm capture in slurm-observed/sprio.txt: 4 nodes of 32
// CPUs and 8 GPUs, partitions with PriorityJobFactor 1 and 100.
PriorityCluster ObservedCluster() {
  PriorityCluster c;
  c.total_nodes = 4;
  c.total_cpus = 128;
  c.total_gpus = 32;
  c.max_partition_job_factor = 100;
  c.max_qos_priority = 0;
  return c;
}

PrioritySettings ObservedSettings() {
  PrioritySettings s;
  s.weights.age = 1000;
  s.weights.fairshare = 10000;
  s.weights.job_size = 1000;
  s.weights.partition = 1000;
  s.weights.qos = 2000;
  s.weights.tres["gres/gpu"] = 1000;
  s.max_age_s = 7 * 24 * 3600;
  return s;
}

constexpr int64_t kNow = 1'800'000'000;

PriorityJob OneCpu() {
  PriorityJob j;
  j.age_start = kNow;
  j.nodes = 1;
  j.cpus = 1;
  j.partition_job_factor = 1;
  return j;
}

TEST(MultifactorTest, JobSizeAndPartitionMatchTheSlurmCapture) {
  // (1/4 + 1/128) / 2 = 0.12890625 -> 128.9; partition 1/100 -> 10; total 138.
  PriorityBreakdown b = ComputePriority(OneCpu(), ObservedCluster(), ObservedSettings(), kNow);
  EXPECT_DOUBLE_EQ(b.job_size, 0.12890625);
  EXPECT_DOUBLE_EQ(b.weighted_job_size, 128.90625);
  EXPECT_DOUBLE_EQ(b.partition, 0.01);
  EXPECT_DOUBLE_EQ(b.weighted_partition, 10);
  EXPECT_EQ(b.age, 0);
  EXPECT_EQ(b.fairshare, 0);  // No usage recorded yet.
  EXPECT_EQ(b.priority, 138u);
}

TEST(MultifactorTest, WholeClusterJobHasFullSizeFactor) {
  PriorityJob j = OneCpu();
  j.nodes = 4;
  j.cpus = 128;
  PriorityBreakdown b = ComputePriority(j, ObservedCluster(), ObservedSettings(), kNow);
  EXPECT_DOUBLE_EQ(b.job_size, 1.0);
  EXPECT_EQ(b.priority, 1010u);  // As job 21 in the capture.
}

TEST(MultifactorTest, FavorSmallInvertsJobSize) {
  PrioritySettings s = ObservedSettings();
  s.favor_small = true;
  PriorityBreakdown b = ComputePriority(OneCpu(), ObservedCluster(), s, kNow);
  EXPECT_DOUBLE_EQ(b.job_size, 1 - 0.12890625);
  PriorityJob whole = OneCpu();
  whole.nodes = 4;
  whole.cpus = 128;
  EXPECT_DOUBLE_EQ(ComputePriority(whole, ObservedCluster(), s, kNow).job_size, 0.0);
}

TEST(MultifactorTest, AgeGrowsLinearlyThenCapsAtMaxAge) {
  PrioritySettings s = ObservedSettings();
  PriorityJob j = OneCpu();
  j.age_start = kNow - 84 * 3600;  // Half of 7 days.
  EXPECT_DOUBLE_EQ(ComputePriority(j, ObservedCluster(), s, kNow).age, 0.5);
  EXPECT_DOUBLE_EQ(ComputePriority(j, ObservedCluster(), s, kNow).weighted_age, 500);
  j.age_start = kNow - 30 * 24 * 3600;  // Older than PriorityMaxAge.
  EXPECT_DOUBLE_EQ(ComputePriority(j, ObservedCluster(), s, kNow).age, 1.0);
  j.age_start = 0;  // Not eligible yet: no age.
  EXPECT_DOUBLE_EQ(ComputePriority(j, ObservedCluster(), s, kNow).age, 0.0);
  j.age_start = kNow + 60;  // Begins in the future.
  EXPECT_DOUBLE_EQ(ComputePriority(j, ObservedCluster(), s, kNow).age, 0.0);
}

TEST(MultifactorTest, PartitionFactorIsRelativeToTheLargest) {
  PriorityJob j = OneCpu();
  j.partition_job_factor = 100;
  PriorityBreakdown b = ComputePriority(j, ObservedCluster(), ObservedSettings(), kNow);
  EXPECT_DOUBLE_EQ(b.partition, 1.0);
  EXPECT_EQ(b.priority, 1128u);  // As job 25 (partition short) in the capture.
}

TEST(MultifactorTest, TresFactorIsTheRequestedShareOfTheCluster) {
  PriorityJob j = OneCpu();
  j.gpus = 1;  // 1/32 of the GPUs x 1000 = 31.25
  PriorityBreakdown b = ComputePriority(j, ObservedCluster(), ObservedSettings(), kNow);
  ASSERT_EQ(b.weighted_tres.size(), 1u);
  EXPECT_EQ(b.weighted_tres[0].first, "gres/gpu");
  EXPECT_DOUBLE_EQ(b.weighted_tres[0].second, 31.25);
  EXPECT_EQ(FormatWeightedTres(b.weighted_tres), "gres/gpu=31");
  EXPECT_EQ(b.priority, 170u);  // 128.9 + 10 + 31.25, as job 35.
}

TEST(MultifactorTest, QosHookUsesTheLargestQosPriority) {
  PriorityCluster c = ObservedCluster();
  c.max_qos_priority = 10;
  PriorityJob j = OneCpu();
  j.qos_priority = 10;
  j.gpus = 1;
  PriorityBreakdown b = ComputePriority(j, c, ObservedSettings(), kNow);
  EXPECT_DOUBLE_EQ(b.weighted_qos, 2000);
  EXPECT_EQ(b.priority, 2170u);  // As job 29.
  c.max_qos_priority = 0;        // Only "normal" with Priority 0: no QoS factor.
  EXPECT_DOUBLE_EQ(ComputePriority(j, c, ObservedSettings(), kNow).qos, 0.0);
}

TEST(MultifactorTest, NiceIsSubtractedAndPriorityStaysAtLeastOne) {
  PriorityJob j = OneCpu();
  j.gpus = 1;
  j.nice = 1000;
  PriorityBreakdown b = ComputePriority(j, ObservedCluster(), ObservedSettings(), kNow);
  EXPECT_EQ(b.nice, 1000);
  EXPECT_EQ(b.priority, 1u);  // 170 - 1000, as job 36.
  j.nice = 100;
  EXPECT_EQ(ComputePriority(j, ObservedCluster(), ObservedSettings(), kNow).priority, 70u);
  j.nice = -30;
  EXPECT_EQ(ComputePriority(j, ObservedCluster(), ObservedSettings(), kNow).priority, 200u);
}

// Slurm 22.05: the association factor is the job's association Priority over
// the highest association Priority.
TEST(MultifactorTest, AssociationFactorIsPriorityOverTheHighest) {
  PriorityCluster c = ObservedCluster();
  c.max_assoc_priority = 400;
  PrioritySettings s = ObservedSettings();
  s.weights.assoc = 1000;
  PriorityJob j = OneCpu();
  j.assoc_priority = 100;
  PriorityBreakdown b = ComputePriority(j, c, s, kNow);
  EXPECT_DOUBLE_EQ(b.assoc, 0.25);
  EXPECT_DOUBLE_EQ(b.weighted_assoc, 250);
  EXPECT_EQ(b.priority, 138u + 250u);
  // No association sets a Priority: the factor is 0, never a division by 0.
  c.max_assoc_priority = 0;
  EXPECT_EQ(ComputePriority(j, c, s, kNow).assoc, 0);
  // Without the weight, the factor shows but adds nothing.
  c.max_assoc_priority = 100;
  s.weights.assoc = 0;
  b = ComputePriority(j, c, s, kNow);
  EXPECT_DOUBLE_EQ(b.assoc, 1.0);
  EXPECT_EQ(b.priority, 138u);
}

}  // namespace
}  // namespace rota::sched
