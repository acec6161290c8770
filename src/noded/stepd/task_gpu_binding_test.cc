#include "noded/stepd/task_gpu_binding.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

using Lists = std::vector<std::vector<uint32_t>>;

TaskGpuRequest Request(std::vector<uint32_t> indices, uint32_t tasks, uint32_t per_task) {
  TaskGpuRequest r;
  for (uint32_t i : indices) r.gpus.push_back(JobGpu{i, {}});
  r.local_tasks = tasks;
  r.gpus_per_task = per_task;
  return r;
}

GpuBindSpec Spec(std::string_view text) {
  Result<GpuBindSpec> s = ParseGpuBind(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return s.ok() ? *s : GpuBindSpec{};
}

TEST(TaskGpuBindingTest, ParsesEveryForm) {
  EXPECT_EQ(Spec("").kind, GpuBindSpec::Kind::kDefault);
  EXPECT_EQ(Spec("none").kind, GpuBindSpec::Kind::kNone);
  GpuBindSpec closest = Spec("verbose,closest");
  EXPECT_EQ(closest.kind, GpuBindSpec::Kind::kClosest);
  EXPECT_TRUE(closest.verbose);
  EXPECT_EQ(Spec("single:2").tasks_per_gpu, 2u);
  EXPECT_EQ(Spec("map_gpu:1,0,3*2").values, (std::vector<uint64_t>{1, 0, 3, 3}));
  EXPECT_EQ(Spec("mask_gpu:0x3,c").values, (std::vector<uint64_t>{3, 12}));
  for (const char* bad : {"nearest", "single:0", "map_gpu:", "map_gpu:x", "mask_gpu:0", "none:1"}) {
    EXPECT_FALSE(ParseGpuBind(bad).ok()) << bad;
  }
}

TEST(TaskGpuBindingTest, GpusPerTaskGivesEveryTaskItsOwn) {
  Result<TaskGpuBinding> b = BindTaskGpus(Spec(""), Request({2, 3, 5, 6}, 2, 2));
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->per_task);
  EXPECT_EQ(b->task_gpus, (Lists{{2, 3}, {5, 6}}));
  EXPECT_FALSE(BindTaskGpus(Spec(""), Request({0, 1}, 3, 1)).ok());
}

TEST(TaskGpuBindingTest, WithoutBindingEveryTaskSeesAll) {
  Result<TaskGpuBinding> b = BindTaskGpus(Spec(""), Request({0, 1}, 2, 0));
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->per_task);
  EXPECT_EQ(b->task_gpus, (Lists{{0, 1}, {0, 1}}));
  b = BindTaskGpus(Spec("none"), Request({0, 1}, 2, 1));
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->per_task);
  EXPECT_EQ(b->task_gpus, (Lists{{0, 1}, {0, 1}}));
}

TEST(TaskGpuBindingTest, ClosestPrefersGpusNearTheTasksCpus) {
  TaskGpuRequest r = Request({}, 2, 1);
  r.gpus = {JobGpu{0, {0, 1}}, JobGpu{1, {2, 3}}};
  r.task_cpus = {{2, 3}, {0, 1}};  // Task 0 sits on the second socket.
  Result<TaskGpuBinding> b = BindTaskGpus(Spec("closest"), r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_gpus, (Lists{{1}, {0}}));
  // No affinity known: in order, still one each.
  b = BindTaskGpus(Spec("closest"), Request({0, 1}, 2, 1));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_gpus, (Lists{{0}, {1}}));
}

TEST(TaskGpuBindingTest, CoresAreCpusTimesThreads) {
  EXPECT_EQ(CpusOfCores({0, 2}, 2), (std::vector<uint32_t>{0, 1, 4, 5}));
  EXPECT_EQ(CpusOfCores({1}, 1), (std::vector<uint32_t>{1}));
  EXPECT_EQ(CpusOfCores({3}, 0), (std::vector<uint32_t>{3}));  // Unknown: one thread.
  EXPECT_TRUE(CpusOfCores({}, 2).empty());
}

TEST(TaskGpuBindingTest, SingleSharesEachGpuBetweenNTasks) {
  Result<TaskGpuBinding> b = BindTaskGpus(Spec("single:2"), Request({4, 7}, 4, 0));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_gpus, (Lists{{4}, {4}, {7}, {7}}));
  EXPECT_FALSE(BindTaskGpus(Spec("single:1"), Request({4, 7}, 3, 0)).ok());
}

TEST(TaskGpuBindingTest, MapAndMaskUseNodeIndicesOfTheJob) {
  Result<TaskGpuBinding> b = BindTaskGpus(Spec("map_gpu:1,0"), Request({0, 1}, 3, 0));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_gpus, (Lists{{1}, {0}, {1}}));
  b = BindTaskGpus(Spec("mask_gpu:0x3,0x4"), Request({0, 1, 2}, 2, 0));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_gpus, (Lists{{0, 1}, {2}}));
  EXPECT_FALSE(BindTaskGpus(Spec("map_gpu:5"), Request({0, 1}, 1, 0)).ok());
  EXPECT_FALSE(BindTaskGpus(Spec("mask_gpu:0x8"), Request({0, 1}, 1, 0)).ok());
}

}  // namespace
}  // namespace rota::noded
