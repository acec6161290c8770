// What the controller does with the job options scripts give beyond the core
// request (docs/options.md): --priority, --kill-on-invalid-dep, the per-node
// minimums (--mincpus, --tmp, --cores-per-socket, --threads-per-core) and
// --wckey.

#include <gtest/gtest.h>

#include "ctld/core/accounting_records.h"
#include "ctld/core/core_test_fixture.h"

namespace rota::ctld {
namespace {

class SubmitOptionsTest : public testing::CoreTest {
 protected:
  // Two kinds of node: small ones with little scratch space, and one big.
  void StartCluster(const std::string& scheduler_parameters = "", const std::string& extra = "") {
    Start(
        "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n" + extra +
        (scheduler_parameters.empty() ? "" : "SchedulerParameters=" + scheduler_parameters + "\n") +
        "NodeName=small[1-2] CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 TmpDisk=1024\n"
        "NodeName=big CPUs=32 Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 TmpDisk=102400\n"
        "PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
  }
  void Finish(uint32_t id, uint32_t status) {
    Effects e;
    ASSERT_TRUE(core_->JobExited(id, status, now_, e).ok());
  }
};

TEST_F(SubmitOptionsTest, PriorityIsForOperatorsOnly) {
  StartCluster();
  Result<wire::SubmitJobResponse> refused =
      SubmitAs(alice_, [](wire::JobSpec& s) { s.set_requested_priority(5000); });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "Access/permission denied");

  const uint32_t top = SubmitOkAs(root_, [](wire::JobSpec& s) { s.set_requested_priority(5000); });
  EXPECT_EQ(Job(top).priority(), 5000u);
  EXPECT_TRUE(Job(top).priority_fixed());
  const uint32_t held = SubmitOkAs(root_, [](wire::JobSpec& s) { s.set_requested_priority(0); });
  EXPECT_EQ(Job(held).priority(), 0u);
  EXPECT_EQ(Job(held).reason(), "JobHeldAdmin");
  Tick();
  EXPECT_EQ(Job(top).state(), wire::JOB_STATE_RUNNING);
  EXPECT_EQ(Job(held).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(top).priority(), 5000u) << "a set priority is not computed again";
}

TEST_F(SubmitOptionsTest, AJobWhoseDependencyCanNeverBeMetIsCancelledWhenItAsks) {
  StartCluster();
  const uint32_t first = SubmitOkAs(alice_, [](wire::JobSpec&) {});
  const std::string after_fail = "afternotok:" + std::to_string(first);
  const uint32_t asks = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
    s.set_dependency(after_fail);
    s.set_kill_on_invalid_dep(1);
  });
  const uint32_t waits =
      SubmitOkAs(alice_, [&](wire::JobSpec& s) { s.set_dependency(after_fail); });
  Tick();
  Finish(first, 0);
  Tick();
  EXPECT_EQ(Job(asks).state(), wire::JOB_STATE_CANCELLED);
  EXPECT_EQ(Job(asks).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(Job(asks).end_time(), now_);
  EXPECT_EQ(Job(waits).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(waits).reason(), "DependencyNeverSatisfied");
}

TEST_F(SubmitOptionsTest, KillInvalidDependIsTheDefaultAJobMayRefuse) {
  StartCluster("kill_invalid_depend");
  const uint32_t first = SubmitOkAs(alice_, [](wire::JobSpec&) {});
  const std::string after_fail = "afternotok:" + std::to_string(first);
  const uint32_t by_default =
      SubmitOkAs(alice_, [&](wire::JobSpec& s) { s.set_dependency(after_fail); });
  const uint32_t refuses = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
    s.set_dependency(after_fail);
    s.set_kill_on_invalid_dep(2);
  });
  Tick();
  Finish(first, 0);
  Tick();
  EXPECT_EQ(Job(by_default).state(), wire::JOB_STATE_CANCELLED);
  EXPECT_EQ(Job(refuses).state(), wire::JOB_STATE_PENDING);
}

TEST_F(SubmitOptionsTest, PerNodeMinimumsLeaveOutTheNodesShortOfThem) {
  StartCluster();
  for (const auto& edit : std::vector<SpecEdit>{
           [](wire::JobSpec& s) { s.set_min_cpus_per_node(8); },
           [](wire::JobSpec& s) { s.set_tmp_disk_mb(2048); },
           [](wire::JobSpec& s) { s.set_cores_per_socket(8); },
           [](wire::JobSpec& s) { s.set_threads_per_core(2); },
       }) {
    const uint32_t id = SubmitOkAs(alice_, edit);
    Tick();
    ASSERT_EQ(Job(id).state(), wire::JOB_STATE_RUNNING);
    EXPECT_EQ(Job(id).nodes(0), "big");
    Finish(id, 0);
  }
  // Within what the small nodes have, the usual order picks one of them.
  const uint32_t small = SubmitOkAs(alice_, [](wire::JobSpec& s) {
    s.set_min_cpus_per_node(4);
    s.set_tmp_disk_mb(1024);
  });
  Tick();
  EXPECT_EQ(Job(small).nodes(0), "small1");
  // No node has that much: refused at once, as Slurm refuses it.
  Result<wire::SubmitJobResponse> never =
      SubmitAs(alice_, [](wire::JobSpec& s) { s.set_tmp_disk_mb(1 << 20); });
  ASSERT_FALSE(never.ok());
  EXPECT_EQ(never.status().message(), "Requested node configuration is not available");
}

TEST_F(SubmitOptionsTest, WckeyIsIgnoredWithoutTrackWCKey) {
  StartCluster();
  const uint32_t id = SubmitOkAs(alice_, [](wire::JobSpec& s) { s.set_wckey("submitit"); });
  EXPECT_EQ(Job(id).spec().wckey(), "");
  EXPECT_EQ(MakeAccountingJob(*config_, Job(id), Job(id).state()).wckey(), "");
}

TEST_F(SubmitOptionsTest, WckeyReachesTheAccountingRecord) {
  StartCluster("", "TrackWCKey=yes\n");
  const uint32_t id = SubmitOkAs(alice_, [](wire::JobSpec& s) { s.set_wckey("submitit"); });
  Tick();
  EXPECT_EQ(Job(id).spec().wckey(), "submitit");
  EXPECT_EQ(MakeAccountingJob(*config_, Job(id), Job(id).state()).wckey(), "submitit");
}

}  // namespace
}  // namespace rota::ctld
