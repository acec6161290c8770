// The main pass's order and blocking, with made-up facts: a job that does not
// fit holds back its partition (not others, which keep off its nodes; and
// when it is a reservation's, only that reservation's jobs); held jobs hold back no one; a job with
// held nodes is tried anyway; an array starts tasks until one does not fit or may not start.

#include "sched/main_pass.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace rota::sched {
namespace {

// Each job's facts, and a log of what the pass did.
class FakeActions final : public MainPassActions {
 public:
  struct Facts {
    model::PendingReason held;  // What Hold answers
    bool gone = false;          // Hold ends the job
    uint32_t fits = 1;          // Starts that fit now; then `misfit`
    model::PendingReason misfit = model::reason::kResources;
    uint32_t tasks = 1;       // An array's pending tasks
    uint32_t task_limit = 0;  // Tasks that may start in this pass; 0: no limit
    bool pinned = false;      // It named every node it needs (-w)
  };
  std::map<uint32_t, Facts> facts;
  std::vector<std::string> log;
  std::vector<uint32_t> keep_off;           // The partitions KeepOff was called for
  std::vector<uint32_t> keep_off_nodes_of;  // The pinned jobs KeepOff was called for
  std::vector<uint32_t> kept_off;           // The jobs tried off the held-back partitions' nodes

