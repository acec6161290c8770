#include "ctld/core/controller_core.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>
#include <set>

#include "ctld/core/core_test_fixture.h"
#include "ctld/core/node_liveness.h"
#include "model/job_payload.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

// Exit statuses in waitpid's encoding.
constexpr uint32_t kExitOk = 0;
constexpr uint32_t kExitOne = 1 << 8;

// The tests replay what the core asked to persist (log_): the helpers here
// keep their Effects, so Submit is this file's (not the fixture's SubmitAs,
// which drops them) and Tick wraps the fixture's.
class ControllerCoreTest : public testing::CoreTest {
 protected:
  // The nodes are not registered: a test registers them (RegisterAll) when
  // it wants them up.
  void SetUp() override {
    Start(
        "GresTypes=gpu\n"
        "SelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\nMinJobAge=300\n"
        "MaxArraySize=1001\n"
        "NodeName=n[1-2] CPUs=4 RealMemory=16000 Gres=gpu:a100:2\n"
        "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 "
        "DefaultTime=1:00:00\n"
        "PartitionName=short Nodes=n1 MaxTime=30:00 QOS=fast\n",
        /*register_nodes=*/false);
  }

  // Every record the core asked to persist, in order: the log.
  void Collect(const Effects& e) { log_.insert(log_.end(), e.records.begin(), e.records.end()); }

  // The whole request is `spec` (SubmitOk()'s has no name); its records go to log_.
  Result<uint32_t> Submit(wire::JobSpec spec, const Caller& who) {
    Effects e;
    wire::SubmitJobRequest req;
    *req.mutable_spec() = std::move(spec);
    auto r = core_->Submit(req, who, now_, e);
    Collect(e);
    if (!r.ok()) return r.status();
    return r->job_id();
  }
  uint32_t SubmitOk(wire::JobSpec spec = {}, const Caller* who = nullptr) {
    Result<uint32_t> id = Submit(std::move(spec), who ? *who : alice_);
    EXPECT_TRUE(id.ok()) << id.status().message();
    return id.value_or(0);
  }
  Effects Tick() {
    Effects e = CoreTest::Tick();
    Collect(e);
    return e;
  }
  void RegisterAll() {
    Effects e;
    ASSERT_TRUE(core_->NodeRegistered("n1", kT0, now_, e).ok());
    ASSERT_TRUE(core_->NodeRegistered("n2", kT0, now_, e).ok());
  }
  void Exit(uint32_t id, uint32_t status) {
    Effects e;
    ASSERT_TRUE(core_->JobExited(id, status, now_, e).ok());
    Collect(e);
  }
  // A node daemon's report: `cleanup_follows` for the early one (the script
  // ended), without it the final one (the node is clean, the Epilog ran).
  void Report(uint32_t id, uint32_t status, const std::string& node, bool cleanup_follows,
              bool out_of_memory = false) {
    wire::JobExitedRequest req;
    req.set_job_id(id);
    req.set_wait_status(status);
    req.set_node(node);
    req.set_cleanup_follows(cleanup_follows);
    req.set_out_of_memory(out_of_memory);
    Effects e;
    ASSERT_TRUE(core_->ReportExit(req, now_, e).ok());
    Collect(e);
  }
  std::string StateOf(uint32_t id) { return std::string(model::JobStateName(Job(id).state())); }
  wire::SignalJobsResponse Cancel(const std::string& id, const Caller& who, int sig = 0) {
    wire::SignalJobsRequest req;
    req.add_job_ids(id);
    req.set_signal(sig);
    Effects e;
    auto r = core_->SignalJobs(req, who, now_, e);
    Collect(e);
    last_effects_ = e;
    return r;
  }
  std::vector<std::string> Update(const std::string& id, const Caller& who, std::string action,
                                  std::map<std::string, std::string> fields = {}) {
    wire::UpdateJobRequest req;
    req.add_job_ids(id);
    req.set_action(action);
    for (auto& [k, v] : fields) (*req.mutable_fields())[k] = v;
    Effects e;
    auto r = core_->UpdateJobs(req, who, now_, e);
    Collect(e);
    last_effects_ = e;
    return {r.errors().begin(), r.errors().end()};
  }

  std::vector<wire::StateRecord> log_;
  Effects last_effects_;
};

wire::JobSpec Spec(std::function<void(wire::JobSpec&)> edit) {
  wire::JobSpec s;
  s.set_name("job");
  edit(s);
  return s;
}

TEST_F(ControllerCoreTest, SubmitQueuesWithIncreasingIdsAndPersists) {
  uint32_t a = SubmitOk();
  uint32_t b = SubmitOk();
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(b, 2u);
  EXPECT_EQ(StateOf(a), "PENDING");
  EXPECT_EQ(Job(a).spec().user(), "alice");
  EXPECT_EQ(Job(a).spec().partition(), "batch");
  EXPECT_EQ(Job(a).time_limit_s(), 3600);
  EXPECT_GT(Job(a).priority(), Job(b).priority());
  ASSERT_EQ(log_.size(), 4u);  // Payload and record for each
  EXPECT_EQ(log_[3].job_upsert().job_id(), b);
}

TEST_F(ControllerCoreTest, SubmitRefusalsUseSlurmWords) {
  EXPECT_EQ(Submit(Spec([](auto& s) { s.set_partition("nope"); }), alice_).status().message(),
            "Invalid partition name specified");
  EXPECT_EQ(Submit(Spec([](auto& s) { s.set_qos("gold"); }), alice_).status().message(),
            "Invalid qos specification");
  EXPECT_TRUE(Submit(Spec([](auto& s) { s.set_qos("fast"); }), alice_).ok());
  EXPECT_EQ(Submit(Spec([](auto& s) { s.set_gres("gpu:3"); }), alice_).status().message(),
            "Requested node configuration is not available");
  EXPECT_EQ(Submit(Spec([](auto& s) { s.set_array("0-5000"); }), alice_).status().message(),
            "Invalid job array specification");
  EXPECT_EQ(
      Submit(Spec([](auto& s) { s.set_dependency("afterok:999"); }), alice_).status().message(),
      "Job dependency problem");
  EXPECT_EQ(core_->job_count(), 1u);  // Refused jobs leave nothing behind.
}

TEST_F(ControllerCoreTest, JobsWaitForNodesThenRunAndComplete) {
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_gres("gpu:2"); }));
  Tick();
  EXPECT_EQ(Job(id).reason(), "ReqNodeNotAvail, UnavailableNodes:n[1-2]");
  RegisterAll();
  Effects e = Tick();
  EXPECT_EQ(StateOf(id), "RUNNING");
  ASSERT_EQ(e.launches.size(), 1u);
  EXPECT_EQ(e.launches[0].job->job_id(), id);
  EXPECT_EQ(Job(id).nodes(0), "n1");
  EXPECT_EQ(Job(id).alloc_tres(), "cpu=1,mem=1000M,node=1,billing=1,gres/gpu=2,gres/gpu:a100=2");
  EXPECT_EQ(core_->nodes().Find("n1")->StateName(), "MIXED");
  EXPECT_EQ(Job(id).end_time(), now_ + 3600);

  now_ += 10;
  Exit(id, kExitOk);
  EXPECT_EQ(StateOf(id), "COMPLETED");
  EXPECT_EQ(core_->nodes().Find("n1")->StateName(), "IDLE");
  EXPECT_EQ(Job(id).end_time(), now_);
}

