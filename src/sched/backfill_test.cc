#include "sched/backfill.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>

#include "sched/availability_profile.h"
#include "sched/test_cluster.h"

namespace rota::sched {
namespace {

using testing::AddNode;
using testing::AllNodes;
using testing::MakeNode;

constexpr int64_t kNow = 1'000'000;

// Four nodes of 4 cores; n0 and n1 run a job until kNow + 100.
class BackfillTest : public ::testing::Test {
 protected:
  BackfillTest() {
    for (int i = 0; i < 4; ++i) {
      AddNode(model_, MakeNode("n" + std::to_string(i), 1, 4, 1000, {}, model_.gpu_types));
    }
    model_.empty_usage = model_.EmptyUsage();
    all_ = AllNodes(model_);
    usage_ = model_.EmptyUsage();
    for (uint32_t n : {0u, 1u}) {
      running_.nodes.push_back({n, {0, 1, 2, 3}, 0, 0, 4, false});
      EXPECT_TRUE(Take(model_, usage_[n], running_.nodes.back()));
    }
  }

  AvailabilityProfile Profile(int64_t resolution = 1) {
    AvailabilityProfile p(model_, usage_, kNow, resolution);
    p.AddRelease(kNow + 100, running_);
    return p;
  }

  // `nodes` whole nodes (4 tasks each) for `limit` seconds (-1: no limit).
  BackfillJob Job(uint32_t id, uint32_t nodes, int64_t limit, uint32_t user = 1) {
    BackfillJob j;
    j.id = id;
    j.request.nodes = nodes;
    j.request.tasks = 4 * nodes;
    j.request.tasks_per_node = 4;
    j.candidates = &all_;
    j.user = user;
    j.time_limit_s = limit;
    return j;
  }

  // One line per job: "id outcome +start nodes".
  std::string Plan(const std::vector<BackfillJob>& jobs, const BackfillParams& params,
                   int64_t resolution = 1) {
    AvailabilityProfile profile = Profile(resolution);
    BackfillResult r = PlanBackfill(model_, profile, jobs, params);
    std::string out;
    for (const BackfillDecision& d : r.decisions) {
      out += std::to_string(d.id);
      switch (d.outcome) {
        case BackfillOutcome::kStartNow:
          out += " start";
          break;
        case BackfillOutcome::kReserved:
          out += " reserve +" + std::to_string(d.start - kNow);
          break;
        case BackfillOutcome::kNoPlan:
          out += " none";
          break;
        case BackfillOutcome::kNotTested:
          out += " untested";
          break;
      }
      for (const NodeAllocation& a : d.allocation.nodes) out += " " + model_.nodes[a.node].name;
      out += "\n";
    }
    return out;
  }

  ClusterModel model_;
  std::vector<uint32_t> all_;
  std::vector<NodeUsage> usage_;
  Allocation running_;
};

TEST_F(BackfillTest, SmallShortJobsFillTheHoleWithoutDelayingTheReservation) {
  // 1: the whole cluster, blocked until the running job ends at +100.
  // 2: one node for 50 s, done before +100: starts now.
  // 3: one node for 200 s would hold a node the reservation needs: it does
  //    NOT start now; it is planned after the big job.
  // 4: one node for exactly 100 s ends as the reservation begins: starts now.
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(2, 1, 50), Job(3, 1, 200), Job(4, 1, 100)};
  EXPECT_EQ(Plan(jobs, BackfillParams{}),
            "1 reserve +100 n0 n1 n2 n3\n"
            "2 start n2\n"
            "3 reserve +600 n0\n"
            "4 start n3\n");
}

TEST_F(BackfillTest, ResolutionRoundsEndsUp) {
  // At 60 s resolution the running job is assumed to end at the next
  // multiple; the 100-second job still ends no later than that.
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(2, 1, 100)};
  int64_t end = ((kNow + 100 + 59) / 60) * 60;
  std::string expected = "1 reserve +" + std::to_string(end - kNow) + " n0 n1 n2 n3\n2 start n2\n";
  EXPECT_EQ(Plan(jobs, BackfillParams{}, 60), expected);
}

