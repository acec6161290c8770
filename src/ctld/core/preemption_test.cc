// Preemption by partition PriorityTier in the controller core, with a fake
// clock: who is displaced, how (REQUEUE, CANCEL, SUSPEND), GraceTime,
// PreemptExemptTime, and that the preemptor gets what was freed for it.
#include <gtest/gtest.h>

#include <csignal>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ctld/core/core_test_fixture.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

// Two 4-CPU nodes shared by partitions of two tiers.
constexpr char kConf[] =
    "SelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\n"
    "AccountingStorageType=accounting_storage/slurmdbd\n"
    "PreemptMode=REQUEUE\n"
    "NodeName=n[1-2] CPUs=4 RealMemory=16000\n"
    "PartitionName=low Nodes=n[1-2] Default=YES PriorityTier=1\n"
    "PartitionName=peer Nodes=n[1-2] PriorityTier=1\n"
    "PartitionName=cancel Nodes=n[1-2] PriorityTier=1 PreemptMode=CANCEL\n"
    "PartitionName=grace Nodes=n[1-2] PriorityTier=1 GraceTime=60\n"
    "PartitionName=susp Nodes=n[1-2] PriorityTier=1 PreemptMode=SUSPEND\n"
    "PartitionName=off Nodes=n[1-2] PriorityTier=1 PreemptMode=OFF\n"
    "PartitionName=high Nodes=n[1-2] PriorityTier=2\n";

class PreemptionTest : public testing::CoreTest {
 protected:
  void SetUp() override { Load(kPartitionPrio); }

  static constexpr char kPartitionPrio[] = "PreemptType=preempt/partition_prio\n";

  // kConf and `extra`; both nodes registered.
  void Load(const std::string& extra) { Start(std::string(kConf) + extra); }

  // A whole-node (4 CPU) job of alice's in `partition`, started or queued by
  // the next Tick.
  uint32_t Submit(const std::string& partition, int cpus = 4,
                  std::function<void(wire::JobSpec&)> edit = {}) {
    return SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_partition(partition);
      s.set_cpus_per_task(static_cast<uint32_t>(cpus));
      s.set_time_limit_s(3600);
      if (edit) edit(s);
    });
  }
  // The fixture's pass, its accounting records kept.
  Effects Tick() {
    Effects e = CoreTest::Tick();
    Keep(e);
    return e;
  }
  void Keep(const Effects& e) {
    accounting_.insert(accounting_.end(), e.accounting.begin(), e.accounting.end());
  }
  // The node's reports that the job's script ended and that it is clean.
  void Cleaned(uint32_t id) {
    const std::string node = Job(id).nodes(0);
    for (bool early : {true, false}) {
      wire::JobExitedRequest req;
      req.set_job_id(id);
      req.set_wait_status(SIGTERM);
      req.set_node(node);
      req.set_cleanup_follows(early);
      Effects e;
      ASSERT_TRUE(core_->ReportExit(req, now_, e).ok());
      Keep(e);
    }
  }
  std::string StateOf(uint32_t id) { return std::string(model::JobStateName(Job(id).state())); }
  std::string NodeOf(uint32_t id) { return Job(id).nodes_size() ? Job(id).nodes(0) : ""; }
  // scontrol `action` on the job as root, or else as alice.
  std::vector<std::string> Update(uint32_t id, bool root, const std::string& action) {
    wire::UpdateJobRequest req;
    req.add_job_ids(std::to_string(id));
    req.set_action(action);
    Effects e;
    auto r = core_->UpdateJobs(req, root ? root_ : alice_, now_, e);
    last_ = e;
    return {r.errors().begin(), r.errors().end()};
  }
  static bool Has(const Effects& e, uint32_t id, int signal, bool terminate) {
    for (const SignalJob& s : e.signals) {
      if (s.job_id == id && s.signal == signal && s.terminate == terminate) return true;
    }
    return false;
  }

  std::vector<wire::AccountingJob> accounting_;
  Effects last_;
};

