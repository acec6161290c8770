// rota why in the controller core: every cause that holds a pending job, with
// the numbers, the jobs ahead, dependencies, limits and the planned start.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "ctld/core/core_test_fixture.h"
#include "ctld/core/policy_entity_for_test.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

class WhyReportTest : public testing::CoreTest {
 protected:
  void StartCluster(const std::string& extra = "") {
    Start(
        "SlurmdTimeout=0\nGresTypes=gpu\nPriorityType=priority/multifactor\n"
        "PriorityWeightAge=1000\nPriorityMaxAge=1-0\n" +
        extra +
        "NodeName=n[1-2] CPUs=4 RealMemory=16000 Gres=gpu:a100:2\n"
        "NodeName=n3 CPUs=4 RealMemory=16000\n"
        "PartitionName=gpu Nodes=n[1-3] Default=YES MaxTime=1-00:00:00 "
        "DefaultTime=1:00:00\n");
  }
  uint32_t Submit(const Caller& who, uint32_t tasks, const std::string& gres, int64_t minutes,
                  const std::string& dependency = "") {
    return SubmitOkAs(who, [&](wire::JobSpec& s) {
      s.set_num_tasks(tasks);
      s.set_min_nodes(1);
      s.set_gres(gres);
      s.set_time_limit_s(minutes * 60);
      s.set_dependency(dependency);
      s.set_script("#!/bin/sh\ntrue\n");
    });
  }
  // bob's two running jobs: both GPUs of one node for an hour, and `gres`
  // on the other for `minutes`. Their ids.
  std::pair<uint32_t, uint32_t> BusyGpuNodes(const std::string& gres, int64_t minutes) {
    uint32_t a = Submit(bob_, 1, "gpu:a100:2", 60);
    uint32_t b = Submit(bob_, 1, gres, minutes);
    Tick();
    EXPECT_EQ(Job(a).state(), wire::JOB_STATE_RUNNING);
    EXPECT_EQ(Job(b).state(), wire::JOB_STATE_RUNNING);
    return {a, b};
  }
  // bob's job on one node's GPUs for an hour, his two-node job (in
  // `wide_partition`, "" for the default) that must wait for it, and then
  // alice's two-hour job that fits on the other node now: all three ids.
  struct BehindAPlan {
    uint32_t running, wide, later;
  };
  BehindAPlan LaterJobBehindAWideOne(const std::string& wide_partition = "") {
    const uint32_t running = Submit(bob_, 1, "gpu:a100:2", 60);
    Tick();
    EXPECT_EQ(Job(running).state(), wire::JOB_STATE_RUNNING);
    const uint32_t wide = SubmitOkAs(bob_, [&](wire::JobSpec& s) {
      s.set_partition(wide_partition);
      s.set_num_tasks(2);
      s.set_min_nodes(2);
      s.set_gres("gpu:a100:2");
      s.set_time_limit_s(30 * 60);
      s.set_script("#!/bin/sh\ntrue\n");
    });
    now_ += 60;
    const uint32_t later = Submit(alice_, 1, "gpu:a100:2", 120);
    Tick();
    EXPECT_EQ(Job(wide).state(), wire::JOB_STATE_PENDING);
    EXPECT_EQ(Job(later).state(), wire::JOB_STATE_PENDING);
    return {running, wide, later};
  }
  wire::WhyResponse Why(uint32_t id) {
    Result<wire::WhyResponse> why = core_->ExplainJob(id, now_);
    EXPECT_TRUE(why.ok()) << why.status().message();
    return why.ok() ? *why : wire::WhyResponse();
  }
  static const wire::WhyCause* Cause(const wire::WhyResponse& why, std::string_view code) {
    for (const wire::WhyCause& c : why.causes()) {
      if (c.code() == code) return &c;
    }
    return nullptr;
  }
  static std::string Causes(const wire::WhyResponse& why) {
    std::string all;
    for (const wire::WhyCause& c : why.causes()) all += c.code() + ": " + c.text() + "\n";
    return all;
  }
};