TEST_F(BackfillTest, WindowEdge) {
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(2, 1, 200)};
  BackfillParams p;
  p.window = 100;  // The big job's start, +100, is inside: it is reserved.
  EXPECT_EQ(Plan(jobs, p),
            "1 reserve +100 n0 n1 n2 n3\n"
            "2 none\n");
  // One second short: no reservation, and the long job is free to start
  // (what Slurm does: a start beyond bf_window protects nothing).
  p.window = 99;
  EXPECT_EQ(Plan(jobs, p),
            "1 none\n"
            "2 start n2\n");
}

TEST_F(BackfillTest, MaxJobTestCutsThePassOff) {
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(2, 1, 50), Job(3, 1, 50)};
  BackfillParams p;
  p.max_job_test = 2;
  EXPECT_EQ(Plan(jobs, p),
            "1 reserve +100 n0 n1 n2 n3\n"
            "2 start n2\n"
            "3 untested\n");
}

// bf_max_job_start: the pass ends with its Nth start; the jobs after are not
// tried (no plan), and it is not a cut for bf_continue to resume.
TEST_F(BackfillTest, MaxJobStartEndsThePassAtItsLastStart) {
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(2, 1, 50), Job(3, 1, 50), Job(4, 4, 50)};
  BackfillParams p;
  p.max_job_start = 1;
  EXPECT_EQ(Plan(jobs, p),
            "1 reserve +100 n0 n1 n2 n3\n"
            "2 start n2\n"
            "3 untested\n"
            "4 untested\n");
  AvailabilityProfile profile = Profile();
  BackfillResult r = PlanBackfill(model_, profile, jobs, p);
  EXPECT_TRUE(r.start_limit_reached);
  EXPECT_FALSE(r.out_of_time);
  EXPECT_EQ(r.started, 1u);
  p.max_job_start = 2;
  EXPECT_EQ(Plan(jobs, p),
            "1 reserve +100 n0 n1 n2 n3\n"
            "2 start n2\n"
            "3 start n3\n"
            "4 untested\n");
}

TEST_F(BackfillTest, MaxTimeStopsThePassAfterTheJobItWasOn) {
  // A fake budget: spent once two jobs have been tried (no clock involved).
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(2, 1, 50), Job(3, 1, 50), Job(4, 1, 50)};
  int asked = 0;
  BackfillControl control;
  control.time_is_up = [&asked] { return ++asked >= 2; };
  AvailabilityProfile profile = Profile();
  BackfillResult r = PlanBackfill(model_, profile, jobs, BackfillParams{}, control);
  EXPECT_TRUE(r.out_of_time);
  EXPECT_EQ(r.tested, 2u);
  EXPECT_EQ(r.considered, 2u);
  EXPECT_EQ(r.last_tested, 1);
  EXPECT_EQ(asked, 2);
  ASSERT_EQ(r.decisions.size(), 4u);
  EXPECT_EQ(r.decisions[0].outcome, BackfillOutcome::kReserved);
  EXPECT_EQ(r.decisions[1].outcome, BackfillOutcome::kStartNow);
  EXPECT_EQ(r.decisions[2].outcome, BackfillOutcome::kNotTested);
  EXPECT_EQ(r.decisions[3].outcome, BackfillOutcome::kNotTested);
}

TEST_F(BackfillTest, MaxTimeNotReachedLeavesThePassWhole) {
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(2, 1, 50)};
  BackfillControl control;
  control.time_is_up = [] { return false; };
  AvailabilityProfile profile = Profile();
  BackfillResult r = PlanBackfill(model_, profile, jobs, BackfillParams{}, control);
  EXPECT_FALSE(r.out_of_time);
  EXPECT_EQ(r.considered, 2u);
  EXPECT_EQ(r.last_tested, 1);
}

