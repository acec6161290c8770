#include "ctld/core/step_resources.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

using Ids = std::vector<uint32_t>;

// A job on `nodes` nodes with CPUs 4-7 (`cpus` of them), GPUs 0..gpus-1 and
// `mem_mb` of memory on each.
wire::JobRecord Job(int nodes, uint32_t cpus, uint32_t gpus = 0, uint64_t mem_mb = 0) {
  wire::JobRecord job;
  job.set_job_id(5);
  for (int i = 0; i < nodes; ++i) {
    job.add_nodes("n" + std::to_string(i + 1));
    wire::NodeAlloc* a = job.add_allocs();
    a->set_cpus(cpus);
    a->set_cpu_ids(cpus == 1 ? "4" : "4-" + std::to_string(3 + cpus));
    if (gpus > 0) a->set_gpu_ids(gpus == 1 ? "0" : "0-" + std::to_string(gpus - 1));
    a->set_mem_mb(mem_mb);
  }
  return job;
}

// The step record for `placement` (what StepTable keeps).
wire::JobStepRecord Record(const wire::JobRecord& job, const StepPlacement& placement,
                           bool overlap = false) {
  wire::JobStepRecord step;
  for (size_t k = 0; k < placement.layout.node_indices.size(); ++k) {
    step.add_nodes(job.nodes(static_cast<int>(placement.layout.node_indices[k])));
    auto text = [](const Ids& ids) {
      std::string out;
      for (uint32_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
      return out;
    };
    step.add_cpu_ids(text(placement.held[k].cpus));
    step.add_gpu_ids(text(placement.held[k].gpus));
    step.add_mem_mb(placement.held[k].mem_mb);
  }
  step.set_overlap(overlap);
  return step;
}

// Places `request` among `running` steps of `job`; the result's step is added
// to `running` when placed.
Result<StepPlacement> Place(const wire::JobRecord& job, std::vector<wire::JobStepRecord>& running,
                            const StepResourceRequest& request) {
  const std::vector<StepNodeResources> whole = JobStepResources(job);
  std::vector<StepNodeResources> free = whole;
  for (const wire::JobStepRecord& step : running) SubtractStepResources(job, step, free);
  Result<StepPlacement> placed = PlaceStep(whole, free, request);
  if (placed.ok()) running.push_back(Record(job, *placed, request.overlap));
  return placed;
}

StepResourceRequest Tasks(uint32_t n) {
  StepResourceRequest r;
  r.shape.num_tasks = n;
  return r;
}

TEST(StepResourcesTest, StepsDoNotShareCpusUnlessTheyOverlap) {
  wire::JobRecord job = Job(1, 1);
  std::vector<wire::JobStepRecord> running;
  Result<StepPlacement> first = Place(job, running, Tasks(1));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->held[0].cpus, Ids({4}));
  Result<StepPlacement> second = Place(job, running, Tasks(1));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(second.status().message(), kStepNodesBusy);
  StepResourceRequest overlap = Tasks(1);
  overlap.overlap = true;
  Result<StepPlacement> shared = Place(job, running, overlap);
  ASSERT_TRUE(shared.ok()) << shared.status().message();
  EXPECT_EQ(shared->held[0].cpus, Ids({4}));
  // The overlapping step holds nothing alone: with the first step gone, a
  // step that does not overlap fits again.
  running.erase(running.begin());
  EXPECT_TRUE(Place(job, running, Tasks(1)).ok());
}

TEST(StepResourcesTest, NeverFittingStepsFailAtOnce) {
  wire::JobRecord job = Job(1, 2, 1, 1000);
  std::vector<wire::JobStepRecord> running;
  ASSERT_TRUE(Place(job, running, Tasks(2)).ok());  // Everything is busy now
  Result<StepPlacement> r = Place(job, running, Tasks(3));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("More processors requested than permitted"),
            std::string::npos);
  StepResourceRequest memory = Tasks(1);
  memory.shape.mem_per_node_mb = 2000;
  r = Place(job, running, memory);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Memory required by task is not available");
  StepResourceRequest gpus = Tasks(1);
  gpus.shape.gpus_per_node = 2;
  r = Place(job, running, gpus);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Invalid generic resource (gres) specification");
}