TEST_F(WhyReportTest, ResourcesNameTheNodesThePlanAndTheJobWhoseEndItAwaits) {
  StartCluster();
  // Both GPU nodes busy (2 GPUs each), then a job wanting 2 GPUs.
  const uint32_t b = BusyGpuNodes("gpu:a100:2", 30).second;
  uint32_t c = Submit(alice_, 1, "gpu:a100:2", 10);
  Tick();
  ASSERT_EQ(Job(c).state(), wire::JOB_STATE_PENDING);
  wire::WhyResponse why = Why(c);
  EXPECT_EQ(why.state(), "PENDING");
  EXPECT_EQ(why.reason(), "Resources");
  EXPECT_EQ(why.request(), "1 node, 1 task of 1 CPU, 2 GPUs of type a100 per node");
  const wire::WhyCause* res = Cause(why, "Resources");
  ASSERT_NE(res, nullptr) << Causes(why);
  EXPECT_TRUE(res->reported());
  // n3 has no GPU: it could never hold the job; n1 and n2 could when idle.
  EXPECT_NE(res->text().find("0 of the 3 nodes of partition gpu have its share of one node free"),
            std::string::npos)
      << res->text();
  ASSERT_EQ(why.nodes_size(), 3);
  EXPECT_FALSE(why.nodes(2).fits_when_idle());
  EXPECT_TRUE(why.nodes(0).fits_when_idle());
  EXPECT_FALSE(why.nodes(0).fits_now());
  EXPECT_EQ(why.nodes(0).free_gpus(), 0u);
  EXPECT_EQ(why.nodes(2).free_cpus(), 4u);
  // The backfill plan: b's node frees first, at its time limit.
  EXPECT_EQ(why.planned_start(), kT0 + 30 * 60);
  ASSERT_GE(why.releases_size(), 1);
  EXPECT_EQ(why.releases(0).job_id(), b);
  EXPECT_EQ(why.releases(0).time(), kT0 + 30 * 60);
  EXPECT_NE(res->text().find(fmt::format("when job {} reaches its time limit", b)),
            std::string::npos)
      << res->text();
  EXPECT_NE(res->text().find("plans it to start in 30 min"), std::string::npos) << res->text();
}

TEST_F(WhyReportTest, JobsAheadAreRankedWithTheirPriorities) {
  StartCluster();
  BusyGpuNodes("gpu:a100:2", 60);
  uint32_t first = Submit(bob_, 1, "gpu:a100:2", 10);
  now_ += 600;  // Older: more age priority
  uint32_t second = Submit(alice_, 1, "gpu:a100:2", 10);
  now_ += 60;
  Tick();
  wire::WhyResponse why = Why(second);
  EXPECT_EQ(why.rank(), 2u);
  EXPECT_EQ(why.queued(), 2u);
  ASSERT_EQ(why.ahead_size(), 1);
  EXPECT_EQ(why.ahead(0).job_id(), first);
  EXPECT_EQ(why.ahead(0).user(), "bob");
  EXPECT_NE(why.ahead(0).factors().find("age="), std::string::npos) << why.ahead(0).factors();
  EXPECT_GT(why.ahead(0).priority(), why.priority());
  const wire::WhyCause* prio = Cause(why, "Priority");
  ASSERT_NE(prio, nullptr) << Causes(why);
  EXPECT_NE(prio->text().find(fmt::format("the nearest is job {} of bob", first)),
            std::string::npos)
      << prio->text();
  // The first in line has nobody ahead.
  EXPECT_EQ(Why(first).rank(), 1u);
  EXPECT_EQ(Cause(Why(first), "Priority"), nullptr);
}

// bf_min_age_reserve: a job ahead that is too young to reserve holds back no
// one (the main pass goes past it), so it is not ahead until it is old enough.
TEST_F(WhyReportTest, AJobAheadTooYoungToReserveIsNotAhead) {
  StartCluster("SchedulerParameters=bf_min_age_reserve=1200\n");
  BusyGpuNodes("gpu:a100:2", 60);
  const uint32_t first = Submit(bob_, 1, "gpu:a100:2", 10);
  now_ += 600;  // Older: more age priority, but not old enough to reserve
  const uint32_t second = Submit(alice_, 1, "gpu:a100:2", 10);
  Tick();
  ASSERT_GT(Job(first).priority(), Job(second).priority());
  wire::WhyResponse why = Why(second);
  EXPECT_EQ(why.rank(), 1u);
  EXPECT_EQ(why.ahead_size(), 0);
  EXPECT_EQ(Cause(why, "Priority"), nullptr) << Causes(why);
  now_ += 700;  // 1,300 s: old enough; the running jobs hold the GPUs for an hour
  Tick();
  ASSERT_EQ(Job(first).state(), wire::JOB_STATE_PENDING);
  why = Why(second);
  EXPECT_EQ(why.rank(), 2u);
  ASSERT_EQ(why.ahead_size(), 1);
  EXPECT_EQ(why.ahead(0).job_id(), first);
}