TEST_F(BackfillTest, ContinueResumesBelowAndKeepsTheReservationsAbove) {
  // Pass 1 runs out of time after the big job: it is reserved at +100.
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(3, 1, 200), Job(2, 1, 50)};
  BackfillControl cut;
  cut.time_is_up = [] { return true; };
  AvailabilityProfile first_profile = Profile();
  BackfillResult first = PlanBackfill(model_, first_profile, jobs, BackfillParams{}, cut);
  ASSERT_TRUE(first.out_of_time);
  ASSERT_EQ(first.decisions[0].outcome, BackfillOutcome::kReserved);
  ASSERT_EQ(first.decisions[1].outcome, BackfillOutcome::kNotTested);
  KeptReservation kept{first.decisions[0].start, first.decisions[0].allocation};

  // Pass 2 resumes after it. The kept reservation is booked as it was, so
  // the 200-second job still may not start in its hole; the short one does.
  jobs[0].carried = true;
  jobs[0].kept = &kept;
  AvailabilityProfile profile = Profile();
  BackfillResult r = PlanBackfill(model_, profile, jobs, BackfillParams{});
  EXPECT_FALSE(r.out_of_time);
  EXPECT_EQ(r.tested, 2u);
  EXPECT_EQ(r.considered, 3u);
  ASSERT_EQ(r.decisions.size(), 3u);
  EXPECT_EQ(r.decisions[0].outcome, BackfillOutcome::kReserved);
  EXPECT_EQ(r.decisions[0].start, kNow + 100);
  EXPECT_EQ(r.decisions[1].outcome, BackfillOutcome::kReserved);
  EXPECT_EQ(r.decisions[1].start, kNow + 600);
  EXPECT_EQ(r.decisions[2].outcome, BackfillOutcome::kStartNow);

  // Without the kept reservation the resumed pass would let the long job
  // take the hole: what keeping it prevents.
  jobs[0].kept = nullptr;
  AvailabilityProfile bare = Profile();
  BackfillResult unprotected = PlanBackfill(model_, bare, jobs, BackfillParams{});
  EXPECT_EQ(unprotected.decisions[0].outcome, BackfillOutcome::kNotTested);
  EXPECT_EQ(unprotected.decisions[1].outcome, BackfillOutcome::kStartNow);
}

TEST_F(BackfillTest, CarriedJobsAreBookedBeforeAnyJobIsTried) {
  // A job new since the cut sorts first; the carried job's kept reservation
  // (the whole cluster at +100) is booked before it is tried, so the new
  // job cannot take the hole for longer than until then.
  KeptReservation kept;
  kept.start = kNow + 100;
  for (uint32_t n = 0; n < 4; ++n)
    kept.allocation.nodes.push_back({n, {0, 1, 2, 3}, 0, 0, 4, false});
  std::vector<BackfillJob> jobs = {Job(9, 1, 200), Job(1, 4, 500), Job(2, 1, 50)};
  jobs[1].carried = true;
  jobs[1].kept = &kept;
  EXPECT_EQ(Plan(jobs, BackfillParams{}),
            "9 reserve +600 n0\n"
            "1 reserve +100 n0 n1 n2 n3\n"
            "2 start n2\n");
}

TEST_F(BackfillTest, MaxJobPerUserAndPerPartition) {
  std::vector<BackfillJob> jobs = {Job(1, 1, 50, 7), Job(2, 1, 50, 7), Job(3, 1, 50, 8)};
  BackfillParams p;
  p.max_job_user = 1;
  EXPECT_EQ(Plan(jobs, p), "1 start n2\n2 untested\n3 start n3\n");
  p = BackfillParams{};
  p.max_job_part = 2;
  EXPECT_EQ(Plan(jobs, p), "1 start n2\n2 start n3\n3 untested\n");
}

TEST_F(BackfillTest, WalltimeHonesty) {
  // The same one-node job: with --time=50 it fills the hole at once; without
  // --time it carries its partition's default (an hour here) and waits.
  EXPECT_EQ(Plan({Job(1, 4, 500), Job(2, 1, 50)}, BackfillParams{}),
            "1 reserve +100 n0 n1 n2 n3\n2 start n2\n");
  EXPECT_EQ(Plan({Job(1, 4, 500), Job(2, 1, 3600)}, BackfillParams{}),
            "1 reserve +100 n0 n1 n2 n3\n2 reserve +600 n0\n");
  // With no limit at all it holds its node for ever once it starts.
  EXPECT_EQ(Plan({Job(1, 4, 500), Job(2, 1, -1)}, BackfillParams{}),
            "1 reserve +100 n0 n1 n2 n3\n2 reserve +600 n0\n");
}