TEST_F(PreemptionTest, HigherTierRequeuesTheYoungestLowerTierJob) {
  uint32_t old_low = Submit("low");
  Tick();
  now_ += 10;
  uint32_t young_low = Submit("low");
  Tick();
  ASSERT_EQ(StateOf(old_low), "RUNNING");
  ASSERT_EQ(StateOf(young_low), "RUNNING");
  now_ += 10;
  uint32_t high = Submit("high");
  Effects e = Tick();
  EXPECT_EQ(StateOf(old_low), "RUNNING");
  EXPECT_EQ(StateOf(young_low), "COMPLETING");
  EXPECT_EQ(Job(young_low).final_state(), wire::JOB_STATE_REQUEUED);
  EXPECT_EQ(Job(young_low).preempt_time(), now_);
  EXPECT_EQ(Job(young_low).preempted_by(), high);
  EXPECT_TRUE(Has(e, young_low, SIGTERM, /*terminate=*/true));
  EXPECT_EQ(StateOf(high), "PENDING");
  EXPECT_EQ(Job(high).reason(), "Resources");
  ASSERT_EQ(Job(high).preempt_nodes_size(), 1);
  EXPECT_EQ(Job(high).preempt_nodes(0), NodeOf(young_low));
  const std::string freed = NodeOf(young_low);

  // While the victim leaves, nothing more is displaced and nothing starts.
  now_ += 5;
  e = Tick();
  EXPECT_TRUE(e.signals.empty());
  EXPECT_TRUE(e.launches.empty());
  EXPECT_EQ(StateOf(old_low), "RUNNING");

  Cleaned(young_low);
  EXPECT_EQ(StateOf(young_low), "PENDING");
  EXPECT_EQ(Job(young_low).restart_count(), 1u);
  EXPECT_EQ(Job(young_low).preempted_by(), 0u);
  EXPECT_EQ(Job(young_low).preempt_time(), now_ - 5);  // Kept: scontrol shows it
  // rota why tells its user that it ran and was displaced.
  Result<wire::WhyResponse> why = core_->ExplainJob(young_low, now_);
  ASSERT_TRUE(why.ok()) << why.status().message();
  EXPECT_EQ(why->restarts(), 1u);
  EXPECT_EQ(why->last_preempted(), now_ - 5);
  // The attempt that ended is accounted PREEMPTED, as sacct shows it.
  bool preempted_attempt = false;
  for (const wire::AccountingJob& a : accounting_) {
    preempted_attempt |= a.job_id() == young_low && a.state() == wire::JOB_STATE_PREEMPTED;
  }
  EXPECT_TRUE(preempted_attempt);

  e = Tick();
  EXPECT_EQ(StateOf(high), "RUNNING");
  EXPECT_EQ(NodeOf(high), freed);
  EXPECT_EQ(Job(high).preempt_nodes_size(), 0);
  EXPECT_EQ(StateOf(young_low), "PENDING");
}

// The victim is the lowest priority job, unless preempt_youngest_first
// makes it the one started last. `first` is submitted first (so of higher
// priority) but may start only later: it is the younger of the two.
TEST_F(PreemptionTest, PreemptYoungestFirstTakesTheLatestStartOverTheLowestPriority) {
  for (bool youngest_first : {false, true}) {
    SCOPED_TRACE(youngest_first);
    Load(std::string(kPartitionPrio) +
         (youngest_first ? "SchedulerParameters=preempt_youngest_first\n" : ""));
    const int64_t t0 = now_;
    uint32_t first = Submit("low", 4, [&](wire::JobSpec& s) { s.set_begin_time(t0 + 10); });
    uint32_t second = Submit("low");
    Tick();
    now_ += 10;
    Tick();
    ASSERT_EQ(StateOf(first), "RUNNING");
    ASSERT_EQ(StateOf(second), "RUNNING");
    ASSERT_GT(Job(first).priority(), Job(second).priority());
    ASSERT_GT(Job(first).start_time(), Job(second).start_time());
    now_ += 10;
    Submit("high");
    Tick();
    EXPECT_EQ(StateOf(first), youngest_first ? "COMPLETING" : "RUNNING");
    EXPECT_EQ(StateOf(second), youngest_first ? "RUNNING" : "COMPLETING");
  }
}

