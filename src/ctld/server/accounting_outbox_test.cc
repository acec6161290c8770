#include "ctld/server/accounting_outbox.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "testing/temp_dir.h"

namespace rota::ctld {
namespace {

using namespace std::chrono_literals;

// rotadbd as the outbox sees it: up or down, keeping what it was sent.
struct FakeDbd {
  std::mutex mu;
  bool up = false;
  std::vector<std::pair<uint32_t, uint32_t>> received;  // (job id, restarts), in arrival order
  std::vector<std::pair<std::string, int64_t>> events;  // (node, time_end), in arrival order
  int batches = 0;
};

class FakeTransport : public AccountingTransport {
 public:
  explicit FakeTransport(FakeDbd* dbd) : dbd_(dbd) {}
  Status Send(const wire::RecordJobsRequest& request) override {
    std::lock_guard<std::mutex> lock(dbd_->mu);
    if (!dbd_->up) return Status(StatusCode::kUnavailable, "connection refused");
    ++dbd_->batches;
    for (const auto& j : request.jobs()) dbd_->received.emplace_back(j.job_id(), j.restarts());
    for (const auto& e : request.node_events()) dbd_->events.emplace_back(e.node(), e.time_end());
    return Status::Ok();
  }

 private:
  FakeDbd* dbd_;
};

wire::AccountingJob Job(uint32_t id, uint32_t restarts = 0) {
  wire::AccountingJob j;
  j.set_job_id(id);
  j.set_restarts(restarts);
  j.set_name("j" + std::to_string(id));
  return j;
}

class AccountingOutboxTest : public ::testing::Test {
 protected:
  std::unique_ptr<AccountingOutbox> Open(size_t max_batch = 1000,
                                         size_t max_batch_bytes = 16u << 20) {
    AccountingOutbox::Options options;
    options.dir = (dir_.path() / "outbox").string();
    options.retry_after = 20ms;
    options.max_batch = max_batch;
    options.max_batch_bytes = max_batch_bytes;
    options.segment_bytes = 512;  // Many segments: compaction is exercised.
    auto box = AccountingOutbox::Open(&ops_, options, std::make_unique<FakeTransport>(&dbd_));
    EXPECT_TRUE(box.ok()) << box.status().ToString();
    return box.ok() ? std::move(box).value() : nullptr;
  }
  void SetUp(bool up) {
    std::lock_guard<std::mutex> lock(dbd_.mu);
    dbd_.up = up;
  }

