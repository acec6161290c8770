#include "ctld/server/policy_fetcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

namespace rota::ctld {
namespace {

// Answers with one account named after the number of the fetch, or fails
// while `down` is set.
class FakeSource : public PolicySource {
 public:
  explicit FakeSource(std::atomic<bool>* down) : down_(down) {}
  Result<wire::PolicyState> Fetch() override {
    if (down_->load()) return Status(StatusCode::kUnavailable, "rotadbd is down");
    wire::PolicyState s;
    wire::PolicyEntity* e = s.add_entities();
    e->set_kind("account");
    e->set_name("a" + std::to_string(++calls_));
    return s;
  }

 private:
  std::atomic<bool>* down_;
  int calls_ = 0;
};

class PolicyFetcherTest : public ::testing::Test {
 protected:
  bool WaitFor(const std::function<bool()>& done) {
    for (int i = 0; i < 500; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  std::string Last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }
  PolicyFetcher::Deliver Deliver() {
    return [this](wire::PolicyState s) {
      std::lock_guard<std::mutex> lock(mu_);
      last_ = s.entities(0).name();
    };
  }

  std::atomic<bool> down_{false};
  std::mutex mu_;
  std::string last_;
};

TEST_F(PolicyFetcherTest, FetchesAtStartAndWhenWoken) {
  // A period far longer than the test: only Start and Wake fetch.
  PolicyFetcher fetcher(std::make_unique<FakeSource>(&down_), Deliver(), std::chrono::hours(1));
  fetcher.Start();
  ASSERT_TRUE(WaitFor([&] { return Last() == "a1"; }));
  fetcher.Wake();
  ASSERT_TRUE(WaitFor([&] { return Last() == "a2"; }));
  EXPECT_EQ(fetcher.fetched(), 2u);
  fetcher.Stop();
}

TEST_F(PolicyFetcherTest, DeliversNothingWhileTheSourceIsDownAndRetries) {
  down_ = true;
  PolicyFetcher fetcher(std::make_unique<FakeSource>(&down_), Deliver(),
                        std::chrono::milliseconds(20));
  fetcher.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(fetcher.fetched(), 0u);
  EXPECT_EQ(Last(), "");
  down_ = false;
  ASSERT_TRUE(WaitFor([&] { return fetcher.fetched() > 0; }));
  EXPECT_EQ(Last().substr(0, 1), "a");
}

// A waker is told only after a fetch that began after it woke the fetcher:
// what it reported changed is then in what was delivered.
TEST_F(PolicyFetcherTest, TellsAWakerAfterAFetchBegunAfterTheWake) {
  PolicyFetcher fetcher(std::make_unique<FakeSource>(&down_), Deliver(), std::chrono::hours(1));
  fetcher.Start();
  ASSERT_TRUE(WaitFor([&] { return Last() == "a1"; }));
  std::promise<std::string> seen;
  fetcher.Wake([&] { seen.set_value(Last()); });
  EXPECT_EQ(seen.get_future().get(), "a2");
  fetcher.Stop();
}

// Nor is a waker left waiting when rotadbd does not answer.
TEST_F(PolicyFetcherTest, TellsAWakerWhenTheSourceIsDown) {
  PolicyFetcher fetcher(std::make_unique<FakeSource>(&down_), Deliver(), std::chrono::hours(1));
  fetcher.Start();
  ASSERT_TRUE(WaitFor([&] { return fetcher.fetched() == 1; }));
  down_ = true;
  std::promise<void> told;
  fetcher.Wake([&] { told.set_value(); });
  EXPECT_EQ(told.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(fetcher.fetched(), 1u);
  fetcher.Stop();
}

}  // namespace
}  // namespace rota::ctld
