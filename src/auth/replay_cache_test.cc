#include "auth/replay_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace rota::auth {
namespace {

using Outcome = ReplayCache::Outcome;

ReplayCache::Nonce MakeNonce(uint64_t n) {
  ReplayCache::Nonce nonce{};
  // Spread n over the hashed prefix and the tail, as random bytes would be.
  uint64_t mixed = n * 0x9E3779B97F4A7C15ull;
  std::memcpy(nonce.data(), &mixed, sizeof(mixed));
  std::memcpy(nonce.data() + 8, &n, sizeof(n));
  return nonce;
}

TEST(ReplayCacheTest, SecondSightingIsReplayed) {
  ReplayCache cache(100);
  EXPECT_EQ(cache.Insert(MakeNonce(1), 1300, 1000), Outcome::kFresh);
  EXPECT_EQ(cache.Insert(MakeNonce(1), 1300, 1100), Outcome::kReplayed);
  EXPECT_EQ(cache.Insert(MakeNonce(2), 1300, 1100), Outcome::kFresh);
}

TEST(ReplayCacheTest, RemembersThroughExpiryInclusive) {
  ReplayCache cache(100);
  ASSERT_EQ(cache.Insert(MakeNonce(1), 1300, 1000), Outcome::kFresh);
  EXPECT_EQ(cache.Insert(MakeNonce(1), 1300, 1300), Outcome::kReplayed);
}

TEST(ReplayCacheTest, EvictsExpiredEntriesSoMemoryStaysBounded) {
  ReplayCache cache(1'000'000);
  for (uint64_t i = 0; i < 10'000; ++i) {
    ASSERT_EQ(cache.Insert(MakeNonce(i), 1300, 1000), Outcome::kFresh);
  }
  EXPECT_EQ(cache.size(), 10'000u);
  // One insert after they all expired drops them all.
  EXPECT_EQ(cache.Insert(MakeNonce(99'999), 1601, 1301), Outcome::kFresh);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(ReplayCacheTest, SteadyStreamStaysAtOneTtlOfEntries) {
  // 10 credentials per second, TTL 300 s, for 30 simulated minutes: the cache
  // never holds more than one TTL's worth (plus the current second).
  ReplayCache cache(1'000'000);
  uint64_t next = 0;
  size_t peak = 0;
  for (int64_t now = 0; now < 1800; ++now) {
    for (int i = 0; i < 10; ++i) {
      ASSERT_EQ(cache.Insert(MakeNonce(next++), now + 300, now), Outcome::kFresh);
    }
    peak = std::max(peak, cache.size());
  }
  EXPECT_LE(peak, 3010u);
}

TEST(ReplayCacheTest, FullCacheFailsClosedUntilEntriesExpire) {
  ReplayCache cache(3);
  for (uint64_t i = 0; i < 3; ++i)
    ASSERT_EQ(cache.Insert(MakeNonce(i), 1300, 1000), Outcome::kFresh);
  EXPECT_EQ(cache.Insert(MakeNonce(3), 1300, 1000), Outcome::kFull);
  // A replay is still recognised as such when full.
  EXPECT_EQ(cache.Insert(MakeNonce(0), 1300, 1000), Outcome::kReplayed);
  EXPECT_EQ(cache.Insert(MakeNonce(3), 1700, 1301), Outcome::kFresh);
}

TEST(ReplayCacheTest, EvictionNeverGoesBackInTime) {
  ReplayCache cache(100);
  ASSERT_EQ(cache.Insert(MakeNonce(1), 1000, 900), Outcome::kFresh);
  // Another thread's clock read is later: entry 1 is evicted.
  ASSERT_EQ(cache.Insert(MakeNonce(2), 1400, 1001), Outcome::kFresh);
  // A caller with a stale `now` must not get entry 1 accepted as new.
  EXPECT_EQ(cache.Insert(MakeNonce(1), 1000, 1000), Outcome::kExpired);
}

TEST(ReplayCacheTest, EvictionRestartsAfterTheClockSteppedBack) {
  ReplayCache cache(100);
  ASSERT_EQ(cache.Insert(MakeNonce(1), 8500, 8200), Outcome::kFresh);
  // Two hours back: a new credential is not read as expired.
  cache.RestartEviction(1010);
  EXPECT_EQ(cache.Insert(MakeNonce(2), 1310, 1010), Outcome::kFresh);
  // What was held is still held.
  EXPECT_EQ(cache.Insert(MakeNonce(1), 8500, 1011), Outcome::kReplayed);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ReplayCacheTest, ConcurrentInsertsAcceptEachNonceOnce) {
  ReplayCache cache(1'000'000);
  constexpr int kThreads = 4;
  constexpr uint64_t kNonces = 5'000;
  std::vector<int> fresh(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Every thread tries every nonce: exactly one must win each.
      for (uint64_t i = 0; i < kNonces; ++i) {
        if (cache.Insert(MakeNonce(i), 1300, 1000) == Outcome::kFresh) ++fresh[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  int total = 0;
  for (int n : fresh) total += n;
  EXPECT_EQ(total, static_cast<int>(kNonces));
  EXPECT_EQ(cache.size(), kNonces);
}

}  // namespace
}  // namespace rota::auth