TEST_F(ControllerCoreTest, ResourcesThenPriorityAndFreedResourcesStartTheNext) {
  RegisterAll();
  uint32_t big1 = SubmitOk(Spec([](auto& s) { s.set_exclusive(true); }));
  uint32_t big2 = SubmitOk(Spec([](auto& s) { s.set_exclusive(true); }));
  uint32_t big3 = SubmitOk(Spec([](auto& s) { s.set_exclusive(true); }));
  uint32_t small = SubmitOk();
  Tick();
  EXPECT_EQ(StateOf(big1), "RUNNING");
  EXPECT_EQ(StateOf(big2), "RUNNING");
  EXPECT_EQ(Job(big3).reason(), "Resources");
  EXPECT_EQ(Job(small).reason(), "Priority");
  Exit(big1, kExitOne);
  EXPECT_EQ(StateOf(big1), "FAILED");
  EXPECT_EQ(Job(big1).exit_code(), kExitOne);
  Tick();
  EXPECT_EQ(StateOf(big3), "RUNNING");
  EXPECT_EQ(Job(small).reason(), "Resources");
}

TEST_F(ControllerCoreTest, StartedJobsRecordTheirExactAllocation) {
  RegisterAll();
  uint32_t a = SubmitOk(Spec([](auto& s) {
    s.set_gres("gpu:1");
    s.set_cpus_per_task(2);
  }));
  uint32_t b = SubmitOk(Spec([](auto& s) { s.set_gres("gpu:1"); }));
  Tick();
  // Best fit: the second job joins the first on n1, on the GPU and core left.
  ASSERT_EQ(Job(a).allocs_size(), 1);
  EXPECT_EQ(Job(a).nodes(0), "n1");
  EXPECT_EQ(Job(a).allocs(0).cpu_ids(), "0-1");
  EXPECT_EQ(Job(a).allocs(0).gpu_ids(), "0");
  EXPECT_EQ(Job(a).allocs(0).mem_mb(), 2000u);
  EXPECT_EQ(Job(b).nodes(0), "n1");
  EXPECT_EQ(Job(b).allocs(0).cpu_ids(), "2");
  EXPECT_EQ(Job(b).allocs(0).gpu_ids(), "1");
  EXPECT_EQ(Job(b).alloc_tres(), "cpu=1,mem=1000M,node=1,billing=1,gres/gpu=1,gres/gpu:a100=1");
  // Restarting from the log gives the same allocations back (n1 has 1 core left).
  ControllerCore restored(config_);
  restored.Restore(nullptr, log_);
  EXPECT_EQ(restored.nodes().Find("n1")->alloc_cpus, 3u);
  EXPECT_EQ(restored.nodes().usage()[0].free_gpus, 0u);
}

TEST_F(ControllerCoreTest, TestOnlyAnswersWhenTheJobWouldStart) {
  RegisterAll();
  uint32_t a = SubmitOk(Spec([](auto& s) {
    s.set_gres("gpu:2");
    s.set_time_limit_s(600);
  }));
  uint32_t b = SubmitOk(Spec([](auto& s) {
    s.set_gres("gpu:2");
    s.set_time_limit_s(1200);
  }));
  Tick();
  ASSERT_EQ(StateOf(a), "RUNNING");
  ASSERT_EQ(StateOf(b), "RUNNING");
  wire::SubmitJobRequest req;
  req.mutable_spec()->set_gres("gpu:2");
  req.set_test_only(true);
  Effects e;
  Result<wire::SubmitJobResponse> r = core_->Submit(req, alice_, now_, e);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->test_only_start(), now_ + 600);  // When the first job's limit frees its node
  ASSERT_EQ(r->test_only_nodes_size(), 1);
  EXPECT_EQ(r->test_only_nodes(0), Job(a).nodes(0));
  req.mutable_spec()->clear_gres();
  req.mutable_spec()->set_gpus("3");  // Needs both nodes
  r = core_->Submit(req, alice_, now_, e);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->test_only_start(), now_ + 1200);
  EXPECT_TRUE(e.records.empty());  // Nothing queued
}

TEST_F(ControllerCoreTest, TimeLimitSignalsThenTimeout) {
  RegisterAll();
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_time_limit_s(60); }));
  Tick();
  now_ += 59;
  EXPECT_TRUE(Tick().signals.empty());
  now_ += 1;
  Effects e = Tick();
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].signal, SIGTERM);
  // Slurm's "CG": ending, TIMEOUT to come once the node is done with it.
  EXPECT_EQ(StateOf(id), "COMPLETING");
  EXPECT_EQ(Job(id).final_state(), wire::JOB_STATE_TIMEOUT);
  Exit(id, SIGTERM);
  EXPECT_EQ(StateOf(id), "TIMEOUT");
}

TEST_F(ControllerCoreTest, PartitionLimitsAndBeginTimeAreReasons) {
  RegisterAll();
  uint32_t too_long = SubmitOk(Spec([](auto& s) { s.set_time_limit_s(2 * 86400); }));
  uint32_t later = SubmitOk(Spec([&](auto& s) { s.set_begin_time(kT0 + 100); }));
  uint32_t too_big = SubmitOk(Spec([](auto& s) { s.set_min_nodes(3); }));
  Tick();
  EXPECT_EQ(Job(too_long).reason(), "PartitionTimeLimit");
  EXPECT_EQ(Job(later).reason(), "BeginTime");
  EXPECT_EQ(Job(too_big).reason(), "PartitionConfig");
  EXPECT_EQ(core_->NextWakeTime(), kT0 + 100);
  now_ += 100;
  Tick();
  EXPECT_EQ(StateOf(later), "RUNNING");
}

TEST_F(ControllerCoreTest, HoldReleaseAndAuthorisation) {
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_hold(true); }));
  Tick();
  EXPECT_EQ(Job(id).reason(), "JobHeldUser");
  EXPECT_EQ(Job(id).priority(), 0u);
  EXPECT_EQ(Update(std::to_string(id), bob_, "release"),
            std::vector<std::string>{std::to_string(id) + ": Access/permission denied"});
  EXPECT_TRUE(Update(std::to_string(id), alice_, "release").empty());
  EXPECT_GT(Job(id).priority(), 0u);
  EXPECT_TRUE(Update(std::to_string(id), root_, "hold").empty());
  EXPECT_EQ(Job(id).reason(), "JobHeldAdmin");
  EXPECT_EQ(Update(std::to_string(id), alice_, "release"),
            std::vector<std::string>{std::to_string(id) + ": Access/permission denied"});
  EXPECT_TRUE(Update(std::to_string(id), root_, "release").empty());

  auto r = Cancel(std::to_string(id), bob_);
  ASSERT_EQ(r.errors_size(), 1);
  EXPECT_EQ(r.errors(0), std::to_string(id) + ": Access/permission denied");
  EXPECT_EQ(StateOf(id), "PENDING");
  EXPECT_EQ(Cancel(std::to_string(id), alice_).errors_size(), 0);
  EXPECT_EQ(StateOf(id), "CANCELLED");
  EXPECT_EQ(Cancel(std::to_string(id), alice_).errors(0),
            std::to_string(id) + ": Job/step already completing or completed");
  EXPECT_EQ(Cancel("4242", alice_).errors(0), "4242: Invalid job id specified");
}

TEST_F(ControllerCoreTest, UsersMayLowerButNotRaiseLimits) {
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_time_limit_s(3600); }));
  std::string sid = std::to_string(id);
  EXPECT_EQ(Update(sid, alice_, "", {{"TimeLimit", "2:00:00"}}),
            std::vector<std::string>{sid + ": Access/permission denied"});
  EXPECT_TRUE(Update(sid, alice_, "", {{"TimeLimit", "30"}}).empty());
  EXPECT_EQ(Job(id).time_limit_s(), 1800);
  EXPECT_TRUE(Update(sid, root_, "", {{"TimeLimit", "2:00:00"}}).empty());
  EXPECT_EQ(Job(id).time_limit_s(), 7200);
  EXPECT_EQ(Update(sid, alice_, "", {{"Nice", "-5"}}),
            std::vector<std::string>{sid + ": Access/permission denied"});
  uint32_t before = Job(id).priority();
  EXPECT_TRUE(Update(sid, alice_, "", {{"Nice", "100"}}).empty());
  EXPECT_EQ(Job(id).priority(), before - 100);
  EXPECT_EQ(Update(sid, alice_, "", {{"Priority", "99999999"}}),
            std::vector<std::string>{sid + ": Access/permission denied"});
  EXPECT_TRUE(Update(sid, alice_, "", {{"Partition", "short"}, {"TimeLimit", "10"}}).empty());
  EXPECT_EQ(Job(id).spec().partition(), "short");
}