TEST_F(BackfillTest, YoungJobsGetNoReservation) {
  // bf_min_age_reserve: the big job is too young to reserve, so it protects
  // nothing and the long job starts.
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(2, 1, 200)};
  jobs[0].may_reserve = false;
  EXPECT_EQ(Plan(jobs, BackfillParams{}), "1 none\n2 start n2\n");
}

TEST_F(BackfillTest, EasyReservesOnlyForTheFirstBlockedJob) {
  // Two blocked wide jobs, then a long narrow one. Conservative: both wide
  // jobs are reserved, and the narrow job, which would delay the second, waits.
  // EASY: only the first is protected, so the narrow job starts on the node
  // the first leaves alone.
  std::vector<BackfillJob> jobs = {Job(1, 3, 500), Job(2, 4, 100), Job(3, 1, 1000)};
  EXPECT_EQ(Plan(jobs, BackfillParams{}),
            "1 reserve +100 n0 n1 n2\n"
            "2 reserve +600 n0 n1 n2 n3\n"
            "3 reserve +700 n0\n");
  BackfillParams easy;
  easy.reserve_per_part = 1;
  EXPECT_EQ(Plan(jobs, easy),
            "1 reserve +100 n0 n1 n2\n"
            "2 none\n"
            "3 start n3\n");
}

TEST_F(BackfillTest, EqualRequestsResumeWhereTheLastOneWasPlaced) {
  // Ten one-node jobs of 100 s: two fit now (n2, n3), then four at each
  // release step. The memo of equal requests must not change any decision.
  std::vector<BackfillJob> jobs;
  for (uint32_t i = 1; i <= 10; ++i) jobs.push_back(Job(i, 1, 100));
  EXPECT_EQ(Plan(jobs, BackfillParams{}),
            "1 start n2\n2 start n3\n"
            "3 reserve +100 n0\n4 reserve +100 n1\n5 reserve +100 n2\n6 reserve +100 n3\n"
            "7 reserve +200 n0\n8 reserve +200 n1\n9 reserve +200 n2\n10 reserve +200 n3\n");
}

TEST_F(BackfillTest, EasyGoesOnPastJobsThatCannotStartNow) {
  // Behind EASY's one reservation (the whole cluster at +100), jobs can only
  // start now: 2 needs more CPUs than are free at all, 3 would delay the
  // reservation, 6 finds nothing left. 4 and 5, after them, still start.
  std::vector<BackfillJob> jobs = {Job(1, 4, 500), Job(2, 3, 50), Job(3, 2, 2000),
                                   Job(4, 1, 50),  Job(5, 1, 50), Job(6, 1, 50)};
  BackfillParams easy;
  easy.reserve_per_part = 1;
  EXPECT_EQ(Plan(jobs, easy),
            "1 reserve +100 n0 n1 n2 n3\n"
            "2 none\n"
            "3 none\n"
            "4 start n2\n"
            "5 start n3\n"
            "6 none\n");
}