TEST(StepResourcesTest, MemoryIsHeldOnlyWhenAskedFor) {
  wire::JobRecord job = Job(1, 4, 0, 1000);
  std::vector<wire::JobStepRecord> running;
  Result<StepPlacement> plain = Place(job, running, Tasks(1));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->held[0].mem_mb, 0u);
  StepResourceRequest mem = Tasks(1);
  mem.shape.mem_per_node_mb = 600;
  Result<StepPlacement> first = Place(job, running, mem);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->held[0].mem_mb, 600u);
  Result<StepPlacement> second = Place(job, running, mem);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  // --mem-per-cpu: 2 CPUs x 200.
  StepResourceRequest per_cpu = Tasks(1);
  per_cpu.shape.cpus_per_task = 2;
  per_cpu.shape.mem_per_cpu_mb = 200;
  Result<StepPlacement> third = Place(job, running, per_cpu);
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_EQ(third->held[0].mem_mb, 400u);
  EXPECT_EQ(third->held[0].cpus, Ids({6, 7}));
}

TEST(StepResourcesTest, GpusComeOutOfTheJobsAndAreHeldApart) {
  wire::JobRecord job = Job(1, 8, 4);
  std::vector<wire::JobStepRecord> running;
  StepResourceRequest two = Tasks(2);
  two.shape.gpus_per_task = 1;
  Result<StepPlacement> first = Place(job, running, two);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->held[0].gpus, Ids({0, 1}));
  EXPECT_EQ(first->held[0].cpus, Ids({4, 5}));
  StepResourceRequest gres = Tasks(1);
  gres.shape.gpus_per_node = 2;
  Result<StepPlacement> second = Place(job, running, gres);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->held[0].gpus, Ids({2, 3}));
  EXPECT_EQ(second->held[0].cpus, Ids({6}));
  StepResourceRequest one = Tasks(1);
  one.gpus = 1;
  EXPECT_EQ(Place(job, running, one).status().code(), StatusCode::kFailedPrecondition);
  // A step that asks for no GPU is not held back by them.
  Result<StepPlacement> cpu_only = Place(job, running, Tasks(1));
  ASSERT_TRUE(cpu_only.ok());
  EXPECT_TRUE(cpu_only->held[0].gpus.empty());
}

TEST(StepResourcesTest, BusyNodesAreSkippedForFreeOnes) {
  wire::JobRecord job = Job(3, 1);
  std::vector<wire::JobStepRecord> running;
  Result<StepPlacement> first = Place(job, running, Tasks(1));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->layout.node_indices, Ids({0}));
  Result<StepPlacement> second = Place(job, running, Tasks(2));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->layout.node_indices, Ids({1, 2}));
  // The default step takes every node of the job: it waits.
  EXPECT_EQ(Place(job, running, {}).status().code(), StatusCode::kFailedPrecondition);
}

TEST(StepResourcesTest, GpusForTheWholeStepAreSpreadOverItsNodes) {
  wire::JobRecord job = Job(2, 2, 2);
  std::vector<wire::JobStepRecord> running;
  StepResourceRequest r = Tasks(2);
  r.gpus = 3;  // Two on each node
  Result<StepPlacement> placed = Place(job, running, r);
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  ASSERT_EQ(placed->held.size(), 2u);
  EXPECT_EQ(placed->held[0].gpus, Ids({0, 1}));
  EXPECT_EQ(placed->held[1].gpus, Ids({0, 1}));
}

TEST(StepNodeChoiceTest, NodelistAndExcludeChooseAmongTheJobsNodes) {
  wire::JobRecord job;
  for (const char* n : {"a1", "a2", "a3", "a4"}) job.add_nodes(n);
  wire::CreateStepRequest req;
  EXPECT_EQ(*StepNodeChoice(job, req), (std::vector<uint32_t>{0, 1, 2, 3}));
  req.set_nodelist("a[2,4]");
  EXPECT_EQ(*StepNodeChoice(job, req), (std::vector<uint32_t>{1, 3}));
  req.set_nodelist("");
  req.set_exclude("a1");
  EXPECT_EQ(*StepNodeChoice(job, req), (std::vector<uint32_t>{1, 2, 3}));
  // A node that is not the job's, or named and excluded: refused, naming it.
  req.set_nodelist("a5");
  auto foreign = StepNodeChoice(job, req);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("a5 is not one of the job's nodes"), std::string::npos);
  req.set_nodelist("a1");
  EXPECT_FALSE(StepNodeChoice(job, req).ok());
  req.set_nodelist("");
  req.set_exclude("a[1-4]");
  EXPECT_FALSE(StepNodeChoice(job, req).ok());
  req.set_exclude("a[");
  EXPECT_FALSE(StepNodeChoice(job, req).ok());
}

}  // namespace
}  // namespace rota::ctld