TEST_F(ControllerCoreTest, ArraysStartUnderTheirLimitAndSplitTasks) {
  RegisterAll();
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_array("1-5%2"); }));
  EXPECT_TRUE(Job(id).array_meta());
  EXPECT_EQ(Job(id).array_pending(), "1-5");
  Tick();
  EXPECT_EQ(Job(id).array_pending(), "3-5");
  EXPECT_EQ(Job(id).reason(), "JobArrayTaskLimit");
  const wire::JobRecord& t1 = Job(id + 1);
  EXPECT_EQ(t1.array_job_id(), id);
  EXPECT_EQ(t1.array_task_id(), 1u);
  EXPECT_EQ(StateOf(id + 1), "RUNNING");
  EXPECT_EQ(StateOf(id + 2), "RUNNING");

  // Cancelling one pending task takes it out of the meta record.
  EXPECT_EQ(Cancel(std::to_string(id) + "_4", alice_).errors_size(), 0);
  EXPECT_EQ(Job(id).array_pending(), "3,5");
  Exit(id + 1, kExitOk);
  Tick();
  EXPECT_EQ(Job(id + 3).array_task_id(), 3u);
  Exit(id + 2, kExitOk);
  Tick();
  // The last task is the meta record itself.
  EXPECT_FALSE(Job(id).array_meta());
  EXPECT_EQ(Job(id).array_task_id(), 5u);
  EXPECT_EQ(StateOf(id), "RUNNING");

  // The whole array by its id.
  auto r = Cancel(std::to_string(id), alice_);
  EXPECT_EQ(r.errors_size(), 0);
  EXPECT_EQ(StateOf(id), "COMPLETING");
  EXPECT_EQ(StateOf(id + 3), "COMPLETING");
  Exit(id, SIGTERM);
  Exit(id + 3, SIGTERM);
  EXPECT_EQ(StateOf(id), "CANCELLED");
  EXPECT_EQ(StateOf(id + 3), "CANCELLED");
}

TEST_F(ControllerCoreTest, Dependencies) {
  RegisterAll();
  uint32_t first = SubmitOk();
  uint32_t ok =
      SubmitOk(Spec([&](auto& s) { s.set_dependency("afterok:" + std::to_string(first)); }));
  uint32_t notok =
      SubmitOk(Spec([&](auto& s) { s.set_dependency("afternotok:" + std::to_string(first)); }));
  uint32_t any = SubmitOk(Spec([&](auto& s) {
    s.set_dependency("afternotok:" + std::to_string(first) + "?afterany:" + std::to_string(first));
  }));
  Tick();
  EXPECT_EQ(StateOf(first), "RUNNING");
  EXPECT_EQ(Job(ok).reason(), "Dependency");
  Exit(first, kExitOk);
  Tick();
  EXPECT_EQ(StateOf(ok), "RUNNING");
  EXPECT_EQ(Job(ok).dependency_state(), "");
  EXPECT_EQ(Job(notok).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(StateOf(any), "RUNNING");
}

TEST_F(ControllerCoreTest, SingletonWaitsForTheEarlierJobOfTheSameName) {
  RegisterAll();
  uint32_t a = SubmitOk(Spec([](auto&) {}));
  uint32_t b = SubmitOk(Spec([](auto& s) { s.set_dependency("singleton"); }));
  uint32_t other_user = SubmitOk(Spec([](auto& s) { s.set_dependency("singleton"); }), &bob_);
  Tick();
  EXPECT_EQ(Job(b).reason(), "Dependency");
  EXPECT_EQ(StateOf(other_user), "RUNNING");
  Exit(a, kExitOne);
  Tick();
  EXPECT_EQ(StateOf(b), "RUNNING");
}

TEST_F(ControllerCoreTest, NodeDrainNeedsReasonAndStopsScheduling) {
  RegisterAll();
  wire::UpdateNodeRequest drain;
  drain.set_nodes("n[1-2]");
  drain.set_state("DRAIN");
  Effects e;
  EXPECT_EQ(core_->UpdateNodes(drain, root_, now_, e).message(),
            "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  drain.set_reason("maintenance");
  EXPECT_EQ(core_->UpdateNodes(drain, alice_, now_, e).code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(core_->UpdateNodes(drain, root_, now_, e).ok());
  Collect(e);
  uint32_t id = SubmitOk();
  Tick();
  EXPECT_EQ(Job(id).reason(), "ReqNodeNotAvail, UnavailableNodes:n[1-2]");
  EXPECT_EQ(core_->nodes().Find("n2")->StateName(), "IDLE+DRAIN");
  wire::UpdateNodeRequest resume;
  resume.set_nodes("n2");
  resume.set_state("RESUME");
  Effects e2;
  EXPECT_TRUE(core_->UpdateNodes(resume, root_, now_, e2).ok());
  Collect(e2);
  Tick();
  EXPECT_EQ(Job(id).nodes(0), "n2");
}

TEST_F(ControllerCoreTest, NodeLossRequeuesOrFails) {
  RegisterAll();
  uint32_t keep = SubmitOk(Spec([](auto& s) { s.set_nodelist("n1"); }));
  uint32_t lose = SubmitOk(Spec([](auto& s) {
    s.set_nodelist("n1");
    s.set_requeue(2);
  }));
  Tick();
  Effects e;
  core_->NodeLost("n1", now_, e);
  Collect(e);
  EXPECT_EQ(StateOf(keep), "PENDING");
  EXPECT_EQ(Job(keep).restart_count(), 1u);
  EXPECT_EQ(StateOf(lose), "NODE_FAIL");
}

// -k/--no-kill: a lost node that is not the batch script's leaves the job
// running on the others; losing the batch script's node ends it as usual.
TEST_F(ControllerCoreTest, NoKillJobsLoseANodeAndGoOn) {
  RegisterAll();
  uint32_t goes_on = SubmitOk(Spec([](auto& s) {
    s.set_nodelist("n1,n2");
    s.set_min_nodes(2);
    s.set_no_kill(true);
  }));
  Tick();
  ASSERT_EQ(StateOf(goes_on), "RUNNING");
  ASSERT_EQ(Job(goes_on).nodes_size(), 2);
  const uint32_t cpus = Job(goes_on).alloc_cpus();
  Effects e;
  core_->NodeLost("n2", now_, e);
  Collect(e);
  EXPECT_EQ(StateOf(goes_on), "RUNNING");
  ASSERT_EQ(Job(goes_on).nodes_size(), 1);
  EXPECT_EQ(Job(goes_on).nodes(0), "n1");
  EXPECT_EQ(Job(goes_on).alloc_cpus(), cpus / 2);
  EXPECT_NE(Job(goes_on).alloc_tres().find("node=1"), std::string::npos)
      << Job(goes_on).alloc_tres();
  Effects lost_batch_node;
  core_->NodeLost("n1", now_, lost_batch_node);
  Collect(lost_batch_node);
  EXPECT_NE(StateOf(goes_on), "RUNNING") << "the batch script's node takes the job with it";
}

TEST_F(ControllerCoreTest, RequeuedRunningJobWaitsForItsOldRunToEnd) {
  RegisterAll();
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_nodelist("n1"); }));
  uint32_t held = SubmitOk(Spec([](auto& s) { s.set_nodelist("n1"); }));
  Tick();
  ASSERT_EQ(StateOf(id), "RUNNING");
  EXPECT_TRUE(Update(std::to_string(id), alice_, "requeue").empty());
  ASSERT_EQ(last_effects_.signals.size(), 1u);
  EXPECT_EQ(last_effects_.signals[0].signal, SIGTERM);
  EXPECT_TRUE(last_effects_.signals[0].terminate);
  EXPECT_TRUE(Update(std::to_string(held), root_, "requeuehold").empty());
  // Both stay on n1, COMPLETING, until n1 says their processes are gone.
  EXPECT_EQ(StateOf(id), "COMPLETING");
  EXPECT_EQ(Job(id).final_state(), wire::JOB_STATE_REQUEUED);
  EXPECT_TRUE(Tick().launches.empty());
  EXPECT_EQ(
      Update(std::to_string(id), alice_, "requeue"),
      std::vector<std::string>{std::to_string(id) + ": Job/step already completing or completed"});

  Report(id, SIGTERM, "n1", /*cleanup_follows=*/true);  // The script died...
  EXPECT_EQ(StateOf(id), "COMPLETING");
  Report(id, SIGTERM, "n1", /*cleanup_follows=*/false);  // ...and the node is clean.
  EXPECT_EQ(StateOf(id), "PENDING");
  EXPECT_EQ(Job(id).restart_count(), 1u);
  EXPECT_EQ(Job(id).reason(), "None");
  Report(held, SIGTERM, "n1", /*cleanup_follows=*/false);
  EXPECT_EQ(StateOf(held), "PENDING");
  EXPECT_EQ(Job(held).reason(), "JobHeldAdmin");

  Effects e = Tick();
  ASSERT_EQ(e.launches.size(), 1u);
  EXPECT_EQ(e.launches[0].job->job_id(), id);
  EXPECT_EQ(e.launches[0].job->restart_count(), 1u);
  // A late report of the old run (run 0) does not end the new one.
  wire::JobExitedRequest late;
  late.set_job_id(id);
  late.set_node("n1");
  late.set_wait_status(kExitOne);
  late.set_run(0);
  late.set_run_known(true);
  Effects ignored;
  ASSERT_TRUE(core_->ReportExit(late, now_, ignored).ok());
  EXPECT_EQ(StateOf(id), "RUNNING");
  EXPECT_TRUE(ignored.records.empty());
  late.set_run(1);
  Effects ended;
  ASSERT_TRUE(core_->ReportExit(late, now_, ended).ok());
  Collect(ended);
  EXPECT_EQ(StateOf(id), "FAILED");
  // Replaying the log gives the same queue.
  ControllerCore replayed(config_);
  replayed.Restore(nullptr, log_);
  EXPECT_EQ(replayed.FindJob(held)->reason(), "JobHeldAdmin");
  EXPECT_EQ(replayed.FindJob(id)->state(), wire::JOB_STATE_FAILED);
}