// Nodes of one core each, named c0, c1, ...; `busy_until[i]` (0: idle now)
// is when a job running on node i ends.
struct OneCoreCluster {
  explicit OneCoreCluster(const std::vector<int64_t>& busy_until) {
    for (size_t i = 0; i < busy_until.size(); ++i) {
      AddNode(model, MakeNode("c" + std::to_string(i), 1, 1, 1000, {}, model.gpu_types));
    }
    model.empty_usage = model.EmptyUsage();
    all = AllNodes(model);
    usage = model.EmptyUsage();
    for (uint32_t n = 0; n < busy_until.size(); ++n) {
      if (busy_until[n] == 0) continue;
      Allocation a;
      a.nodes.push_back({n, {0}, 0, 0, 1, false});
      EXPECT_TRUE(Take(model, usage[n], a.nodes.back()));
      releases.emplace_back(kNow + busy_until[n], std::move(a));
    }
  }
  // `tasks` one-core tasks for `limit` seconds, on `nodes` nodes when fixed.
  BackfillJob Job(uint32_t id, uint32_t tasks, int64_t limit, bool fixed_nodes = true) {
    BackfillJob j;
    j.id = id;
    j.request.tasks = tasks;
    j.request.nodes = fixed_nodes ? tasks : 1;
    j.request.nodes_fixed = fixed_nodes;
    j.request.tasks_per_node = fixed_nodes ? 1 : 0;
    j.candidates = &all;
    j.time_limit_s = limit;
    return j;
  }
  // One line per job: "id outcome +start nodes" (nodes ascending).
  std::string Plan(const std::vector<BackfillJob>& jobs, const BackfillParams& params) {
    AvailabilityProfile profile(model, usage, kNow);
    for (const auto& [end, a] : releases) profile.AddRelease(end, a);
    BackfillResult r = PlanBackfill(model, profile, jobs, params);
    std::string out;
    for (const BackfillDecision& d : r.decisions) {
      out += std::to_string(d.id);
      if (d.outcome == BackfillOutcome::kStartNow) out += " start";
      if (d.outcome == BackfillOutcome::kReserved)
        out += " reserve +" + std::to_string(d.start - kNow);
      if (d.outcome == BackfillOutcome::kNoPlan) out += " none";
      std::vector<uint32_t> nodes;
      for (const NodeAllocation& a : d.allocation.nodes) nodes.push_back(a.node);
      std::sort(nodes.begin(), nodes.end());
      for (uint32_t n : nodes) out += " " + model.nodes[n].name;
      out += "\n";
    }
    return out;
  }
  ClusterModel model;
  std::vector<uint32_t> all;
  std::vector<NodeUsage> usage;
  std::vector<std::pair<int64_t, Allocation>> releases;
};

TEST(BackfillPlacementTest, AReservationLeavesTheIdleNodesToJobsThatRunPastIt) {
  // EASY's "extra" processors, on nodes: c0 and c1 are idle, c2-c7 busy
  // until +1000, c8 and c9 until +5000. Job 1 needs 6 nodes: it can start at
  // +1000, when 8 are free. On the six that free then, two idle nodes are
  // left over that it will not need, and job 2 (two nodes for longer than
  // the reservation is away) starts on them now without delaying job 1.
  OneCoreCluster c({0, 0, 1000, 1000, 1000, 1000, 1000, 1000, 5000, 5000});
  std::vector<BackfillJob> jobs = {c.Job(1, 6, 1000), c.Job(2, 2, 2000)};
  BackfillParams easy;
  easy.reserve_per_part = 1;
  EXPECT_EQ(c.Plan(jobs, easy),
            "1 reserve +1000 c2 c3 c4 c5 c6 c7\n"
            "2 start c0 c1\n");
  BackfillParams conservative;
  EXPECT_EQ(c.Plan(jobs, conservative),
            "1 reserve +1000 c2 c3 c4 c5 c6 c7\n"
            "2 start c0 c1\n");
  // In the plain node order the reservation takes the idle nodes first, and
  // job 2 would delay it.
  easy.reserve_busy_nodes = false;
  EXPECT_EQ(c.Plan(jobs, easy),
            "1 reserve +1000 c0 c1 c2 c3 c4 c5\n"
            "2 none\n");
}

TEST(BackfillPlacementTest, AReservationTooBigForTheBusyNodesTakesAsFewIdleOnesAsItCan) {
  // c0 and c1 are idle, c2 and c3 busy until +100. Job 1 needs three nodes
  // at +100: both busy nodes and one idle node, so that job 2 (one node,
  // running past +100) still starts now on the other.
  OneCoreCluster c({0, 0, 100, 100});
  // The same with the nodes listed in an order of their own (the planner
  // then scans them instead of walking its kept order).
  const std::vector<uint32_t> reversed = {3, 2, 1, 0};
  for (const std::vector<uint32_t>* candidates : {&std::as_const(c.all), &reversed}) {
    std::vector<BackfillJob> jobs = {c.Job(1, 3, 1000), c.Job(2, 1, 2000)};
    for (BackfillJob& j : jobs) j.candidates = candidates;
    BackfillParams easy;
    easy.reserve_per_part = 1;
    EXPECT_EQ(c.Plan(jobs, easy),
              "1 reserve +100 c0 c2 c3\n"
              "2 start c1\n");
    easy.reserve_busy_nodes = false;
    EXPECT_EQ(c.Plan(jobs, easy),
              "1 reserve +100 c0 c1 c2\n"
              "2 none\n");
  }
}