TEST_F(PreemptionTest, EqualTiersNeverPreempt) {
  uint32_t a = Submit("low");
  uint32_t b = Submit("low");
  Tick();
  uint32_t peer = Submit("peer");
  Effects e = Tick();
  EXPECT_EQ(StateOf(a), "RUNNING");
  EXPECT_EQ(StateOf(b), "RUNNING");
  EXPECT_EQ(StateOf(peer), "PENDING");
  EXPECT_TRUE(e.signals.empty());
  EXPECT_EQ(Job(peer).preempt_nodes_size(), 0);
}

TEST_F(PreemptionTest, NothingIsPreemptedWithoutPartitionPrio) {
  Load("PreemptType=preempt/none\n");
  uint32_t a = Submit("low");
  uint32_t b = Submit("low");
  Tick();
  uint32_t high = Submit("high");
  EXPECT_TRUE(Tick().signals.empty());
  EXPECT_EQ(StateOf(a), "RUNNING");
  EXPECT_EQ(StateOf(b), "RUNNING");
  EXPECT_EQ(StateOf(high), "PENDING");
}

TEST_F(PreemptionTest, PreemptModeOffProtectsAPartition) {
  uint32_t a = Submit("off");
  uint32_t b = Submit("off");
  Tick();
  uint32_t high = Submit("high");
  EXPECT_TRUE(Tick().signals.empty());
  EXPECT_EQ(StateOf(a), "RUNNING");
  EXPECT_EQ(StateOf(b), "RUNNING");
  EXPECT_EQ(StateOf(high), "PENDING");
}

TEST_F(PreemptionTest, CancelModeEndsTheVictimPreempted) {
  uint32_t a = Submit("cancel");
  uint32_t b = Submit("cancel");
  Tick();
  uint32_t high = Submit("high");
  Tick();
  EXPECT_EQ(StateOf(b), "COMPLETING");
  EXPECT_EQ(Job(b).final_state(), wire::JOB_STATE_PREEMPTED);
  Cleaned(b);
  EXPECT_EQ(StateOf(b), "PREEMPTED");
  EXPECT_EQ(Job(b).restart_count(), 0u);
  Tick();
  EXPECT_EQ(StateOf(high), "RUNNING");
  EXPECT_EQ(StateOf(a), "RUNNING");
}

TEST_F(PreemptionTest, AJobThatMayNotBeRequeuedIsCancelled) {
  uint32_t a = Submit("low");
  uint32_t b = Submit("low", 4, [](wire::JobSpec& s) { s.set_requeue(2); });  // --no-requeue
  Tick();
  ASSERT_EQ(StateOf(b), "RUNNING");
  // The non-requeueable job is the youngest: it is chosen, and cancelled.
  Submit("high");
  Tick();
  EXPECT_EQ(StateOf(a), "RUNNING");
  EXPECT_EQ(Job(b).final_state(), wire::JOB_STATE_PREEMPTED);
  Cleaned(b);
  EXPECT_EQ(StateOf(b), "PREEMPTED");
}