// A job ahead that named every node it needs (-w) holds back no one but the
// users of its nodes (the main pass keeps only those off): not ahead.
TEST_F(WhyReportTest, AJobAheadPinnedToItsNodesIsNotAhead) {
  StartCluster();
  BusyGpuNodes("gpu:a100:2", 60);
  const uint32_t full = SubmitOkAs(bob_, [&](wire::JobSpec& s) {
    s.set_num_tasks(4);
    s.set_nodelist("n3");
    s.set_time_limit_s(3600);
    s.set_script("#!/bin/sh\ntrue\n");
  });
  Tick();
  ASSERT_EQ(Job(full).state(), wire::JOB_STATE_RUNNING);
  const uint32_t pinned = SubmitOkAs(bob_, [&](wire::JobSpec& s) {
    s.set_num_tasks(1);
    s.set_nodelist("n3");
    s.set_time_limit_s(600);
    s.set_script("#!/bin/sh\ntrue\n");
  });
  now_ += 600;  // Older: more age priority
  const uint32_t later = Submit(alice_, 1, "gpu:a100:2", 10);
  Tick();
  ASSERT_EQ(Job(pinned).state(), wire::JOB_STATE_PENDING);
  ASSERT_GT(Job(pinned).priority(), Job(later).priority());
  wire::WhyResponse why = Why(later);
  EXPECT_EQ(why.rank(), 1u);
  EXPECT_EQ(why.ahead_size(), 0);
  EXPECT_EQ(Cause(why, "Priority"), nullptr) << Causes(why);
}

// A reservation's job is ranked among its reservation's jobs: the jobs of
// its partition outside it do not hold it back, nor it them.
TEST_F(WhyReportTest, AReservationsJobIsRankedInItsReservation) {
  StartCluster();
  BusyGpuNodes("gpu:a100:2", 60);
  wire::ReservationRequest r;
  r.set_name("r");
  r.set_start_time(now_);
  r.set_duration_s(7200);
  r.set_nodes("n[1-2]");
  r.add_users("alice");
  r.set_flags(wire::RESV_FLAG_IGNORE_JOBS);
  for (const char* g : {"starttime", "duration", "nodes", "users", "flags"}) r.add_given(g);
  Effects e;
  ASSERT_TRUE(core_->CreateReservation(r, root_, now_, e).ok());
  const uint32_t outside = Submit(bob_, 1, "gpu:a100:2", 10);
  now_ += 60;
  const uint32_t in1 = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
    s.set_num_tasks(1);
    s.set_gres("gpu:a100:2");
    s.set_time_limit_s(600);
    s.set_reservation("r");
    s.set_script("#!/bin/sh\ntrue\n");
  });
  now_ += 60;
  const uint32_t in2 = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
    s.set_num_tasks(1);
    s.set_gres("gpu:a100:2");
    s.set_time_limit_s(600);
    s.set_reservation("r");
    s.set_script("#!/bin/sh\ntrue\n");
  });
  Tick();
  ASSERT_EQ(Job(in1).state(), wire::JOB_STATE_PENDING);
  ASSERT_EQ(Job(in2).state(), wire::JOB_STATE_PENDING);
  wire::WhyResponse why = Why(in1);
  EXPECT_EQ(why.rank(), 1u) << Causes(why);
  EXPECT_EQ(why.queued(), 2u);
  why = Why(in2);
  EXPECT_EQ(why.rank(), 2u);
  ASSERT_EQ(why.ahead_size(), 1);
  EXPECT_EQ(why.ahead(0).job_id(), in1);
  const wire::WhyCause* prio = Cause(why, "Priority");
  ASSERT_NE(prio, nullptr) << Causes(why);
  EXPECT_NE(prio->text().find("1 pending job of reservation r is ahead of it (it is 2 of 2)"),
            std::string::npos)
      << prio->text();
  // And the job outside counts none of them.
  EXPECT_EQ(Why(outside).queued(), 1u);
}

