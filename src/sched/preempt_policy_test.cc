// Who may displace whom under each PreemptType: partitions' PriorityTier and
// PreemptMode (preempt/partition_prio), QoS Preempt lists and PreemptMode
// (preempt/qos), and nothing under preempt/none or without QoS records.

#include "sched/preempt_policy.h"

#include <gtest/gtest.h>

#include <string>

namespace rota::sched {
namespace {

using conf::PreemptAction;

conf::PartitionConfig Partition(std::string name, uint32_t tier, std::string mode = "") {
  conf::PartitionConfig p;
  p.name = std::move(name);
  p.priority_tier = tier;
  p.preempt_mode = std::move(mode);
  return p;
}

const std::string kNormal = "normal";

TEST(PreemptPolicyTest, PartitionPrioDisplacesLowerTiersInTheirMode) {
  conf::ClusterConfig config;
  config.settings.preempt_type = "preempt/partition_prio";
  config.settings.preempt_mode = {"REQUEUE"};
  config.partitions = {Partition("high", 3), Partition("mid", 2, "SUSPEND,GANG"),
                       Partition("low", 1)};
  std::unique_ptr<PreemptPolicy> policy = MakePreemptPolicy(config, nullptr);
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->Name(), "preempt/partition_prio");
  const std::string high = "high", mid = "mid", low = "low", gone = "gone";
  EXPECT_TRUE(policy->MayPreemptAny({high, kNormal}));
  EXPECT_TRUE(policy->MayPreemptAny({mid, kNormal}));
  EXPECT_FALSE(policy->MayPreemptAny({low, kNormal}));  // The lowest tier displaces no one
  EXPECT_FALSE(policy->MayPreemptAny({gone, kNormal}));
  // The victim's partition's mode, else the cluster's.
  EXPECT_EQ(policy->ActionFor({high, kNormal}, {mid, kNormal}), PreemptAction::kSuspend);
  EXPECT_EQ(policy->ActionFor({high, kNormal}, {low, kNormal}), PreemptAction::kRequeue);
  EXPECT_EQ(policy->ActionFor({mid, kNormal}, {high, kNormal}), PreemptAction::kOff);
  EXPECT_EQ(policy->ActionFor({mid, kNormal}, {mid, kNormal}), PreemptAction::kOff);  // Same tier
  EXPECT_EQ(policy->ActionFor({high, kNormal}, {gone, kNormal}), PreemptAction::kOff);
}

TEST(PreemptPolicyTest, QosDisplacesTheListedQosInTheVictimsMode) {
  conf::ClusterConfig config;
  config.settings.preempt_type = "preempt/qos";
  config.settings.preempt_mode = {"CANCEL"};
  config.partitions = {Partition("batch", 1)};
  PolicyTable::Entities e;
  e.qos["urgent"].name = "urgent";
  e.qos["urgent"].preempt = {"scavenger", "normal"};
  e.qos["scavenger"].name = "scavenger";
  e.qos["scavenger"].preempt_mode = "REQUEUE";
  e.qos["normal"].name = "normal";
  const PolicyTable table(std::move(e));
  // Without QoS records nothing is displaced.
  EXPECT_EQ(MakePreemptPolicy(config, nullptr), nullptr);
  std::unique_ptr<PreemptPolicy> policy = MakePreemptPolicy(config, &table);
  ASSERT_NE(policy, nullptr);
  const std::string batch = "batch", urgent = "urgent", scavenger = "scavenger";
  EXPECT_TRUE(policy->MayPreemptAny({batch, urgent}));
  EXPECT_FALSE(policy->MayPreemptAny({batch, kNormal}));  // Its QoS lists no one
  EXPECT_EQ(policy->ActionFor({batch, urgent}, {batch, scavenger}), PreemptAction::kRequeue);
  EXPECT_EQ(policy->ActionFor({batch, urgent}, {batch, kNormal}), PreemptAction::kCancel);
  EXPECT_EQ(policy->ActionFor({batch, kNormal}, {batch, scavenger}), PreemptAction::kOff);
  EXPECT_EQ(policy->ActionFor({batch, urgent}, {batch, urgent}), PreemptAction::kOff);
}

TEST(PreemptPolicyTest, NoneDisplacesNoOne) {
  conf::ClusterConfig config;
  config.partitions = {Partition("high", 3), Partition("low", 1)};
  EXPECT_EQ(MakePreemptPolicy(config, nullptr), nullptr);
}

}  // namespace
}  // namespace rota::sched