TEST_F(PreemptionTest, GraceTimeWarnsThenKills) {
  uint32_t a = Submit("grace");
  uint32_t b = Submit("grace", 4, [](wire::JobSpec& s) { s.set_signal("B:USR1@30"); });
  Tick();
  uint32_t high = Submit("high");
  Effects e = Tick();
  // Warned with its own --signal, still running through GraceTime.
  EXPECT_EQ(StateOf(b), "RUNNING");
  EXPECT_TRUE(Has(e, b, SIGCONT, false));
  EXPECT_TRUE(Has(e, b, SIGUSR1, false));
  EXPECT_FALSE(Has(e, b, SIGTERM, true));
  EXPECT_EQ(Job(b).preempt_kill_time(), now_ + 60);
  EXPECT_LE(core_->NextWakeTime().value_or(INT64_MAX), now_ + 60);
  now_ += 59;
  e = Tick();
  EXPECT_EQ(StateOf(b), "RUNNING");
  EXPECT_TRUE(e.signals.empty());
  EXPECT_EQ(StateOf(a), "RUNNING");  // Still nothing more displaced
  now_ += 1;
  e = Tick();
  EXPECT_TRUE(Has(e, b, SIGTERM, true));
  EXPECT_EQ(StateOf(b), "COMPLETING");
  Cleaned(b);
  EXPECT_EQ(StateOf(b), "PENDING");
  Tick();
  EXPECT_EQ(StateOf(high), "RUNNING");
}

TEST_F(PreemptionTest, AVictimEndingInItsGraceTimeIsStillPreempted) {
  Submit("grace");
  uint32_t b = Submit("grace");
  Tick();
  uint32_t high = Submit("high");
  Effects e = Tick();
  EXPECT_TRUE(Has(e, b, SIGTERM, false));
  now_ += 3;
  Cleaned(b);  // It saved its work and left on SIGTERM
  EXPECT_EQ(StateOf(b), "PENDING");
  EXPECT_EQ(Job(b).restart_count(), 1u);
  Tick();
  EXPECT_EQ(StateOf(high), "RUNNING");
}

TEST_F(PreemptionTest, PreemptExemptTimeProtectsYoungJobs) {
  Load(std::string(kPartitionPrio) + "PreemptExemptTime=00:02:00\n");
  uint32_t a = Submit("low");
  uint32_t b = Submit("low");
  Tick();
  uint32_t high = Submit("high");
  now_ += 119;
  EXPECT_TRUE(Tick().signals.empty());
  EXPECT_EQ(StateOf(high), "PENDING");
  now_ += 1;
  Tick();
  EXPECT_EQ(StateOf(b), "COMPLETING");
  EXPECT_EQ(StateOf(a), "RUNNING");
}

TEST_F(PreemptionTest, FreedResourcesAreKeptForThePreemptor) {
  // Two whole-node low jobs; the high job needs both nodes.
  uint32_t a = Submit("low");
  uint32_t b = Submit("low");
  Tick();
  uint32_t high = Submit("high", 4, [](wire::JobSpec& s) {
    s.set_min_nodes(2);
    s.set_num_tasks(2);
  });
  Tick();
  ASSERT_EQ(StateOf(a), "COMPLETING");
  ASSERT_EQ(StateOf(b), "COMPLETING");
  // A small low job waits too.
  now_ += 1;
  uint32_t other = Submit("low", 2);
  // One node is clean: no job starts there, by either pass.
  Cleaned(a);
  now_ += 60;
  Effects e = Tick();
  EXPECT_TRUE(e.launches.empty());
  EXPECT_EQ(StateOf(other), "PENDING");
  EXPECT_EQ(StateOf(a), "PENDING");
  EXPECT_EQ(StateOf(high), "PENDING");
  Cleaned(b);
  Tick();
  EXPECT_EQ(StateOf(high), "RUNNING");
  EXPECT_EQ(Job(high).nodes_size(), 2);
  EXPECT_EQ(StateOf(other), "PENDING");
}