TEST_F(ControllerCoreTest, ExitReportsFromWhereAJobNoLongerRunsAreIgnored) {
  RegisterAll();
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_nodelist("n1"); }));
  Tick();
  ASSERT_EQ(StateOf(id), "RUNNING");
  Effects e;
  ASSERT_TRUE(core_->JobExited(id, kExitOne, now_, e, "n2").ok());
  EXPECT_EQ(StateOf(id), "RUNNING");  // n2 never ran it: a stale report.
  ASSERT_TRUE(core_->JobExited(id, kExitOne, now_, e, "n1").ok());
  EXPECT_EQ(StateOf(id), "FAILED");
}

TEST_F(ControllerCoreTest, MemoryLimitKillEndsOutOfMemory) {
  RegisterAll();
  uint32_t id = SubmitOk();
  Tick();
  Effects e;
  ASSERT_TRUE(core_->JobExited(id, SIGKILL, now_, e, "n1", /*out_of_memory=*/true).ok());
  EXPECT_EQ(StateOf(id), "OUT_OF_MEMORY");
}

// scancel of a running job: Slurm's COMPLETING ("CG") until the node reports
// the job gone; its GPUs go to the next job only then.
TEST_F(ControllerCoreTest, CancelledJobHoldsItsResourcesUntilItsNodeIsClean) {
  RegisterAll();
  auto both_gpus_of_n1 = Spec([](auto& s) {
    s.set_nodelist("n1");
    s.set_gres("gpu:2");
  });
  uint32_t first = SubmitOk(both_gpus_of_n1);
  uint32_t second = SubmitOk(both_gpus_of_n1);
  Tick();
  ASSERT_EQ(StateOf(first), "RUNNING");
  ASSERT_EQ(StateOf(second), "PENDING");
  const int64_t cancelled_at = now_;

  EXPECT_EQ(Cancel(std::to_string(first), alice_).errors_size(), 0);
  // SIGTERM, then the node daemon's SIGKILL after KillWait.
  ASSERT_EQ(last_effects_.signals.size(), 1u);
  EXPECT_EQ(last_effects_.signals[0].signal, SIGTERM);
  EXPECT_TRUE(last_effects_.signals[0].terminate);
  EXPECT_EQ(StateOf(first), "COMPLETING");
  EXPECT_EQ(Job(first).final_state(), wire::JOB_STATE_CANCELLED);
  EXPECT_EQ(Job(first).end_time(), cancelled_at);
  EXPECT_EQ(core_->nodes().Find("n1")->StateName(), "IDLE+COMPLETING");
  EXPECT_EQ(core_->nodes().Find("n1")->AllocGpus(), 2u);
  // Ending already: another scancel is refused in Slurm's words.
  EXPECT_EQ(Cancel(std::to_string(first), alice_).errors(0),
            std::to_string(first) + ": Job/step already completing or completed");
  now_ += 1;
  Tick();
  EXPECT_EQ(StateOf(second), "PENDING");

  // The script died of the SIGTERM; the node still empties the cage.
  Report(first, SIGTERM, "n1", /*cleanup_follows=*/true);
  EXPECT_EQ(StateOf(first), "COMPLETING");
  Tick();
  EXPECT_EQ(StateOf(second), "PENDING");
  Report(first, SIGTERM, "n2", /*cleanup_follows=*/false);  // n2 never ran it
  EXPECT_EQ(StateOf(first), "COMPLETING");

  now_ += 2;
  Report(first, SIGTERM, "n1", /*cleanup_follows=*/false);
  EXPECT_EQ(StateOf(first), "CANCELLED");
  EXPECT_EQ(Job(first).end_time(), cancelled_at);  // When it ended, not when it was clean
  EXPECT_EQ(Job(first).completing_nodes_size(), 0);
  EXPECT_EQ(core_->nodes().Find("n1")->StateName(), "IDLE");
  EXPECT_EQ(core_->nodes().Find("n1")->AllocGpus(), 0u);
  Tick();
  EXPECT_EQ(StateOf(second), "RUNNING");
}

TEST_F(ControllerCoreTest, JobsEndingByThemselvesPassThroughCompleting) {
  RegisterAll();
  uint32_t ok = SubmitOk(Spec([](auto& s) { s.set_nodelist("n1"); }));
  uint32_t oom = SubmitOk(Spec([](auto& s) { s.set_nodelist("n2"); }));
  Tick();
  Report(ok, kExitOk, "n1", /*cleanup_follows=*/true);
  Report(oom, SIGKILL, "n2", /*cleanup_follows=*/true);
  EXPECT_EQ(StateOf(ok), "COMPLETING");
  EXPECT_EQ(Job(ok).final_state(), wire::JOB_STATE_COMPLETED);
  EXPECT_EQ(StateOf(oom), "COMPLETING");
  EXPECT_EQ(Job(oom).final_state(), wire::JOB_STATE_FAILED);
  EXPECT_EQ(core_->nodes().Find("n1")->StateName(), "IDLE+COMPLETING");
  Report(ok, kExitOk, "n1", /*cleanup_follows=*/false);
  EXPECT_EQ(StateOf(ok), "COMPLETED");
  // The cage's count of memory-limit kills, read as it was removed.
  Report(oom, SIGKILL, "n2", /*cleanup_follows=*/false, /*out_of_memory=*/true);
  EXPECT_EQ(StateOf(oom), "OUT_OF_MEMORY");
  EXPECT_EQ(core_->nodes().Find("n2")->StateName(), "IDLE");
}

