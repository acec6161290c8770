#include "ctld/core/step_table.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

wire::JobRecord RunningJob(uint32_t id, uint32_t uid) {
  wire::JobRecord job;
  job.set_job_id(id);
  job.set_state(wire::JOB_STATE_RUNNING);
  job.mutable_spec()->set_uid(uid);
  job.mutable_spec()->set_user("alice");
  job.mutable_spec()->set_partition("batch");
  job.mutable_spec()->set_script("#!/bin/sh\n");
  for (const char* node : {"n1", "n2"}) {
    job.add_nodes(node);
    wire::NodeAlloc* alloc = job.add_allocs();
    alloc->set_cpus(2);
    alloc->set_gpu_ids("0-1");
    alloc->set_gpu_types("a100:2");
  }
  return job;
}

Caller User(uint32_t uid) {
  Caller c;
  c.uid = uid;
  return c;
}

TEST(StepTableTest, NumbersStepsPerJobAndLaysThemOut) {
  StepTable steps;
  wire::JobRecord job = RunningJob(7, 1000);
  wire::CreateStepRequest req;
  req.set_job_id(7);
  req.set_num_tasks(4);
  req.set_gpus_per_task(1);
  req.set_name("train");
  req.set_distribution("block:fcyclic");
  req.set_hint("nomultithread");
  Result<wire::CreateStepResponse> first = steps.Create(req, User(1000), &job, 100);
  ASSERT_TRUE(first.ok()) << first.status().message();
  // How its tasks are dealt and bound, for the nodes (and sacct's Layout).
  EXPECT_EQ(first->step().distribution(), "block:fcyclic");
  EXPECT_EQ(first->step().hint(), "nomultithread");
  EXPECT_EQ(first->step().step_id(), 0u);
  EXPECT_EQ(first->step().num_tasks(), 4u);
  EXPECT_EQ(first->step().tasks_per_node().size(), 2);
  EXPECT_EQ(first->step().tasks_per_node(0), 2u);
  EXPECT_EQ(first->step().tasks_per_node(1), 2u);
  EXPECT_EQ(first->step().user(), "alice");
  EXPECT_TRUE(first->job().spec().script().empty());  // Scripts stay home.
  req.set_num_tasks(1);
  req.set_overlap(true);  // The first step holds every CPU and GPU.
  Result<wire::CreateStepResponse> second = steps.Create(req, User(1000), &job, 101);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->step().step_id(), 1u);
  EXPECT_EQ(second->step().nodes().size(), 1);

  EXPECT_EQ(steps.List({}).size(), 2u);
  wire::StepEndedRequest end;
  end.set_job_id(7);
  end.set_step_id(0);
  EXPECT_FALSE(steps.End(end, User(1001), 100).ok());  // Not theirs.
  EXPECT_TRUE(steps.End(end, User(1000), 100).ok());
  EXPECT_EQ(steps.Find(7, 0), nullptr);
  ASSERT_NE(steps.Find(7, 1), nullptr);
  // Numbers are not reused while the job runs.
  EXPECT_EQ(steps.Create(req, User(1000), &job, 102)->step().step_id(), 2u);
  steps.Prune([](uint32_t) { return false; });
  EXPECT_TRUE(steps.List({}).empty());
}

TEST(StepTableTest, RefusesOthersJobsAndJobsNotRunning) {
  StepTable steps;
  wire::JobRecord job = RunningJob(7, 1000);
  wire::CreateStepRequest req;
  req.set_job_id(7);
  Result<wire::CreateStepResponse> r = steps.Create(req, User(1001), &job, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  Caller root;
  root.privileged = true;
  EXPECT_TRUE(steps.Create(req, root, &job, 1).ok());
  job.set_state(wire::JOB_STATE_PENDING);
  EXPECT_FALSE(steps.Create(req, User(1000), &job, 1).ok());
  EXPECT_FALSE(steps.Create(req, User(1000), nullptr, 1).ok());
  req.set_num_tasks(5);
  job.set_state(wire::JOB_STATE_RUNNING);
  r = steps.Create(req, User(1000), &job, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("More processors requested than permitted"),
            std::string::npos);
}

TEST(StepTableTest, StepsHoldTheirResourcesUntilTheyEnd) {
  StepTable steps;
  wire::JobRecord job = RunningJob(7, 1000);
  wire::CreateStepRequest all;
  all.set_job_id(7);
  all.set_num_tasks(4);
  all.set_cpu_bind("cores");
  Result<wire::CreateStepResponse> first = steps.Create(all, User(1000), &job, 100);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->step().cpu_ids_size(), 2);
  EXPECT_EQ(first->step().cpu_ids(0), "0-1");
  EXPECT_EQ(first->step().gpu_ids(0), "");  // Asked for none: holds none
  EXPECT_EQ(first->step().cpu_bind(), "cores");
  EXPECT_FALSE(first->step().overlap());

  wire::CreateStepRequest one;
  one.set_job_id(7);
  one.set_num_tasks(1);
  Result<wire::CreateStepResponse> busy = steps.Create(one, User(1000), &job, 101);
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(busy.status().message(), "Requested nodes are busy");
  // Waiting takes no step id.
  one.set_overlap(true);
  Result<wire::CreateStepResponse> shared = steps.Create(one, User(1000), &job, 102);
  ASSERT_TRUE(shared.ok()) << shared.status().message();
  EXPECT_EQ(shared->step().step_id(), 1u);
  EXPECT_TRUE(shared->step().overlap());

  wire::StepEndedRequest end;
  end.set_job_id(7);
  end.set_step_id(0);
  ASSERT_TRUE(steps.End(end, User(1000), 103).ok());
  one.set_overlap(false);
  one.set_gpus_per_task(2);
  Result<wire::CreateStepResponse> after = steps.Create(one, User(1000), &job, 104);
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after->step().step_id(), 2u);
  EXPECT_EQ(after->step().gpu_ids(0), "0-1");

  // What steps hold survives a restart of the controller (the logged state).
  StepTable restored;
  restored.Apply(steps.State(7));
  Result<wire::CreateStepResponse> again = restored.Create(one, User(1000), &job, 105);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->step().nodes(0), "n2");  // n1's GPUs are held
  EXPECT_EQ(restored.Create(one, User(1000), &job, 106).status().code(),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace rota::ctld