TEST_F(PreemptionTest, APreemptorStartsEvenBehindABlockedJobOfItsPartition) {
  uint32_t a = Submit("low");
  uint32_t b = Submit("low");
  Tick();
  uint32_t high = Submit("high");
  Tick();
  ASSERT_EQ(StateOf(b), "COMPLETING");
  // A bigger high job moved ahead of it cannot start, nor displace enough.
  uint32_t big = Submit("high", 4, [](wire::JobSpec& s) {
    s.set_min_nodes(2);
    s.set_num_tasks(2);
  });
  wire::UpdateJobRequest req;
  req.add_job_ids(std::to_string(big));
  (*req.mutable_fields())["Priority"] = "4000000000";
  Effects e;
  ASSERT_EQ(core_->UpdateJobs(req, root_, now_, e).errors_size(), 0);
  Cleaned(b);
  Tick();
  EXPECT_EQ(StateOf(high), "RUNNING");
  EXPECT_EQ(StateOf(big), "PENDING");
  EXPECT_EQ(StateOf(a), "RUNNING");
}

TEST_F(PreemptionTest, SuspendModeStopsTheVictimAndResumesItAfterThePreemptor) {
  uint32_t a = Submit("susp");
  uint32_t b = Submit("susp");
  Tick();
  const int64_t b_end = Job(b).end_time();
  uint32_t high = Submit("high");
  Effects e = Tick();
  EXPECT_EQ(StateOf(b), "SUSPENDED");
  EXPECT_TRUE(Has(e, b, SIGSTOP, false));
  EXPECT_EQ(StateOf(a), "RUNNING");
  e = Tick();  // Its CPUs are free at once; its memory stays its own
  EXPECT_EQ(StateOf(high), "RUNNING");
  EXPECT_EQ(NodeOf(high), NodeOf(b));
  now_ += 100;
  Tick();
  EXPECT_EQ(StateOf(b), "SUSPENDED");  // Not while the preemptor runs
  Cleaned(high);
  e = Tick();
  EXPECT_EQ(StateOf(b), "RUNNING");
  EXPECT_TRUE(Has(e, b, SIGCONT, false));
  EXPECT_EQ(Job(b).end_time(), b_end + 100);  // Suspended time is not run time
  EXPECT_EQ(Job(b).preempted_by(), 0u);
  // Its CPUs are its own again: a new low job does not fit anywhere.
  uint32_t c = Submit("low");
  Tick();
  EXPECT_EQ(StateOf(c), "PENDING");
}

TEST_F(PreemptionTest, HoldsAndSuspensionsSurviveARestart) {
  Submit("susp");
  uint32_t b = Submit("susp");
  Submit("low");  // Can't run: both nodes are taken
  Tick();
  uint32_t high = Submit("high");
  Tick();
  ASSERT_EQ(StateOf(b), "SUSPENDED");
  ASSERT_EQ(Job(high).preempt_nodes_size(), 1);
  // A controller restarted from its snapshot holds the same resources: the
  // suspended job's memory, the preemptor's node.
  wire::StateSnapshot snapshot = core_->Snapshot();
  core_ = std::make_unique<ControllerCore>(config_);
  core_->Restore(&snapshot, {});
  Effects e;
  ASSERT_TRUE(core_->NodeRegistered("n1", kT0, now_, e).ok());
  ASSERT_TRUE(core_->NodeRegistered("n2", kT0, now_, e).ok());
  Tick();
  EXPECT_EQ(StateOf(high), "RUNNING");
  EXPECT_EQ(NodeOf(high), NodeOf(b));
  EXPECT_EQ(StateOf(b), "SUSPENDED");
}

TEST_F(PreemptionTest, AdminSuspendAndResume) {
  uint32_t a = Submit("low");
  Tick();
  EXPECT_EQ(Update(a, false, "suspend"),
            std::vector<std::string>{std::to_string(a) + ": Access/permission denied"});
  EXPECT_TRUE(Update(a, true, "suspend").empty());
  EXPECT_EQ(StateOf(a), "SUSPENDED");
  EXPECT_TRUE(Has(last_, a, SIGSTOP, false));
  // An administrator's suspension keeps the resources: nothing else starts there.
  uint32_t b = Submit("low");
  uint32_t c = Submit("low");
  Tick();
  EXPECT_EQ(StateOf(b), "RUNNING");
  EXPECT_EQ(StateOf(c), "PENDING");
  now_ += 30;
  EXPECT_TRUE(Update(a, true, "resume").empty());
  EXPECT_EQ(StateOf(a), "RUNNING");
  EXPECT_TRUE(Has(last_, a, SIGCONT, false));
  EXPECT_EQ(Job(a).end_time(), kT0 + 3600 + 30);
  EXPECT_EQ(Update(a, true, "resume"),
            std::vector<std::string>{std::to_string(a) + ": Job is not suspended"});
}