// A job ahead that waits for its own dependency holds back no one (the pass
// skips it): the job behind it is first in line, with no Priority cause.
TEST_F(WhyReportTest, AJobAheadHeldByItsOwnDependencyIsNotAhead) {
  StartCluster();
  const uint32_t running = BusyGpuNodes("gpu:a100:2", 60).first;
  uint32_t waiting = Submit(bob_, 1, "gpu:a100:2", 10, fmt::format("afterok:{}", running));
  now_ += 600;  // Older: more age priority
  uint32_t later = Submit(alice_, 1, "gpu:a100:2", 10);
  now_ += 60;
  Tick();
  ASSERT_EQ(Job(waiting).reason(), "Dependency");
  ASSERT_GT(Job(waiting).priority(), Job(later).priority());
  wire::WhyResponse why = Why(later);
  EXPECT_EQ(why.reason(), "Resources");
  EXPECT_EQ(why.rank(), 1u);
  EXPECT_EQ(why.queued(), 1u);
  EXPECT_EQ(why.ahead_size(), 0);
  EXPECT_EQ(Cause(why, "Priority"), nullptr) << Causes(why);
}

// A job that fits on what is free now but would run into the plan of a job
// ahead: the Priority cause names the node held, for which job, from when,
// and its own time limit that would run past it.
TEST_F(WhyReportTest, AJobThatFitsNowIsToldWhichPlanHoldsTheNodes) {
  StartCluster();
  const auto [running, wide, later] = LaterJobBehindAWideOne();
  ASSERT_FALSE(HasFailure());
  wire::WhyResponse why = Why(later);
  const wire::WhyCause* prio = Cause(why, "Priority");
  ASSERT_NE(prio, nullptr) << Causes(why);
  const std::string other_node = Job(running).nodes(0) == "n1" ? "n2" : "n1";
  EXPECT_NE(prio->text().find(fmt::format(
                "it fits on what is free now ({}), but the last backfill pass holds {} for job "
                "{}, planned to start in 59 min, and its time limit of 02:00:00 would run past "
                "that",
                other_node, other_node, wide)),
            std::string::npos)
      << prio->text();
  // The job ahead of it has no such words: nothing is free for it now.
  EXPECT_EQ(Cause(Why(wide), "Priority"), nullptr);
}

// The plan that holds the free node belongs to a job of a higher-tier
// partition over the same nodes: the job is first of its own partition, and
// is still told whose plan holds the node.
TEST_F(WhyReportTest, APlanOfAnOverlappingPartitionIsNamedToo) {
  Start(
      "SlurmdTimeout=0\nGresTypes=gpu\nPriorityType=priority/multifactor\n"
      "PriorityWeightAge=1000\nPriorityMaxAge=1-0\n"
      "NodeName=n[1-2] CPUs=4 RealMemory=16000 Gres=gpu:a100:2\n"
      "PartitionName=gpu Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 PriorityTier=1\n"
      "PartitionName=high Nodes=n[1-2] MaxTime=1-00:00:00 PriorityTier=2\n");
  const auto [running, wide, later] = LaterJobBehindAWideOne("high");
  ASSERT_FALSE(HasFailure());
  wire::WhyResponse why = Why(later);
  EXPECT_EQ(why.rank(), 1u);
  EXPECT_EQ(why.queued(), 1u);
  const wire::WhyCause* prio = Cause(why, "Priority");
  ASSERT_NE(prio, nullptr) << Causes(why);
  const std::string other_node = Job(running).nodes(0) == "n1" ? "n2" : "n1";
  EXPECT_NE(prio->text().find(fmt::format(
                "it is first of partition gpu's 1 pending job, but jobs of other partitions "
                "sharing its nodes come before it; it fits on what is free now ({}), but the "
                "last backfill pass holds {} for job {} (partition high), planned to start in "
                "59 min",
                other_node, other_node, wide)),
            std::string::npos)
      << prio->text();
}

