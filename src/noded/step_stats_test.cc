#include "noded/step_stats.h"

#include <gtest/gtest.h>

#include <map>

#include "noded/gpu/gpu_watch.h"

namespace rota::noded {
namespace {

// Cages whose figures the test sets, by step cage name ("" for the batch step).
class FakeCages : public CgroupBackend {
 public:
  std::map<std::string, uint64_t> now, peak;
  std::map<std::string, CageCpuTime> cpu;

  std::string Name() const override { return "fake"; }
  bool enforcing() const override { return true; }
  Status Create(uint32_t, std::optional<uint32_t>) override { return Status::Ok(); }
  Status SetLimits(uint32_t, const CageLimits&) override { return Status::Ok(); }
  Status AddPid(uint32_t, pid_t) override { return Status::Ok(); }
  Status Signal(uint32_t, int) override { return Status::Ok(); }
  uint64_t OomKills(uint32_t) const override { return 0; }
  Status KillAll(uint32_t) override { return Status::Ok(); }
  Status Remove(uint32_t) override { return Status::Ok(); }
  int SweepStale(const std::set<uint32_t>&) override { return 0; }
  std::optional<uint64_t> CurrentMemoryBytes(uint32_t job, const std::string& step) const override {
    return Find(now, job, step);
  }
  std::optional<uint64_t> StepPeakMemoryBytes(uint32_t job,
                                              const std::string& step) const override {
    return Find(peak, job, step);
  }
  std::optional<CageCpuTime> CpuUsageMicros(uint32_t job, const std::string& step) const override {
    return Find(cpu, job, step);
  }

 private:
  template <typename T>
  static std::optional<T> Find(const std::map<std::string, T>& m, uint32_t job,
                               const std::string& step) {
    if (job != 7) return std::nullopt;
    auto it = m.find(step);
    return it == m.end() ? std::nullopt : std::optional<T>(it->second);
  }
};

std::optional<wire::GpuUsage> BatchGpus(uint64_t key) {
  if (key != JobWatchKey(7)) return std::nullopt;
  wire::GpuUsage gpu;
  gpu.set_gpus(1);
  gpu.set_samples(3);
  gpu.set_util_ave(80);
  gpu.set_util_max(80);
  return gpu;
}

class StepStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cages_.now[""] = 4u << 20;
    cages_.peak[""] = 6u << 20;
    cages_.cpu[""] = {2'000'000, 500'000};
    cages_.now["step_2"] = 8u << 20;  // No peak kept: the current size stands for it
    cages_.cpu["step_2"] = {1'000'000, 0};
    here_ = LocalStepsOf(7, 1000, {{2, 1000, 4}, {5, 1001, 1}});
  }

  Result<wire::StepStatsResponse> Ask(const wire::StepStatsRequest& request, uint32_t uid,
                                      bool privileged = false) {
    return CollectStepStats(request, here_, "n1", cages_, BatchGpus, uid, privileged);
  }

  FakeCages cages_;
  std::vector<LocalStep> here_;
};

TEST_F(StepStatsTest, TheLocalStepsAreTheBatchStepThenSrunsWithTheirCagesAndWatchKeys) {
  ASSERT_EQ(here_.size(), 3u);
  EXPECT_EQ(here_[0].step, "batch");
  EXPECT_EQ(here_[0].cage, "");
  EXPECT_EQ(here_[0].watch_key, JobWatchKey(7));
  EXPECT_EQ(here_[1].step, "2");
  EXPECT_EQ(here_[1].cage, "step_2");
  EXPECT_EQ(here_[1].watch_key, StepWatchKey(7, 2));
  EXPECT_EQ(LocalStepsOf(7, std::nullopt, {}).size(), 0u);
}

TEST_F(StepStatsTest, TheBatchStepsFiguresComeFromTheJobsCageAndItsGpuWatch) {
  wire::StepStatsRequest request;
  request.set_job_id(7);
  request.set_batch(true);
  Result<wire::StepStatsResponse> answer = Ask(request, 1000);
  ASSERT_TRUE(answer.ok()) << answer.status().message();
  ASSERT_EQ(answer->steps_size(), 1);
  const wire::StepLiveFigures& batch = answer->steps(0);
  EXPECT_EQ(batch.step(), "batch");
  EXPECT_EQ(batch.node(), "n1");
  EXPECT_EQ(batch.tasks(), 1u);
  EXPECT_EQ(batch.usage().max_rss_kb(), 6144u);
  EXPECT_EQ(batch.usage().ave_rss_kb(), 4096u);
  EXPECT_EQ(batch.usage().max_rss_node(), "n1");
  EXPECT_EQ(batch.usage().user_cpu_us(), 2'000'000u);
  EXPECT_EQ(batch.usage().system_cpu_us(), 500'000u);
  EXPECT_EQ(batch.usage().gpu().util_max(), 80u);
}

TEST_F(StepStatsTest, AnSrunStepsCageIsSharedOverItsTasksHere) {
  wire::StepStatsRequest request;
  request.set_job_id(7);
  request.add_step_ids(2);
  Result<wire::StepStatsResponse> answer = Ask(request, 1000);
  ASSERT_TRUE(answer.ok());
  ASSERT_EQ(answer->steps_size(), 1);
  const wire::StepLiveFigures& step = answer->steps(0);
  EXPECT_EQ(step.step(), "2");
  EXPECT_EQ(step.tasks(), 4u);
  EXPECT_EQ(step.usage().max_rss_kb(), 2048u);
  EXPECT_EQ(step.usage().ave_rss_kb(), 2048u);
  EXPECT_EQ(step.usage().tasks(), 4u);
  EXPECT_EQ(step.usage().user_cpu_us(), 1'000'000u);
  EXPECT_EQ(step.usage().gpu().samples(), 0u);  // Its GPUs are not watched
}

TEST_F(StepStatsTest, UnmeasuredMemoryLeavesTheMemoryFiguresOut) {
  wire::StepStatsRequest request;
  request.set_job_id(7);
  request.add_step_ids(5);
  Result<wire::StepStatsResponse> answer = Ask(request, 1001);
  ASSERT_TRUE(answer.ok());
  ASSERT_EQ(answer->steps_size(), 1);
  EXPECT_EQ(answer->steps(0).usage().tasks(), 0u);
  EXPECT_EQ(answer->steps(0).usage().max_rss_kb(), 0u);
  EXPECT_EQ(answer->steps(0).tasks(), 1u);
}

TEST_F(StepStatsTest, UsersSeeTheirOwnStepsAndThePrivilegedEvery) {
  wire::StepStatsRequest request;
  request.set_job_id(7);
  request.set_all_steps(true);
  Result<wire::StepStatsResponse> own = Ask(request, 1001);
  ASSERT_TRUE(own.ok());
  ASSERT_EQ(own->steps_size(), 1);
  EXPECT_EQ(own->steps(0).step(), "5");

  Result<wire::StepStatsResponse> other = Ask(request, 2000);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kPermissionDenied);

  Result<wire::StepStatsResponse> root = Ask(request, 0, /*privileged=*/true);
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->steps_size(), 3);

  // A step that does not run here: an empty answer.
  wire::StepStatsRequest elsewhere;
  elsewhere.set_job_id(7);
  elsewhere.add_step_ids(9);
  Result<wire::StepStatsResponse> none = Ask(elsewhere, 2000);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->steps_size(), 0);
}

}  // namespace
}  // namespace rota::noded