TEST_F(ControllerCoreTest, NodeGoingDownCompletesItsCompletingJobs) {
  RegisterAll();
  uint32_t id = SubmitOk(Spec([](auto& s) {
    s.set_nodelist("n1");
    s.set_requeue(1);
  }));
  Tick();
  Cancel(std::to_string(id), alice_);
  ASSERT_EQ(StateOf(id), "COMPLETING");
  Effects e;
  core_->NodeLost("n1", now_, e);
  Collect(e);
  // No report will come: the job ends as it was going to, not requeued or NODE_FAIL.
  EXPECT_EQ(StateOf(id), "CANCELLED");
  EXPECT_EQ(core_->nodes().Find("n1")->AllocGpus(), 0u);
  EXPECT_EQ(core_->nodes().Find("n1")->alloc_cpus, 0u);
}

TEST_F(ControllerCoreTest, RestartKeepsCompletingJobsCompleting) {
  RegisterAll();
  auto both_gpus_of_n1 = Spec([](auto& s) {
    s.set_nodelist("n1");
    s.set_gres("gpu:2");
  });
  uint32_t first = SubmitOk(both_gpus_of_n1);
  uint32_t second = SubmitOk(both_gpus_of_n1);
  Tick();
  Cancel(std::to_string(first), alice_);
  ASSERT_EQ(StateOf(first), "COMPLETING");

  ControllerCore restarted(config_);
  restarted.Restore(nullptr, log_);
  ASSERT_NE(restarted.FindJob(first), nullptr);
  EXPECT_EQ(restarted.FindJob(first)->SerializeAsString(), Job(first).SerializeAsString());
  EXPECT_EQ(restarted.FindJob(first)->state(), wire::JOB_STATE_COMPLETING);
  EXPECT_EQ(restarted.nodes().Find("n1")->AllocGpus(), 2u);
  Effects e;
  ASSERT_TRUE(restarted.NodeRegistered("n1", kT0, now_, e).ok());
  ASSERT_TRUE(restarted.NodeRegistered("n2", kT0, now_, e).ok());
  EXPECT_EQ(restarted.nodes().Find("n1")->StateName(), "IDLE+COMPLETING");
  restarted.Tick(now_, e);
  EXPECT_EQ(restarted.FindJob(second)->state(), wire::JOB_STATE_PENDING);
  ASSERT_TRUE(restarted.JobExited(first, SIGTERM, now_, e, "n1").ok());
  EXPECT_EQ(restarted.FindJob(first)->state(), wire::JOB_STATE_CANCELLED);
  restarted.Tick(now_, e);
  EXPECT_EQ(restarted.FindJob(second)->state(), wire::JOB_STATE_RUNNING);
}

TEST_F(ControllerCoreTest, OnlyTheTimeLimitAsksToTerminate) {
  RegisterAll();
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_time_limit_s(60); }));
  Tick();
  Cancel(std::to_string(id), alice_, SIGUSR1);
  ASSERT_EQ(last_effects_.signals.size(), 1u);
  EXPECT_FALSE(last_effects_.signals[0].terminate);
  now_ += 60;
  Effects e = Tick();
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_TRUE(e.signals[0].terminate);
}

TEST_F(ControllerCoreTest, FinishedJobsArePurgedAfterMinJobAge) {
  uint32_t id = SubmitOk();
  Cancel(std::to_string(id), alice_);
  now_ += 299;
  Tick();
  EXPECT_NE(core_->FindJob(id), nullptr);
  now_ += 1;
  Tick();
  EXPECT_EQ(core_->FindJob(id), nullptr);
  EXPECT_EQ(log_.back().job_purge(), id);
  EXPECT_EQ(SubmitOk(), id + 1);  // Ids are never reused.
}

TEST_F(ControllerCoreTest, ReplayOfTheLogRebuildsTheSameState) {
  RegisterAll();
  uint32_t a = SubmitOk(Spec([](auto& s) { s.set_array("1-4"); }));
  SubmitOk(Spec([](auto& s) { s.set_hold(true); }));
  Tick();
  Exit(a + 1, kExitOk);
  now_ += 5;
  Tick();
  Cancel(std::to_string(a), alice_);
  uint32_t last = SubmitOk();

  ControllerCore replayed(config_);
  replayed.Restore(nullptr, log_);
  EXPECT_EQ(replayed.Snapshot().SerializeAsString(), core_->Snapshot().SerializeAsString());
  // What the state loop writes parses back into the same snapshot.
  wire::StateSnapshot written;
  ASSERT_TRUE(written.ParseFromString(core_->SerializeSnapshot()));
  EXPECT_EQ(written.SerializeAsString(), core_->Snapshot().SerializeAsString());
  EXPECT_EQ(replayed.next_job_id(), last + 1);

  // Snapshot plus later records gives the same state too.
  wire::StateSnapshot snap = core_->Snapshot();
  size_t mark = log_.size();
  uint32_t after = SubmitOk();
  ControllerCore from_snapshot(config_);
  from_snapshot.Restore(&snap, {log_.begin() + mark, log_.end()});
  EXPECT_NE(from_snapshot.FindJob(after), nullptr);
  EXPECT_EQ(from_snapshot.Snapshot().SerializeAsString(), core_->Snapshot().SerializeAsString());
}

TEST_F(ControllerCoreTest, ScriptAndEnvironmentTravelApartFromTheRecord) {
  RegisterAll();
  uint32_t id = SubmitOk(Spec([](auto& s) {
    s.set_script("#!/bin/sh\necho hi\n");
    s.add_environment("HOME=/home/alice");
    s.set_array("1-2");
  }));
  EXPECT_TRUE(Job(id).spec().script().empty());  // Listings never copy it.
  ASSERT_EQ(log_.size(), 2u);
  EXPECT_EQ(model::UnpackPayload(id, log_[0].job_payload().packed())->script(),
            "#!/bin/sh\necho hi\n");
  Effects e = Tick();
  ASSERT_EQ(e.launches.size(), 2u);
  for (const LaunchJob& l : e.launches) {
    ASSERT_NE(l.payload, nullptr);
    EXPECT_EQ(l.payload->environment(0), "HOME=/home/alice");  // Tasks share the array's.
  }
  ControllerCore replayed(config_);
  wire::StateSnapshot snap = core_->Snapshot();
  replayed.Restore(&snap, {});
  EXPECT_EQ(replayed.FindPayload(Job(id + 1))->script(), "#!/bin/sh\necho hi\n");
}

TEST_F(ControllerCoreTest, PublishedViewIsImmutable) {
  uint32_t id = SubmitOk();
  auto view = core_->PublishJobs();
  EXPECT_EQ(core_->PublishJobs(), view);  // Nothing changed: same view.
  Update(std::to_string(id), alice_, "hold");
  ASSERT_EQ(view->size(), 1u);
  EXPECT_EQ((*view)[0]->reason(), "None");  // The old view did not change.
  EXPECT_EQ(Job(id).reason(), "JobHeldUser");
  EXPECT_NE(core_->PublishJobs(), view);
}

// ---- Time limits, --signal warnings, node liveness and registration checks ----

