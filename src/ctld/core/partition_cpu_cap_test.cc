// MaxCPUsPerNode: what a partition's jobs hold per node, selections kept
// within it, and the controller core leaving the rest of a node to the
// other partitions.
#include "ctld/core/partition_cpu_cap.h"

#include <gtest/gtest.h>

#include <functional>

#include "ctld/core/controller_core.h"
#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

constexpr int64_t kT0 = 1'800'000'000;

class PartitionCpuCapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded =
        LoadConfigFiles(dir_, {"ClusterName=c\nSlurmctldHost=h\n"
                               "NodeName=n[1-2] CPUs=8 RealMemory=64000\n"
                               "PartitionName=cpu Nodes=n[1-2] Default=YES MaxCPUsPerNode=4\n"
                               "PartitionName=all Nodes=n[1-2]\n"});
    ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
    EXPECT_EQ(loaded.Text(), "");  // MaxCPUsPerNode takes effect: no warning
    config_ = *loaded.config;
    core_ = std::make_unique<ControllerCore>(config_);
    Effects e;
    ASSERT_TRUE(core_->NodeRegistered("n1", kT0, kT0, e).ok());
    ASSERT_TRUE(core_->NodeRegistered("n2", kT0, kT0, e).ok());
  }
  Result<wire::SubmitJobResponse> Submit(const std::string& partition, uint32_t cpus) {
    wire::SubmitJobRequest req;
    req.mutable_spec()->set_name("job");
    req.mutable_spec()->set_partition(partition);
    req.mutable_spec()->set_cpus_per_task(cpus);
    Effects e;
    return core_->Submit(req, alice_, kT0, e);
  }
  uint32_t SubmitOk(const std::string& partition, uint32_t cpus) {
    auto r = Submit(partition, cpus);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->job_id() : 0;
  }
  void Tick() {
    Effects e;
    core_->Tick(kT0, e);
  }
  const wire::JobRecord& Job(uint32_t id) { return *core_->FindJob(id); }

  TempDir dir_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  std::unique_ptr<ControllerCore> core_;
  Caller alice_{1000, 1000, "alice", "alice", false};
};

TEST_F(PartitionCpuCapTest, CountsHeldCpusAndChecksSelections) {
  const sched::ClusterModel& model = core_->nodes().model();
  PartitionCpuCap cap(config_->partitions[0], model);
  ASSERT_TRUE(cap.capped());
  EXPECT_FALSE(PartitionCpuCap(config_->partitions[1], model).capped());
  sched::Allocation three;
  three.nodes.push_back({.node = 0, .slots = {0, 1, 2}});
  EXPECT_TRUE(cap.Exceeding(three).empty());
  cap.Add(three);
  sched::Allocation two;
  two.nodes.push_back({.node = 0, .slots = {3, 4}});
  two.nodes.push_back({.node = 1, .slots = {0, 1}});
  EXPECT_EQ(cap.Exceeding(two), std::vector<uint32_t>{0});
  std::vector<uint32_t> usable = {0, 1};
  cap.DropFullNodes(usable);
  EXPECT_EQ(usable, (std::vector<uint32_t>{0, 1}));  // n1 has 1 CPU left under the cap
  sched::Allocation one;
  one.nodes.push_back({.node = 0, .slots = {3}});
  cap.Add(one);
  cap.DropFullNodes(usable);
  EXPECT_EQ(usable, std::vector<uint32_t>{1});
}

TEST_F(PartitionCpuCapTest, PartitionJobsShareANodeOnlyUpToTheCap) {
  uint32_t a = SubmitOk("cpu", 4);
  uint32_t b = SubmitOk("cpu", 4);
  uint32_t c = SubmitOk("cpu", 2);
  Tick();
  ASSERT_EQ(Job(a).state(), wire::JOB_STATE_RUNNING);
  ASSERT_EQ(Job(b).state(), wire::JOB_STATE_RUNNING);
  // Each on its own node, though one node could hold both.
  EXPECT_NE(Job(a).nodes(0), Job(b).nodes(0));
  EXPECT_EQ(Job(c).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(c).reason(), "Resources");
  // Another partition takes what the capped one may not.
  uint32_t d = SubmitOk("all", 4);
  Tick();
  EXPECT_EQ(Job(d).state(), wire::JOB_STATE_RUNNING);
}

TEST_F(PartitionCpuCapTest, MoreCpusPerNodeThanTheCapIsRefused) {
  auto r = Submit("cpu", 6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Requested node configuration is not available");
  EXPECT_TRUE(Submit("all", 6).ok());
}

}  // namespace
}  // namespace rota::ctld