// -w n3 while n3 is full: only n3 could hold it, whatever is free elsewhere.
TEST_F(WhyReportTest, AJobBoundToItsNodelistIsMeasuredOnThoseNodesOnly) {
  StartCluster();
  const uint32_t full = SubmitOkAs(bob_, [&](wire::JobSpec& s) {
    s.set_num_tasks(4);
    s.set_nodelist("n3");
    s.set_time_limit_s(3600);
    s.set_script("#!/bin/sh\ntrue\n");
  });
  const uint32_t bound = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
    s.set_num_tasks(1);
    s.set_nodelist("n3");
    s.set_time_limit_s(600);
    s.set_script("#!/bin/sh\ntrue\n");
  });
  Tick();
  ASSERT_EQ(Job(full).state(), wire::JOB_STATE_RUNNING);
  ASSERT_EQ(Job(bound).state(), wire::JOB_STATE_PENDING);
  wire::WhyResponse why = Why(bound);
  const wire::WhyCause* res = Cause(why, "Resources");
  ASSERT_NE(res, nullptr) << Causes(why);
  EXPECT_NE(res->text().find("0 of the 3 nodes of partition gpu have its share of one node free "
                             "now; it must run on n3 (--nodelist)"),
            std::string::npos)
      << res->text();
  ASSERT_EQ(why.nodes_size(), 3);
  EXPECT_FALSE(why.nodes(0).fits_now());  // n1 is free, but not on its list
  EXPECT_FALSE(why.nodes(0).fits_when_idle());
  EXPECT_TRUE(why.nodes(2).fits_when_idle());
  EXPECT_FALSE(why.nodes(2).fits_now());
}

TEST_F(WhyReportTest, EveryCauseIsNamedNotOnlyTheFirst) {
  StartCluster();
  uint32_t a = Submit(bob_, 1, "gpu:a100:2", 60);
  Tick();
  // Waits for a to succeed, and may not begin for two hours.
  uint32_t d = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
    s.set_num_tasks(1);
    s.set_time_limit_s(600);
    s.set_dependency(fmt::format("afterok:{}", a));
    s.set_begin_time(now_ + 7200);
    s.set_script("#!/bin/sh\ntrue\n");
  });
  Tick();
  wire::WhyResponse why = Why(d);
  const wire::WhyCause* begin = Cause(why, "BeginTime");
  ASSERT_NE(begin, nullptr) << Causes(why);
  EXPECT_TRUE(begin->reported());
  EXPECT_NE(begin->text().find("in 2 h 0 min"), std::string::npos) << begin->text();
  const wire::WhyCause* dep = Cause(why, "Dependency");
  ASSERT_NE(dep, nullptr) << Causes(why);
  EXPECT_FALSE(dep->reported());
  ASSERT_EQ(why.dependencies_size(), 1);
  EXPECT_EQ(why.dependencies(0).term(), fmt::format("afterok:{}", a));
  EXPECT_EQ(why.dependencies(0).state(), "waiting");
  ASSERT_EQ(why.dependencies(0).jobs_size(), 1);
  EXPECT_EQ(why.dependencies(0).jobs(0), fmt::format("{} RUNNING", a));
}

TEST_F(WhyReportTest, AHeldJobSaysHowToReleaseIt) {
  StartCluster();
  uint32_t j = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
    s.set_num_tasks(1);
    s.set_hold(true);
    s.set_script("#!/bin/sh\ntrue\n");
  });
  Tick();
  wire::WhyResponse why = Why(j);
  const wire::WhyCause* held = Cause(why, "JobHeldUser");
  ASSERT_NE(held, nullptr) << Causes(why);
  EXPECT_TRUE(held->reported());
  EXPECT_NE(held->text().find(fmt::format("scontrol release {}", j)), std::string::npos);
  EXPECT_EQ(why.rank(), 0u);  // Not in the queue while held
}