// The fixture's cluster with more slurm.conf settings (SlurmdTimeout,
// ReturnToService, SlurmdParameters, ...) written before its nodes.
class NodeLivenessTest : public ControllerCoreTest {
 protected:
  // Nodes unregistered, as in ControllerCoreTest: the tests register them.
  void Reload(const std::string& settings) {
    Start(
        "GresTypes=gpu\n"
        "SelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\nMinJobAge=300\n" +
            settings +
            "NodeName=n[1-2] CPUs=4 RealMemory=16000 Gres=gpu:a100:2\n"
            "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 "
            "DefaultTime=1:00:00\n",
        /*register_nodes=*/false);
  }
  // A node daemon's registration, reporting what its host has.
  Effects Register(const std::string& node, uint32_t cpus = 4, uint64_t mem = 16000,
                   const std::string& gres = "gpu:a100:2") {
    wire::NodeRegisterRequest req;
    req.set_node(node);
    req.set_boot_time(kT0);
    req.set_cpus(cpus);
    req.set_real_memory_mb(mem);
    req.set_gres(gres);
    req.set_hardware_reported(true);
    Effects e;
    EXPECT_TRUE(core_->NodeRegistered(req, now_, e).ok());
    Collect(e);
    return e;
  }
  // A heartbeat that lists the jobs the node daemon holds.
  Effects Heartbeat(const std::string& node, std::vector<uint32_t> jobs) {
    wire::NodeRegisterRequest req;
    req.set_node(node);
    req.set_boot_time(kT0);
    req.set_jobs_reported(true);
    for (uint32_t id : jobs) req.add_jobs(id);
    Effects e;
    EXPECT_TRUE(core_->NodeRegistered(req, now_, e).ok());
    Collect(e);
    return e;
  }
  Status UpdateNode(const std::string& node, const std::string& state,
                    const std::string& reason = "") {
    wire::UpdateNodeRequest req;
    req.set_nodes(node);
    req.set_state(state);
    req.set_reason(reason);
    Effects e;
    Status s = core_->UpdateNodes(req, root_, now_, e);
    Collect(e);
    return s;
  }
  const NodeRuntime& Node(const std::string& name) { return *core_->nodes().Find(name); }
};

TEST_F(ControllerCoreTest, TimeLimitIsTimeoutHoweverTheJobDies) {
  RegisterAll();
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_time_limit_s(60); }));
  Tick();
  EXPECT_EQ(core_->NextWakeTime(), kT0 + 60);
  now_ += 60;
  Effects e = Tick();
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].signal, SIGTERM);
  EXPECT_FALSE(e.signals[0].batch_only);
  EXPECT_FALSE(e.signals[0].steps_only) << "the end of the job reaches all of it";
  EXPECT_TRUE(Job(id).timed_out());
  now_ += 5;
  EXPECT_TRUE(Tick().signals.empty());  // Signalled once; KillWait is the node's business.
  Exit(id, SIGKILL);                    // It ignored SIGTERM and died by the node daemon's SIGKILL.
  EXPECT_EQ(StateOf(id), "TIMEOUT");
}

// scancel -s: the steps only; -b: the batch script; -f, and KILL: everything.
TEST_F(ControllerCoreTest, AUsersSignalReachesTheStepsUnlessTheBatchScriptIsNamed) {
  RegisterAll();
  const std::string id = std::to_string(SubmitOk(Spec([](auto&) {})));
  Tick();
  ASSERT_EQ(StateOf(static_cast<uint32_t>(std::stoul(id))), "RUNNING");
  struct Case {
    int signal;
    bool batch_only, full;
    bool steps_only;
  };
  for (const Case& c : {Case{SIGUSR1, false, false, true}, Case{SIGUSR1, true, false, false},
                        Case{SIGUSR1, false, true, false}, Case{SIGKILL, false, false, false}}) {
    wire::SignalJobsRequest req;
    req.add_job_ids(id);
    req.set_signal(c.signal);
    req.set_batch_only(c.batch_only);
    req.set_full(c.full);
    Effects e;
    EXPECT_EQ(core_->SignalJobs(req, root_, now_, e).affected(), 1u);
    ASSERT_EQ(e.signals.size(), 1u);
    EXPECT_EQ(e.signals[0].steps_only, c.steps_only)
        << "signal " << c.signal << " batch " << c.batch_only << " full " << c.full;
    EXPECT_EQ(e.signals[0].batch_only, c.batch_only);
  }
}

TEST_F(ControllerCoreTest, SignalOptionWarnsOnceBeforeTheTimeLimit) {
  RegisterAll();
  uint32_t batch = SubmitOk(Spec([](auto& s) {
    s.set_time_limit_s(120);
    s.set_signal("B:USR1@30");
  }));
  uint32_t all = SubmitOk(Spec([](auto& s) {
    s.set_time_limit_s(120);
    s.set_signal("SIGUSR2");  // 60 s before, Slurm's default.
    s.set_requeue(1);
  }));
  uint32_t bad = SubmitOk(Spec([](auto& s) {
    s.set_time_limit_s(120);
    s.set_signal("NOSUCH@10");
  }));
  Tick();
  ASSERT_EQ(StateOf(batch), "RUNNING");
  ASSERT_EQ(StateOf(all), "RUNNING");
  EXPECT_EQ(core_->NextWakeTime(), kT0 + 60);
  now_ = kT0 + 59;
  EXPECT_TRUE(Tick().signals.empty());
  now_ = kT0 + 60;
  Effects e = Tick();
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].job_id, all);
  EXPECT_EQ(e.signals[0].signal, SIGUSR2);
  EXPECT_FALSE(e.signals[0].batch_only);
  EXPECT_TRUE(e.signals[0].steps_only) << "without B: the steps, not the batch script";
  EXPECT_TRUE(Job(all).warned());
  EXPECT_EQ(core_->NextWakeTime(), kT0 + 90);
  now_ = kT0 + 89;
  EXPECT_TRUE(Tick().signals.empty());  // Once per run.
  now_ = kT0 + 90;
  e = Tick();
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].job_id, batch);
  EXPECT_EQ(e.signals[0].signal, SIGUSR1);
  EXPECT_TRUE(e.signals[0].batch_only);
  EXPECT_FALSE(e.signals[0].steps_only);
  EXPECT_EQ(e.signals[0].nodes, std::vector<std::string>{Job(batch).nodes(0)});
  // A requeued job is warned again in its next run.
  EXPECT_TRUE(Update(std::to_string(all), root_, "requeue").empty());
  Report(all, SIGTERM, Job(all).nodes(0), /*cleanup_follows=*/false);  // The old run is gone.
  EXPECT_FALSE(Job(all).warned());
  Tick();
  ASSERT_EQ(StateOf(all), "RUNNING");
  EXPECT_EQ(Job(all).end_time(), kT0 + 210);
  // The limits: SIGTERM, whether or not a job was warned (or asked nonsense).
  now_ = kT0 + 120;
  e = Tick();
  ASSERT_EQ(e.signals.size(), 2u);
  EXPECT_EQ(e.signals[0].job_id, batch);
  EXPECT_EQ(e.signals[0].signal, SIGTERM);
  EXPECT_EQ(e.signals[1].job_id, bad);
  EXPECT_EQ(e.signals[1].signal, SIGTERM);
  now_ = kT0 + 150;
  e = Tick();
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].job_id, all);
  EXPECT_EQ(e.signals[0].signal, SIGUSR2);
}