// preempt/qos: QoS Preempt lists from accounting decide, whatever the
// partitions' tiers; the victim's QoS PreemptMode, else the cluster's.
class QosPreemptionTest : public PreemptionTest {
 protected:
  void SetUp() override {
    Load("PreemptType=preempt/qos\nAccountingStorageEnforce=associations,qos\n");
    AddEntity("account", "physics", {});
    AddEntity("user", "alice", {{"DefaultAccount", "physics"}});
    AddQos("normal", {});
    AddQos("scavenger", {{"PreemptMode", "CANCEL"}});
    AddQos("patient", {{"GraceTime", "00:01:30"}});
    AddQos("urgent", {{"Preempt", "normal,scavenger,patient"}});
  }
  void AddQos(const std::string& name, std::map<std::string, std::string> fields) {
    AddEntity("qos", name, std::move(fields));
  }
  void AddEntity(const std::string& kind, const std::string& name,
                 std::map<std::string, std::string> fields) {
    wire::PolicyEntity* e = policy_.add_entities();
    e->set_kind(kind);
    e->set_name(name);
    for (auto& [k, v] : fields) (*e->mutable_fields())[k] = v;
  }
  void ApplyPolicy() {
    Effects e;
    core_->SetPolicy(policy_, e);
  }
  uint32_t SubmitQos(const std::string& qos, const std::string& partition = "low") {
    return Submit(partition, 4, [&](wire::JobSpec& s) { s.set_qos(qos); });
  }

  wire::PolicyState policy_;
};

TEST_F(QosPreemptionTest, APreemptListDisplacesThoseQosWhateverThePartitions) {
  ApplyPolicy();
  uint32_t normal = SubmitQos("normal", "high");  // A higher tier does not protect it
  Tick();
  now_ += 10;
  uint32_t scavenger = SubmitQos("scavenger");
  Tick();
  ASSERT_EQ(StateOf(normal), "RUNNING");
  ASSERT_EQ(StateOf(scavenger), "RUNNING");
  now_ += 10;
  uint32_t urgent = SubmitQos("urgent");
  Effects e = Tick();
  // The youngest goes, as its QoS says: cancelled, not requeued.
  EXPECT_EQ(StateOf(normal), "RUNNING");
  EXPECT_EQ(StateOf(scavenger), "COMPLETING");
  EXPECT_EQ(Job(scavenger).final_state(), wire::JOB_STATE_PREEMPTED);
  EXPECT_EQ(Job(scavenger).preempted_by(), urgent);
  EXPECT_TRUE(Has(e, scavenger, SIGTERM, /*terminate=*/true));
  Cleaned(scavenger);
  EXPECT_EQ(StateOf(scavenger), "PREEMPTED");
  Tick();
  EXPECT_EQ(StateOf(urgent), "RUNNING");
}

TEST_F(QosPreemptionTest, TheVictimsQosGraceTimeAppliesNotItsPartitions) {
  ApplyPolicy();
  uint32_t a = SubmitQos("patient");
  uint32_t b = SubmitQos("patient");
  Tick();
  now_ += 10;
  uint32_t urgent = SubmitQos("urgent");
  Effects e = Tick();
  const uint32_t victim = Job(b).preempted_by() == urgent ? b : a;
  ASSERT_EQ(Job(victim).preempted_by(), urgent);
  EXPECT_TRUE(Has(e, victim, SIGTERM, /*terminate=*/false));  // Warned
  EXPECT_EQ(Job(victim).preempt_kill_time(), now_ + 90);
  now_ += 90;
  EXPECT_TRUE(Has(Tick(), victim, SIGTERM, /*terminate=*/true));
}