TEST_F(WhyReportTest, ALimitIsShownWithWhatIsUsedAndTheMaximum) {
  StartCluster("AccountingStorageEnforce=limits,qos\nAccountingStorageTRES=gres/gpu\n");
  wire::PolicyState policy;
  auto add = [&](const std::string& kind, const std::string& name,
                 const std::map<std::string, std::string>& fields) {
    testing::AddPolicyEntity(policy, kind, name, fields);
  };
  add("account", "a", {});
  add("user", "alice", {{"DefaultAccount", "a"}});
  add("assoc", "a|alice", {{"Account", "a"}, {"User", "alice"}});
  add("qos", "normal", {{"GrpTRES", "gres/gpu=2"}});
  Effects e;
  core_->SetPolicy(policy, e);
  uint32_t a = Submit(alice_, 1, "gpu:a100:2", 60);
  uint32_t b = Submit(alice_, 1, "gpu:a100:1", 60);
  Tick();
  ASSERT_EQ(Job(a).state(), wire::JOB_STATE_RUNNING);
  ASSERT_EQ(Job(b).state(), wire::JOB_STATE_PENDING) << Job(b).reason();
  wire::WhyResponse why = Why(b);
  EXPECT_EQ(why.reason(), "QOSGrpGRES");
  ASSERT_EQ(why.limits_size(), 1);
  EXPECT_EQ(why.limits(0).holder(), "QOS normal");
  EXPECT_EQ(why.limits(0).limit(), "GrpTRES");
  EXPECT_EQ(why.limits(0).tres(), "gres/gpu");
  EXPECT_EQ(why.limits(0).used(), 2);
  EXPECT_EQ(why.limits(0).asked(), 1);
  EXPECT_EQ(why.limits(0).max(), 2);
  const wire::WhyCause* limit = Cause(why, "QOSGrpGRES");
  ASSERT_NE(limit, nullptr) << Causes(why);
  EXPECT_TRUE(limit->reported());
  EXPECT_EQ(limit->text(),
            "GrpTRES=gres/gpu of QOS normal: running jobs hold 2, this job adds 1, the limit is 2");
}

TEST_F(WhyReportTest, WhatIfFindsTheShorterLimitAndTheFewerGpusThatStartItNow) {
  StartCluster();
  // n1: both GPUs for an hour; n2: one GPU for half an hour.
  BusyGpuNodes("gpu:a100:1", 30);
  // First in line: n2 whole, reserved from +30 min. Then c (one GPU for an
  // hour) and d (two GPUs for ten minutes) wait, though n2 has a GPU free
  // until then.
  uint32_t top = Submit(alice_, 1, "gpu:a100:2", 60);
  uint32_t c = Submit(alice_, 1, "gpu:a100:1", 60);
  uint32_t d = Submit(alice_, 1, "gpu:a100:2", 10);
  Tick();
  ASSERT_EQ(Job(top).sched_start_time(), kT0 + 30 * 60);
  ASSERT_EQ(Job(c).state(), wire::JOB_STATE_PENDING);
  ASSERT_EQ(Job(d).state(), wire::JOB_STATE_PENDING);

  wire::WhyResponse why = Why(c);
  EXPECT_EQ(why.what_if_start(), Job(c).sched_start_time());
  ASSERT_GE(why.options_size(), 1);
  // Half its limit ends as the reservation begins: it starts now.
  EXPECT_EQ(why.options(0).change(), "--time=30");
  EXPECT_EQ(why.options(0).what(), "a time limit of 00:30:00");
  EXPECT_EQ(why.options(0).start(), now_);
  EXPECT_EQ(why.options(0).sooner_s(), why.what_if_start() - now_);
  for (const wire::WhyOption& o : why.options()) EXPECT_LT(o.start(), why.what_if_start());

  why = Why(d);
  auto one_gpu =
      std::find_if(why.options().begin(), why.options().end(),
                   [](const wire::WhyOption& o) { return o.change() == "--gpus-per-node=a100:1"; });
  ASSERT_NE(one_gpu, why.options().end());
  EXPECT_EQ(one_gpu->start(), now_);
  EXPECT_EQ(one_gpu->what(), "1 GPU per node");
  // The first in line has nothing to gain from a shorter limit: n2 is not
  // free before its planned start whatever it asks.
  why = Why(top);
  EXPECT_EQ(why.what_if_start(), kT0 + 30 * 60);
  for (const wire::WhyOption& o : why.options()) {
    EXPECT_EQ(o.change().rfind("--time=", 0), std::string::npos) << o.change();
  }
}

TEST_F(WhyReportTest, ARunningJobIsNotWaitingAndAnUnknownOneIsNotFound) {
  StartCluster();
  uint32_t a = Submit(bob_, 1, "", 60);
  Tick();
  wire::WhyResponse why = Why(a);
  EXPECT_EQ(why.state(), "RUNNING");
  EXPECT_TRUE(why.causes().empty());
  Result<wire::WhyResponse> none = core_->ExplainJob(9999, now_);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "Invalid job id specified");
}

}  // namespace
}  // namespace rota::ctld
