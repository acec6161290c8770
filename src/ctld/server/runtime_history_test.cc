#include "ctld/server/runtime_history.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace rota::ctld {
namespace {

bool WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 500 && !done(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

TEST(RuntimeHistoryFetcherTest, AsksAgainUntilRotadbdAnswersThenDeliversOnce) {
  std::atomic<int> asked{0};
  std::atomic<int> delivered{0};
  std::atomic<uint32_t> first_job{0};
  RuntimeHistoryFetcher fetcher(
      [&]() -> Result<wire::QueryJobsResponse> {
        if (++asked < 3) return IoError("connection refused");
        wire::QueryJobsResponse r;
        r.add_jobs()->set_job_id(42);
        return r;
      },
      [&](wire::QueryJobsResponse r) {
        first_job = r.jobs(0).job_id();
        ++delivered;
      },
      std::chrono::milliseconds(10));
  fetcher.Start();
  ASSERT_TRUE(WaitFor([&] { return fetcher.delivered(); }));
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(delivered, 1);
  EXPECT_EQ(first_job, 42u);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(asked, 3);  // Once answered, never again
}

TEST(RuntimeHistoryFetcherTest, StopsWhileWaitingToAskAgain) {
  std::atomic<int> asked{0};
  auto fetcher = std::make_unique<RuntimeHistoryFetcher>(
      [&]() -> Result<wire::QueryJobsResponse> {
        ++asked;
        return IoError("connection refused");
      },
      [](wire::QueryJobsResponse) { ADD_FAILURE() << "nothing to deliver"; },
      std::chrono::hours(1));
  fetcher->Start();
  ASSERT_TRUE(WaitFor([&] { return asked > 0; }));
  const auto before = std::chrono::steady_clock::now();
  fetcher.reset();  // Must not wait out the hour
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
}

}  // namespace
}  // namespace rota::ctld