  model::PendingReason Hold(const MainPassJob& job, bool* gone) override {
    *gone = facts[job.id].gone;
    return facts[job.id].held;
  }
  NextStart Next(const MainPassJob& job, uint32_t started, model::PendingReason* reason) override {
    const Facts& f = facts[job.id];
    if (started >= f.tasks) return NextStart::kDone;
    if (f.task_limit > 0 && started >= f.task_limit) {
      *reason = model::reason::kJobArrayTaskLimit;
      return NextStart::kHeld;
    }
    return NextStart::kTry;
  }
  bool TryStart(const MainPassJob& job, bool keep_off, model::PendingReason* reason) override {
    if (keep_off) kept_off.push_back(job.id);
    Facts& f = facts[job.id];
    if (f.fits == 0) {
      *reason = f.misfit;
      return false;
    }
    --f.fits;
    log.push_back("start " + std::to_string(job.id));
    return true;
  }
  void NoFit(const MainPassJob& job) override { log.push_back("nofit " + std::to_string(job.id)); }
  bool Pinned(const MainPassJob& job) override { return facts[job.id].pinned; }
  void KeepOff(const MainPassJob& job, bool pinned) override {
    (pinned ? keep_off_nodes_of : keep_off).push_back(pinned ? job.id : job.partition);
  }
  void Wait(const MainPassJob& job, const model::PendingReason& reason) override {
    log.push_back(std::to_string(job.id) + " " + reason.text());
  }
};

MainPassJob Job(uint32_t id, uint32_t partition) {
  MainPassJob j;
  j.id = id;
  j.partition = partition;
  return j;
}

TEST(MainPassTest, AMisfitHoldsBackItsPartitionOnly) {
  FakeActions a;
  a.facts[2].fits = 0;
  std::vector<MainPassJob> queue = {Job(1, 0), Job(2, 0), Job(3, 1), Job(4, 0)};
  RunMainPass(queue, a);
  EXPECT_EQ(a.log, (std::vector<std::string>{"start 1", "nofit 2", "2 Resources", "start 3",
                                             "4 Priority"}));
}

// Slurm's main pass: once a partition is held back, jobs of other partitions
// are placed off its nodes (an overlapping partition's job must not take what
// the blocked job waits for); a job with nodes held for it, or a
// reservation's, is placed where it was given. One KeepOff per partition.
TEST(MainPassTest, AfterAMisfitOtherPartitionsKeepOffItsNodes) {
  FakeActions a;
  a.facts[2].fits = 0;
  a.facts[5].fits = 0;
  std::vector<MainPassJob> queue = {Job(1, 1), Job(2, 0), Job(3, 1), Job(4, 1),
                                    Job(5, 0), Job(6, 2), Job(7, 0)};
  queue[3].holds_nodes = true;
  queue[4].holds_nodes = true;  // Tried behind its blocked partition, and does not fit either
  queue[5].in_reservation = true;
  RunMainPass(queue, a);
  EXPECT_EQ(a.log,
            (std::vector<std::string>{"start 1", "nofit 2", "2 Resources", "start 3", "start 4",
                                      "nofit 5", "5 Resources", "start 6", "7 Priority"}));
  EXPECT_EQ(a.keep_off, (std::vector<uint32_t>{0}));
  EXPECT_EQ(a.kept_off, (std::vector<uint32_t>{3}));
}

// bf_min_age_reserve, bf_min_prio_reserve: a job that may not reserve
// waits (Resources) but holds back no one, in its partition or elsewhere.
TEST(MainPassTest, AJobThatMayNotReserveHoldsBackNoOne) {
  FakeActions a;
  a.facts[1].fits = 0;
  std::vector<MainPassJob> queue = {Job(1, 0), Job(2, 0), Job(3, 1)};
  queue[0].may_reserve = false;
  RunMainPass(queue, a);
  EXPECT_EQ(a.log, (std::vector<std::string>{"nofit 1", "1 Resources", "start 2", "start 3"}));
  EXPECT_TRUE(a.keep_off.empty());
  EXPECT_TRUE(a.kept_off.empty());
}

// sched_max_job_start ends the pass with its Nth start (an array's tasks
// count one each); partition_job_depth leaves a partition's jobs past the
// Nth untouched. The jobs left out keep their reasons (no Wait).
TEST(MainPassTest, MaxStartsAndPartitionDepthBoundThePass) {
  FakeActions a;
  a.facts[2].tasks = 3;
  a.facts[2].fits = 3;
  std::vector<MainPassJob> queue = {Job(1, 0), Job(2, 0), Job(3, 0), Job(4, 1)};
  queue[1].array = true;
  RunMainPass(queue, a, {.max_starts = 3});
  EXPECT_EQ(a.log, (std::vector<std::string>{"start 1", "start 2", "start 2"}));

  FakeActions b;
  std::vector<MainPassJob> deep = {Job(1, 0), Job(2, 1), Job(3, 0), Job(4, 0), Job(5, 1)};
  RunMainPass(deep, b, {.partition_depth = 2});
  EXPECT_EQ(b.log, (std::vector<std::string>{"start 1", "start 2", "start 3", "start 5"}));
}

TEST(MainPassTest, HeldAndEndedJobsHoldBackNoOne) {
  FakeActions a;
  a.facts[1].held = model::reason::kBeginTime;
  a.facts[2].held = model::PendingReason("QOSMaxJobsPerUserLimit");
  a.facts[3].gone = true;
  std::vector<MainPassJob> queue = {Job(1, 0), Job(2, 0), Job(3, 0), Job(4, 0)};
  RunMainPass(queue, a);
  EXPECT_EQ(a.log,
            (std::vector<std::string>{"1 BeginTime", "2 QOSMaxJobsPerUserLimit", "start 4"}));
}

TEST(MainPassTest, HeldNodesAndReservationsAroundABlockedPartition) {
  FakeActions a;
  a.facts[1].fits = 0;
  a.facts[3].fits = 0;
  std::vector<MainPassJob> queue = {Job(1, 0), Job(2, 0), Job(3, 1), Job(4, 1)};
  queue[1].holds_nodes = true;     // Displaced jobs for it: tried behind job 1
  queue[2].in_reservation = true;  // Its misfit holds back no one
  RunMainPass(queue, a);
  EXPECT_EQ(a.log, (std::vector<std::string>{"nofit 1", "1 Resources", "start 2", "nofit 3",
                                             "3 Resources", "start 4"}));
}

// As in Slurm: a blocked partition does not hold back a reservation's job;
// a reservation's misfit holds back the later jobs of that reservation.
TEST(MainPassTest, AReservationsJobsAreHeldBackByTheirReservation) {
  FakeActions a;
  a.facts[1].fits = 0;
  a.facts[3].fits = 0;
  std::vector<MainPassJob> queue = {Job(1, 0), Job(2, 0), Job(3, 0),
                                    Job(4, 0), Job(5, 0), Job(6, 0)};
  for (size_t i : {1, 2, 3, 4}) queue[i].in_reservation = true;
  queue[1].reservation = 0;
  queue[2].reservation = 1;
  queue[3].reservation = 1;
  queue[4].reservation = 0;
  RunMainPass(queue, a);
  EXPECT_EQ(a.log,
            (std::vector<std::string>{"nofit 1", "1 Resources", "start 2", "nofit 3", "3 Resources",
                                      "4 Priority", "start 5", "6 Priority"}));
  EXPECT_TRUE(a.kept_off.empty());  // A reservation's job runs where it was given
}

// Preemption acts only for a want of resources; and, as in Slurm, a job that
// waits for nodes that are down, or whose request its partition cannot take,
// holds back no one (Slurm blocks a partition only when its nodes are busy).
TEST(MainPassTest, OnlyAWantOfResourcesLetsPreemptionActAndHoldsBackOthers) {
  FakeActions a;
  a.facts[1].fits = 0;
  a.facts[1].misfit =
      model::PendingReason::WithDetail(model::reason::kReqNodeNotAvail, "UnavailableNodes:n1");
  a.facts[3].fits = 0;
  a.facts[3].misfit = model::reason::kPartitionConfig;
  a.facts[5].fits = 0;
  a.facts[5].misfit = model::reason::kReservedForMaintenance;
  std::vector<MainPassJob> queue = {Job(1, 0), Job(2, 0), Job(3, 0),
                                    Job(4, 0), Job(5, 0), Job(6, 0)};
  RunMainPass(queue, a);
  EXPECT_EQ(a.log, (std::vector<std::string>{
                       "1 ReqNodeNotAvail, UnavailableNodes:n1", "start 2", "3 PartitionConfig",
                       "start 4", "5 ReqNodeNotAvail, Reserved for maintenance", "6 Priority"}));
  EXPECT_EQ(a.keep_off, (std::vector<uint32_t>{0}));  // Once, for job 5
}

// A job that named every node it needs (-w) and does not fit blocks no
// partition: only its nodes are kept off for the jobs after it.
TEST(MainPassTest, APinnedMisfitKeepsItsNodesOffNotItsPartition) {
  FakeActions a;
  a.facts[1].fits = 0;
  a.facts[1].pinned = true;
  std::vector<MainPassJob> queue = {Job(1, 0), Job(2, 0), Job(3, 1)};
  RunMainPass(queue, a);
  EXPECT_EQ(a.log, (std::vector<std::string>{"nofit 1", "1 Resources", "start 2", "start 3"}));
  EXPECT_TRUE(a.keep_off.empty());
  EXPECT_EQ(a.keep_off_nodes_of, (std::vector<uint32_t>{1}));
  EXPECT_EQ(a.kept_off, (std::vector<uint32_t>{2, 3}));
}

TEST(MainPassTest, AnArrayStartsWhatFitsAndWhatItsLimitAllows) {
  FakeActions a;
  a.facts[1].fits = 2;  // Two of five fit; the third blocks the partition
  a.facts[1].tasks = 5;
  a.facts[2].fits = 9;  // All three tasks start: done
  a.facts[2].tasks = 3;
  a.facts[3].fits = 9;  // Its task limit holds it, and holds back no one
  a.facts[3].tasks = 5;
  a.facts[3].task_limit = 1;
  std::vector<MainPassJob> queue = {Job(1, 0), Job(2, 1), Job(3, 1), Job(4, 0)};
  for (MainPassJob& j : queue) j.array = j.id != 4;
  RunMainPass(queue, a);
  EXPECT_EQ(a.log, (std::vector<std::string>{"start 1", "start 1", "nofit 1", "1 Resources",
                                             "start 2", "start 2", "start 2", "start 3",
                                             "3 JobArrayTaskLimit", "4 Priority"}));
}

}  // namespace
}  // namespace rota::sched