TEST_F(NodeLivenessTest, SilentNodeGoesDownStarAndItsJobsRequeueOrFail) {
  Reload("SlurmdTimeout=100\n");
  Register("n1");
  Register("n2");
  uint32_t keep = SubmitOk(Spec([](auto& s) { s.set_nodelist("n1"); }));
  uint32_t lose = SubmitOk(Spec([](auto& s) {
    s.set_nodelist("n1");
    s.set_requeue(2);
  }));
  Tick();
  ASSERT_EQ(StateOf(keep), "RUNNING");
  EXPECT_EQ(core_->NextWakeTime(), kT0 + 100);
  now_ = kT0 + 60;
  Register("n2");  // Heartbeat: n2 keeps answering.
  now_ = kT0 + 99;
  Tick();
  EXPECT_EQ(Node("n1").StateName(), "MIXED");
  now_ = kT0 + 100;
  Tick();
  EXPECT_EQ(Node("n1").StateName(), "DOWN*");
  EXPECT_EQ(Node("n1").reason, "Not responding");
  EXPECT_EQ(Node("n2").StateName(), "IDLE");
  EXPECT_EQ(StateOf(keep), "PENDING");
  EXPECT_EQ(Job(keep).restart_count(), 1u);
  EXPECT_EQ(Job(keep).reason(), "ReqNodeNotAvail, UnavailableNodes:n1");
  EXPECT_EQ(StateOf(lose), "NODE_FAIL");
  EXPECT_EQ(core_->NextWakeTime(), kT0 + 160);  // n2's deadline

  // ReturnToService=0 (the default): answering again is not enough.
  now_ = kT0 + 130;
  Register("n1");
  EXPECT_EQ(Node("n1").StateName(), "DOWN");
  Tick();
  EXPECT_EQ(StateOf(keep), "PENDING");
  ASSERT_TRUE(UpdateNode("n1", "RESUME").ok());
  EXPECT_EQ(Node("n1").StateName(), "IDLE");
  EXPECT_TRUE(Node("n1").reason.empty());
  Tick();
  EXPECT_EQ(StateOf(keep), "RUNNING");

  // The DOWN* mark survives a restart of the controller.
  now_ = kT0 + 400;
  Tick();
  ControllerCore replayed(config_);
  replayed.Restore(nullptr, log_);
  EXPECT_EQ(replayed.nodes().Find("n1")->StateName(), "DOWN*");
  EXPECT_EQ(replayed.nodes().Find("n1")->reason, "Not responding");
}

// The wall clock stepped two hours forward, then back: a running job keeps
// its time limit and its nodes their SlurmdTimeout in elapsed time, and a
// restarted controller replays the moved times from the log.
TEST_F(NodeLivenessTest, ClockStepsKeepTimeLimitsAndNodeTimeoutsInElapsedTime) {
  Reload("SlurmdTimeout=100\n");
  Register("n1");
  Register("n2");
  uint32_t running = SubmitOk(Spec([](auto& s) { s.set_time_limit_s(600); }));
  Tick();
  now_ = kT0 + 10;
  uint32_t pending = SubmitOk(Spec([](auto& s) { s.set_hold(true); }));
  ASSERT_EQ(StateOf(running), "RUNNING");
  ASSERT_EQ(Job(running).start_time(), kT0);

  now_ = kT0 + 20 + 7200;
  Effects e;
  core_->ClockStepped(7200, now_, e);
  Collect(e);
  Tick();
  EXPECT_EQ(StateOf(running), "RUNNING");
  EXPECT_EQ(Job(running).start_time(), kT0 + 7200);
  EXPECT_EQ(Job(running).end_time(), kT0 + 7200 + 600);
  EXPECT_EQ(Job(pending).submit_time(), kT0 + 10 + 7200);
  EXPECT_EQ(Node("n1").StateName(), "MIXED");
  EXPECT_EQ(Node("n2").StateName(), "IDLE");

  now_ = kT0 + 30;  // And back
  core_->ClockStepped(-7210, now_, e = Effects());
  Collect(e);
  Tick();
  EXPECT_EQ(Job(running).start_time(), kT0 - 10);
  EXPECT_EQ(Job(pending).submit_time(), kT0);
  // Node liveness still runs on elapsed time: n2 silent since kT0 (moved to
  // kT0 - 10) is DOWN* at its 100 s, not an hour later.
  now_ = kT0 + 80;
  Register("n1");
  Tick();
  EXPECT_EQ(Node("n2").StateName(), "IDLE");
  now_ = kT0 + 90;
  Tick();
  EXPECT_EQ(Node("n2").StateName(), "DOWN*");
  // The time limit in elapsed time: 600 s after the (moved) start; n1 answers.
  for (now_ = kT0 + 90; now_ < kT0 + 590; now_ += 50) {
    Register("n1");
    Tick();
    ASSERT_EQ(StateOf(running), "RUNNING") << now_ - kT0;
  }
  now_ = kT0 + 590;
  Tick();
  EXPECT_EQ(Job(running).final_state(), wire::JOB_STATE_TIMEOUT);

  ControllerCore replayed(config_);
  replayed.Restore(nullptr, log_);
  EXPECT_EQ(replayed.FindJob(pending)->submit_time(), kT0);
  EXPECT_EQ(replayed.FindJob(running)->start_time(), kT0 - 10);
}

TEST_F(NodeLivenessTest, ReturnToServiceOneBringsSilentNodesBackButNotAdminDown) {
  Reload("SlurmdTimeout=100\nReturnToService=1\n");
  Register("n1");
  Register("n2");
  ASSERT_TRUE(UpdateNode("n2", "DOWN", "broken fan").ok());
  now_ = kT0 + 100;
  Tick();
  EXPECT_EQ(Node("n1").StateName(), "DOWN*");
  EXPECT_EQ(Node("n2").StateName(), "DOWN*");
  EXPECT_EQ(Node("n2").reason, "broken fan");  // An admin's reason is kept.
  Register("n1");
  Register("n2");
  EXPECT_EQ(Node("n1").StateName(), "IDLE");
  EXPECT_TRUE(Node("n1").reason.empty());
  EXPECT_EQ(Node("n2").StateName(), "DOWN");
  uint32_t id = SubmitOk();
  Tick();
  EXPECT_EQ(Job(id).nodes(0), "n1");
}

TEST_F(NodeLivenessTest, ReturnToServiceTwoBringsAnyDownNodeBackWhenItReturns) {
  Reload("SlurmdTimeout=100\nReturnToService=2\n");
  Register("n1");
  ASSERT_TRUE(UpdateNode("n1", "DOWN", "swap disk").ok());
  now_ = kT0 + 50;
  Register("n1");  // A heartbeat is no return: the admin's DOWN holds.
  EXPECT_EQ(Node("n1").StateName(), "DOWN");
  now_ = kT0 + 150;
  Tick();
  EXPECT_EQ(Node("n1").StateName(), "DOWN*");
  Register("n1");
  EXPECT_EQ(Node("n1").StateName(), "IDLE");
}

TEST_F(NodeLivenessTest, NoTimeoutWithoutSlurmdTimeoutAndGraceForRestoredJobs) {
  Reload("SlurmdTimeout=0\n");
  Register("n1");
  now_ = kT0 + 100000;
  Tick();
  EXPECT_EQ(Node("n1").StateName(), "IDLE");

  // A controller restarted with jobs on a node that has not registered since
  // gives it SlurmdTimeout from its first pass.
  Reload("SlurmdTimeout=100\n");
  now_ = kT0;
  Register("n1");
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_requeue(2); }));
  Tick();
  ASSERT_EQ(StateOf(id), "RUNNING");
  ControllerCore restarted(config_);
  restarted.Restore(nullptr, log_);
  Effects e;
  now_ = kT0 + 500;
  restarted.Tick(now_, e);
  EXPECT_EQ(restarted.FindJob(id)->state(), wire::JOB_STATE_RUNNING);
  now_ = kT0 + 600;
  restarted.Tick(now_, e);
  EXPECT_EQ(restarted.FindJob(id)->state(), wire::JOB_STATE_NODE_FAIL);
}