TEST_F(BackfillTest, SomeJobMayStartNowComparesWithWhatIsFree) {
  // n0 and n1 are taken: 8 CPUs free.
  EXPECT_FALSE(SomeJobMayStartNow(model_, usage_, {}));
  EXPECT_FALSE(SomeJobMayStartNow(model_, usage_, {Job(1, 4, 500), Job(2, 3, 50)}));
  EXPECT_TRUE(SomeJobMayStartNow(model_, usage_, {Job(1, 4, 500), Job(2, 2, 50)}));
  BackfillJob carried = Job(3, 1, 50);
  carried.carried = true;  // Not tried by the pass
  EXPECT_FALSE(SomeJobMayStartNow(model_, usage_, {Job(1, 4, 500), carried}));
  BackfillJob gpu = Job(4, 1, 50);
  gpu.request.gpus_per_node = 1;  // No node has a GPU
  EXPECT_FALSE(SomeJobMayStartNow(model_, usage_, {gpu}));
  // Everything free: the whole-cluster job may start.
  EXPECT_TRUE(SomeJobMayStartNow(model_, model_.EmptyUsage(), {Job(1, 4, 500)}));
}

TEST(AvailabilityProfileTest, FreeDuringSeesEveryOverlappingHold) {
  ClusterModel m;
  AddNode(m, MakeNode("a", 2, 2, 1000, {{"a100", 2}}, m.gpu_types));
  m.empty_usage = m.EmptyUsage();
  std::vector<NodeUsage> usage = m.EmptyUsage();
  NodeAllocation run{0, {0, 1}, 0x1, 400, 1, false};
  ASSERT_TRUE(Take(m, usage[0], run));
  AvailabilityProfile p(m, usage, 100);
  p.AddRelease(200, Allocation{{run}});
  p.Book(300, 400, Allocation{{NodeAllocation{0, {2}, 0x2, 100, 1, false}}});
  std::vector<NodeUsage> u;

  u = p.FreeDuring(100, 150);  // Running job still there
  EXPECT_EQ(u[0].free_count, 2u);
  EXPECT_EQ(u[0].free_gpus, 0x2u);
  EXPECT_EQ(u[0].free_mem_mb, 600u);
  u = p.FreeDuring(200, 300);  // Released, booking not begun
  EXPECT_EQ(u[0].free_count, 4u);
  EXPECT_EQ(u[0].free_gpus, 0x3u);
  u = p.FreeDuring(250, 350);  // Overlaps the booking
  EXPECT_EQ(u[0].free_count, 3u);
  EXPECT_FALSE(u[0].free_slots.Test(2));
  EXPECT_EQ(u[0].free_gpus, 0x1u);
  EXPECT_EQ(u[0].free_mem_mb, 900u);
  u = p.FreeDuring(150, 350);  // Spans the release: the running job counts
  EXPECT_EQ(u[0].free_count, 1u);
  EXPECT_EQ(u[0].free_gpus, 0u);

  EXPECT_EQ(p.MinTotalsDuring(100, 150).cpus, 2);
  EXPECT_EQ(p.MinTotalsDuring(200, 300).cpus, 4);
  EXPECT_EQ(p.MinTotalsDuring(200, 301).cpus, 3);
  EXPECT_EQ(p.MinTotalsDuring(400, kForever).gpus, 2);
  EXPECT_EQ(p.NextFreeingAfter(100), 200);
  EXPECT_EQ(p.NextFreeingAfter(200), 400);
  EXPECT_EQ(p.NextFreeingAfter(400), kForever);
}