TEST_F(QosPreemptionTest, APartitionsGraceTimeDoesNotApply) {
  ApplyPolicy();
  uint32_t a = SubmitQos("normal", "grace");
  uint32_t b = SubmitQos("normal", "grace");
  Tick();
  now_ += 10;
  uint32_t urgent = SubmitQos("urgent");
  Effects e = Tick();
  const uint32_t victim = Job(b).preempted_by() == urgent ? b : a;
  ASSERT_EQ(Job(victim).preempted_by(), urgent);
  EXPECT_TRUE(Has(e, victim, SIGTERM, /*terminate=*/true));  // At once
}

TEST_F(QosPreemptionTest, TheClustersModeAppliesWhenTheVictimsQosHasNone) {
  ApplyPolicy();
  uint32_t a = SubmitQos("normal");
  uint32_t b = SubmitQos("normal");
  Tick();
  now_ += 10;
  uint32_t urgent = SubmitQos("urgent");
  Tick();
  EXPECT_EQ(Job(b).preempted_by(), urgent);
  EXPECT_EQ(Job(b).final_state(), wire::JOB_STATE_REQUEUED);  // PreemptMode=REQUEUE
  EXPECT_EQ(StateOf(a), "RUNNING");
}

TEST_F(QosPreemptionTest, QosNotListedAndHigherTiersDoNotPreempt) {
  ApplyPolicy();
  uint32_t a = SubmitQos("urgent");
  uint32_t b = SubmitQos("scavenger");
  Tick();
  // scavenger's list is empty; normal's too, even from a higher tier; urgent
  // may not displace urgent.
  uint32_t c = SubmitQos("scavenger", "high");
  uint32_t d = SubmitQos("normal", "high");
  EXPECT_TRUE(Tick().signals.empty());
  EXPECT_EQ(StateOf(a), "RUNNING");
  EXPECT_EQ(StateOf(b), "RUNNING");
  EXPECT_EQ(StateOf(c), "PENDING");
  EXPECT_EQ(StateOf(d), "PENDING");
}

TEST_F(QosPreemptionTest, APreemptListAddedLaterTakesEffectAtTheNextPass) {
  policy_.mutable_entities()->RemoveLast();
  AddQos("urgent", {});
  ApplyPolicy();
  uint32_t a = SubmitQos("normal");
  uint32_t b = SubmitQos("normal");
  Tick();
  uint32_t urgent = SubmitQos("urgent");
  EXPECT_TRUE(Tick().signals.empty());
  EXPECT_EQ(StateOf(urgent), "PENDING");
  policy_.mutable_entities()->RemoveLast();
  AddQos("urgent", {{"Preempt", "normal"}});
  ApplyPolicy();
  Tick();
  EXPECT_EQ(Job(b).preempted_by() + Job(a).preempted_by(), urgent);
}

TEST_F(QosPreemptionTest, TheVictimsQosPreemptExemptTimeProtectsItsYoungJobs) {
  AddQos("settled", {{"PreemptExemptTime", "00:02:00"}});
  AddQos("boss", {{"Preempt", "settled"}});
  ApplyPolicy();
  uint32_t a = SubmitQos("settled");
  uint32_t b = SubmitQos("settled");
  Tick();
  now_ += 10;
  uint32_t boss = SubmitQos("boss");
  Tick();
  EXPECT_EQ(StateOf(a), "RUNNING");  // Younger than its QoS's two minutes
  EXPECT_EQ(StateOf(b), "RUNNING");
  EXPECT_EQ(Job(boss).reason(), "Resources");
  now_ += 110;  // Two minutes since they started
  Tick();
  EXPECT_TRUE(Job(a).preempted_by() == boss || Job(b).preempted_by() == boss);
}

}  // namespace
}  // namespace rota::ctld