TEST(HardwareShortfallTest, SlurmsWordsForEachShortfall) {
  conf::NodeConfig n;
  n.cpus = 32;
  n.real_memory_mb = 256000;
  n.gres = {{"gpu", "a100", 8}};
  wire::NodeRegisterRequest r;
  r.set_cpus(32);
  r.set_real_memory_mb(256000);
  r.set_gres("gpu:a100:8");
  EXPECT_EQ(HardwareShortfall(n, r), "");
  r.set_gres("gpu:a100:7");
  EXPECT_EQ(HardwareShortfall(n, r), "gres/gpu count reported lower than configured (7 < 8)");
  r.set_gres("gpu:v100:8");
  EXPECT_EQ(HardwareShortfall(n, r), "gres/gpu:a100 count reported lower than configured (0 < 8)");
  r.set_gres("");
  EXPECT_EQ(HardwareShortfall(n, r), "gres/gpu count reported lower than configured (0 < 8)");
  r.set_gres("gpu:a100:8,gpu:v100:2");  // More than promised is fine.
  r.set_cpus(2);
  r.set_real_memory_mb(23000);
  EXPECT_EQ(HardwareShortfall(n, r),
            "Low socket*core*thread count (2 < 32), Low RealMemory (23000 < 256000)");
  r.set_cpus(0);  // Could not tell: not held against it.
  r.set_real_memory_mb(0);
  EXPECT_EQ(HardwareShortfall(n, r), "");
}

TEST_F(NodeLivenessTest, ShortHardwareDrainsAndResumeChecksTheLastRegistration) {
  Reload("");
  Effects e = Register("n1", 4, 16000, "gpu:a100:1");
  EXPECT_EQ(Node("n1").StateName(), "IDLE+DRAIN");
  EXPECT_EQ(Node("n1").reason, "gres/gpu count reported lower than configured (1 < 2)");
  ASSERT_EQ(e.records.size(), 1u);
  EXPECT_TRUE(e.records[0].node_upsert().drain());
  EXPECT_TRUE(Register("n1", 4, 16000, "gpu:a100:1").records.empty());  // Heartbeats: once.

  ASSERT_TRUE(UpdateNode("n1", "RESUME").ok());
  EXPECT_EQ(Node("n1").StateName(), "IDLE+DRAIN");
  EXPECT_EQ(Node("n1").reason, "gres/gpu count reported lower than configured (1 < 2)");

  Register("n1", 2, 8000, "gpu:a100:2");
  EXPECT_EQ(Node("n1").reason,
            "Low socket*core*thread count (2 < 4), Low RealMemory (8000 < 16000)");
  Register("n1");  // Repaired: still drained until an admin resumes it.
  EXPECT_EQ(Node("n1").StateName(), "IDLE+DRAIN");
  ASSERT_TRUE(UpdateNode("n1", "RESUME").ok());
  EXPECT_EQ(Node("n1").StateName(), "IDLE");
  EXPECT_TRUE(Node("n1").reason.empty());

  // A registration without a hardware report (an older daemon) is not checked.
  Effects old;
  ASSERT_TRUE(core_->NodeRegistered("n2", kT0, now_, old).ok());
  EXPECT_EQ(Node("n2").StateName(), "IDLE");
}

TEST_F(NodeLivenessTest, ConfigOverridesTakesTheConfiguredHardware) {
  Reload("SlurmdParameters=config_overrides\n");
  Register("n1", 2, 2000, "");
  EXPECT_EQ(Node("n1").StateName(), "IDLE");
  uint32_t id = SubmitOk(Spec([](auto& s) {
    s.set_gres("gpu:a100:2");
    s.set_nodelist("n1");
  }));
  Tick();
  EXPECT_EQ(StateOf(id), "RUNNING");
}

}  // namespace
}  // namespace rota::ctld

namespace rota::ctld {
namespace {

TEST_F(NodeLivenessTest, JobsTheBatchNodeLostAreRequeuedOrFailAfterBatchStartTimeout) {
  Reload("BatchStartTimeout=10\n");
  Heartbeat("n1", {});
  Heartbeat("n2", {});
  uint32_t keep = SubmitOk(Spec([](auto& s) { s.set_nodelist("n1"); }));
  uint32_t lose = SubmitOk(Spec([](auto& s) {
    s.set_nodelist("n1");
    s.set_requeue(2);
  }));
  uint32_t held = SubmitOk(Spec([](auto& s) { s.set_nodelist("n2"); }));
  Tick();
  ASSERT_EQ(StateOf(keep), "RUNNING");
  ASSERT_EQ(StateOf(held), "RUNNING");

  // A list written before the launch reached the node: within the grace.
  now_ = kT0 + 9;
  EXPECT_TRUE(Heartbeat("n1", {}).signals.empty());
  EXPECT_EQ(StateOf(keep), "RUNNING");
  EXPECT_EQ(StateOf(lose), "RUNNING");

  now_ = kT0 + 10;
  Heartbeat("n1", {});
  EXPECT_EQ(StateOf(keep), "PENDING");
  EXPECT_EQ(Job(keep).restart_count(), 1u);
  EXPECT_EQ(StateOf(lose), "NODE_FAIL");
  // The node that still has its job keeps it.
  EXPECT_TRUE(Heartbeat("n2", {held}).signals.empty());
  EXPECT_EQ(StateOf(held), "RUNNING");
  // The allocation on n1 was given back: the requeued job runs again.
  Tick();
  EXPECT_EQ(StateOf(keep), "RUNNING");

  // Older node daemons send no list: nothing is concluded from its absence.
  now_ = kT0 + 100;
  Register("n2");
  EXPECT_EQ(StateOf(held), "RUNNING");
}

TEST_F(NodeLivenessTest, CopiesANodeShouldNotRunAreKilledThere) {
  Reload("");
  Heartbeat("n1", {});
  Heartbeat("n2", {});
  uint32_t on_n2 = SubmitOk(Spec([](auto& s) { s.set_nodelist("n2"); }));
  uint32_t ended = SubmitOk(Spec([](auto& s) { s.set_nodelist("n1"); }));
  Tick();
  Report(ended, kExitOk, "n1", /*cleanup_follows=*/false);
  ASSERT_EQ(StateOf(ended), "COMPLETED");

  // n1 came back holding a job that has ended, one that runs elsewhere, and
  // one the controller never had.
  Effects e = Heartbeat("n1", {ended, on_n2, 424242});
  ASSERT_EQ(e.signals.size(), 3u);
  std::set<uint32_t> killed;
  for (const SignalJob& s : e.signals) {
    EXPECT_EQ(s.signal, SIGKILL);
    EXPECT_EQ(s.nodes, std::vector<std::string>{"n1"});
    killed.insert(s.job_id);
  }
  EXPECT_EQ(killed, (std::set<uint32_t>{ended, on_n2, 424242}));
  EXPECT_EQ(StateOf(on_n2), "RUNNING");  // The real run is not touched.
  EXPECT_EQ(StateOf(ended), "COMPLETED");
}

TEST_F(NodeLivenessTest, CompletingJobTheNodeNoLongerHasEnds) {
  Reload("");
  Heartbeat("n1", {});
  uint32_t id = SubmitOk(Spec([](auto& s) { s.set_nodelist("n1"); }));
  Tick();
  now_ += 20;
  Report(id, kExitOne, "n1", /*cleanup_follows=*/true);
  ASSERT_EQ(StateOf(id), "COMPLETING");
  EXPECT_TRUE(Heartbeat("n1", {id}).signals.empty());  // Still cleaning up.
  EXPECT_EQ(StateOf(id), "COMPLETING");
  // Its final report was lost (a wiped spool): nothing of the job is left there.
  Heartbeat("n1", {});
  EXPECT_EQ(StateOf(id), "FAILED");
  EXPECT_EQ(Job(id).exit_code(), kExitOne);
}

}  // namespace
}  // namespace rota::ctld