TEST(AvailabilityProfileTest, OpenNodesFollowTheShareAsked) {
  ClusterModel m;
  AddNode(m, MakeNode("a", 1, 8, 1000, {{"a100", 4}}, m.gpu_types));
  AddNode(m, MakeNode("b", 1, 8, 1000, {{"a100", 4}}, m.gpu_types));
  m.empty_usage = m.EmptyUsage();
  std::vector<NodeUsage> usage = m.EmptyUsage();
  NodeAllocation run{0, {0, 1, 2, 3, 4, 5}, 0x7, 0, 1, false};
  ASSERT_TRUE(Take(m, usage[0], run));
  AvailabilityProfile p(m, usage, 0);
  p.AddRelease(100, Allocation{{run}});
  p.FreeDuring(0, 10, 3, {2, 1});  // a: 2 cores and 1 GPU free
  EXPECT_EQ(p.OpenCount(3), 2u);
  p.FreeDuring(0, 10, 3, {4, 1});  // The same view for a bigger share
  EXPECT_EQ(p.OpenCount(3), 1u);
  EXPECT_FALSE(p.IsOpen(3, 0));
  EXPECT_TRUE(p.IsOpen(3, 1));
  p.FreeDuring(100, 110, 3, {4, 1});  // a is free again
  EXPECT_EQ(p.OpenCount(3), 2u);
  std::vector<uint32_t> open;
  p.OpenNodes(3, p.NodeBits({1}), open);
  EXPECT_EQ(open, (std::vector<uint32_t>{1}));
}

TEST(AvailabilityProfileTest, IncrementalAnswersEqualFreshOnes) {
  // FreeDuring brings its last answer up to date; a fresh profile with the
  // same holds computes every node. Random holds and questions must agree.
  ClusterModel m;
  for (int i = 0; i < 6; ++i) {
    AddNode(m, MakeNode("n" + std::to_string(i), 1, 8, 1000, {{"a100", 4}}, m.gpu_types));
  }
  m.empty_usage = m.EmptyUsage();
  std::mt19937 rng(3);
  struct Hold {
    int64_t start, end;
    NodeAllocation a;
  };
  std::vector<Hold> releases;
  std::vector<NodeUsage> base = m.EmptyUsage();
  for (uint32_t n = 0; n < 6; ++n) {
    NodeAllocation a{n, {0, 1, 2}, 0x1, 100, 1, false};
    ASSERT_TRUE(Take(m, base[n], a));
    releases.push_back({0, 10 + static_cast<int64_t>(rng() % 50), a});
  }
  AvailabilityProfile incremental(m, base, 0);
  for (const Hold& r : releases) incremental.AddRelease(r.end, Allocation{{r.a}});
  std::vector<Hold> bookings;
  for (int step = 0; step < 200; ++step) {
    if (rng() % 3 == 0) {
      uint32_t n = rng() % 6;
      int64_t s = rng() % 80;
      Hold b{s, s + 1 + static_cast<int64_t>(rng() % 30),
             NodeAllocation{n, {3 + static_cast<uint32_t>(rng() % 5)}, 0, 10, 1, false}};
      incremental.Book(b.start, b.end, Allocation{{b.a}});
      bookings.push_back(b);
    }
    int64_t s = rng() % 90;
    int64_t e = rng() % 4 == 0 ? kForever : s + 1 + static_cast<int64_t>(rng() % 40);
    std::vector<NodeUsage> got = incremental.FreeDuring(s, e);
    AvailabilityProfile fresh(m, base, 0);
    for (const Hold& r : releases) fresh.AddRelease(r.end, Allocation{{r.a}});
    for (const Hold& b : bookings) fresh.Book(b.start, b.end, Allocation{{b.a}});
    const std::vector<NodeUsage>& want = fresh.FreeDuring(s, e);
    for (uint32_t n = 0; n < 6; ++n) {
      ASSERT_EQ(got[n].free_slots, want[n].free_slots) << "step " << step << " node " << n;
      ASSERT_EQ(got[n].free_gpus, want[n].free_gpus) << "step " << step;
      ASSERT_EQ(got[n].free_mem_mb, want[n].free_mem_mb) << "step " << step;
    }
  }
}

}  // namespace
}  // namespace rota::sched