  testing::TempDir dir_;
  PosixFileOps ops_;
  FakeDbd dbd_;
};

TEST_F(AccountingOutboxTest, DeliversInOrderInBatches) {
  SetUp(true);
  auto box = Open(/*max_batch=*/7);
  ASSERT_NE(box, nullptr);
  box->Start();
  for (uint32_t i = 1; i <= 50; ++i) ASSERT_TRUE(box->Record({Job(i)}).ok());
  ASSERT_TRUE(box->WaitDelivered(10s));
  std::lock_guard<std::mutex> lock(dbd_.mu);
  ASSERT_EQ(dbd_.received.size(), 50u);
  for (uint32_t i = 0; i < 50; ++i) EXPECT_EQ(dbd_.received[i].first, i + 1);
}

// Start records carrying scripts (AccountingStoreFlags=job_script) go in
// requests of a bounded size, each with one record at least.
TEST_F(AccountingOutboxTest, BigRecordsGoInSmallerBatches) {
  SetUp(true);
  auto box = Open(/*max_batch=*/1000, /*max_batch_bytes=*/10000);
  ASSERT_NE(box, nullptr);
  std::vector<wire::AccountingJob> jobs;
  for (uint32_t i = 1; i <= 6; ++i) {
    jobs.push_back(Job(i));
    jobs.back().set_script(std::string(i == 3 ? 20000 : 4000, 'x'));  // Job 3: over the cap alone
  }
  ASSERT_TRUE(box->Record(jobs).ok());
  box->Start();
  ASSERT_TRUE(box->WaitDelivered(10s));
  std::lock_guard<std::mutex> lock(dbd_.mu);
  ASSERT_EQ(dbd_.received.size(), 6u);
  for (uint32_t i = 0; i < 6; ++i) EXPECT_EQ(dbd_.received[i].first, i + 1);
  EXPECT_EQ(dbd_.batches, 4) << "1-2, 3 alone, 4-5, 6";
}

TEST_F(AccountingOutboxTest, RecordsWaitOnDiskAcrossARestartAndArriveOnceInOrder) {
  {
    auto box = Open();
    ASSERT_NE(box, nullptr);
    box->Start();  // rotadbd is down: every send fails.
    for (uint32_t i = 1; i <= 20; ++i) ASSERT_TRUE(box->Record({Job(i), Job(i, 1)}).ok());
    EXPECT_FALSE(box->WaitDelivered(100ms));
    EXPECT_EQ(box->undelivered(), 40u);
  }  // The controller stops with everything undelivered.
  {
    std::lock_guard<std::mutex> lock(dbd_.mu);
    EXPECT_TRUE(dbd_.received.empty());
  }

  SetUp(true);
  auto box = Open();
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(box->undelivered(), 40u);
  box->Start();
  ASSERT_TRUE(box->Record({Job(21)}).ok());  // New records queue behind the old.
  ASSERT_TRUE(box->WaitDelivered(10s));
  box->Stop();
  {
    std::lock_guard<std::mutex> lock(dbd_.mu);
    ASSERT_EQ(dbd_.received.size(), 41u);
    for (uint32_t i = 0; i < 20; ++i) {
      EXPECT_EQ(dbd_.received[2 * i], std::make_pair(i + 1, 0u));
      EXPECT_EQ(dbd_.received[2 * i + 1], std::make_pair(i + 1, 1u));
    }
    EXPECT_EQ(dbd_.received[40].first, 21u);
  }

  // Once delivered, never again: a restart finds nothing to send.
  auto again = Open();
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->undelivered(), 0u);
  again->Start();
  ASSERT_TRUE(again->Record({Job(22)}).ok());
  ASSERT_TRUE(again->WaitDelivered(10s));
  again->Stop();
  std::lock_guard<std::mutex> lock(dbd_.mu);
  ASSERT_EQ(dbd_.received.size(), 42u);
  EXPECT_EQ(dbd_.received.back().first, 22u);
}

TEST_F(AccountingOutboxTest, DeliveredSegmentsAreRemoved) {
  SetUp(true);
  auto box = Open();
  ASSERT_NE(box, nullptr);
  box->Start();
  for (uint32_t i = 1; i <= 200; ++i) ASSERT_TRUE(box->Record({Job(i)}).ok());
  ASSERT_TRUE(box->WaitDelivered(10s));
  box->Stop();
  int segments = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path() / "outbox")) {
    if (e.path().filename().string().rfind("log.", 0) == 0) ++segments;
  }
  // 200 records of ~10 bytes in 512-byte segments would be several files.
  EXPECT_LE(segments, 1);
  EXPECT_EQ(box->delivered_seq(), 200u);
}

TEST_F(AccountingOutboxTest, DeliveryResumesWhenRotadbdComesBack) {
  auto box = Open();
  ASSERT_NE(box, nullptr);
  box->Start();
  ASSERT_TRUE(box->Record({Job(1), Job(2)}).ok());
  EXPECT_FALSE(box->WaitDelivered(100ms));
  SetUp(true);
  ASSERT_TRUE(box->WaitDelivered(10s));
  std::lock_guard<std::mutex> lock(dbd_.mu);
  EXPECT_EQ(dbd_.received.size(), 2u);
}

TEST_F(AccountingOutboxTest, NodeEventsTravelWithJobsAndSurviveARestart) {
  SetUp(false);
  auto event = [](const char* node, int64_t end) {
    wire::NodeEvent e;
    e.set_node(node);
    e.set_time_start(100);
    e.set_time_end(end);
    e.set_reason("fan");
    return e;
  };
  {
    auto box = Open();
    ASSERT_NE(box, nullptr);
    box->Start();
    ASSERT_TRUE(box->Record({Job(1)}).ok());
    ASSERT_TRUE(box->RecordNodeEvents({event("n1", 0)}).ok());
    ASSERT_TRUE(box->RecordNodeEvents({event("n1", 400), event("n2", 0)}).ok());
    ASSERT_TRUE(box->Record({Job(2)}).ok());
    EXPECT_EQ(box->undelivered(), 5u);
  }  // The controller stops with everything undelivered.
  SetUp(true);
  auto box = Open();
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(box->undelivered(), 5u);  // Both kinds read back from the log
  box->Start();
  ASSERT_TRUE(box->WaitDelivered(10s));
  std::lock_guard<std::mutex> lock(dbd_.mu);
  ASSERT_EQ(dbd_.received.size(), 2u);
  EXPECT_EQ(dbd_.received[0].first, 1u);
  EXPECT_EQ(dbd_.received[1].first, 2u);
  ASSERT_EQ(dbd_.events.size(), 3u);
  EXPECT_EQ(dbd_.events[0], std::make_pair(std::string("n1"), int64_t{0}));
  EXPECT_EQ(dbd_.events[1], std::make_pair(std::string("n1"), int64_t{400}));
  EXPECT_EQ(dbd_.events[2], std::make_pair(std::string("n2"), int64_t{0}));
}

}  // namespace
}  // namespace rota::ctld
