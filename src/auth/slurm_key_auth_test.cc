#include "auth/slurm_key_auth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace rota::auth {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kNow = 1'700'000'000;
constexpr Identity kAlice{.uid = 1001, .gid = 100};

std::shared_ptr<const SlurmKey> KeyOf(char fill) {
  return std::make_shared<const SlurmKey>(std::string(64, fill));
}

class SlurmKeyAuthTest : public ::testing::Test {
 protected:
  // Issues as alice with the clock reading `issued_at`.
  std::string IssueAt(int64_t issued_at, std::string_view bound) {
    // In milliseconds; absurd dates (the overflow test's) stay as they are.
    const bool absurd = issued_at > INT64_MAX / 1000 || issued_at < INT64_MIN / 1000;
    const int64_t ms = absurd ? issued_at : issued_at * 1000;
    SlurmKeyIssuer issuer(key_, kAlice, [ms] { return ms; });
    auto credential = issuer.Issue(bound);
    EXPECT_TRUE(credential.ok()) << credential.status().ToString();
    return credential.value_or("");
  }

  void ExpectDenied(const Result<Identity>& result, std::string_view why) {
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), StatusCode::kPermissionDenied);
    EXPECT_THAT(result.status().message(), HasSubstr(std::string(why)));
  }

  std::shared_ptr<const SlurmKey> key_ = KeyOf('a');
  SlurmKeyVerifier verifier_{key_};
  const std::string bound_ = RpcBindingBytes(7, "request body");
};

TEST_F(SlurmKeyAuthTest, RoundTrip) {
  std::string credential = IssueAt(kNow, bound_);
  EXPECT_EQ(credential.size(), kSlurmCredentialSize);
  auto identity = verifier_.Verify(credential, bound_, kNow);
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(*identity, kAlice);
}

TEST_F(SlurmKeyAuthTest, EachCredentialHasAFreshNonce) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) seen.insert(IssueAt(kNow, bound_));
  EXPECT_EQ(seen.size(), 100u);
}

TEST_F(SlurmKeyAuthTest, TamperedMacIsRefused) {
  std::string credential = IssueAt(kNow, bound_);
  credential.back() ^= 0x01;
  ExpectDenied(verifier_.Verify(credential, bound_, kNow), "bad MAC");
}

TEST_F(SlurmKeyAuthTest, TamperedUidIsRefused) {
  std::string credential = IssueAt(kNow, bound_);
  credential[1] = 0;  // Low byte of the uid: 1001 -> 1000 (would be someone else).
  credential[2] = 0;
  ExpectDenied(verifier_.Verify(credential, bound_, kNow), "bad MAC");
}

TEST_F(SlurmKeyAuthTest, EveryTamperedByteIsRefused) {
  const std::string credential = IssueAt(kNow, bound_);
  for (size_t i = 0; i < credential.size(); ++i) {
    std::string altered = credential;
    altered[i] ^= 0x80;
    EXPECT_FALSE(verifier_.Verify(altered, bound_, kNow).ok()) << "byte " << i;
  }
}

TEST_F(SlurmKeyAuthTest, OtherKeyIsRefused) {
  SlurmKeyIssuer stranger(KeyOf('b'), kAlice, [] { return kNow; });
  auto credential = stranger.Issue(bound_);
  ASSERT_TRUE(credential.ok());
  ExpectDenied(verifier_.Verify(*credential, bound_, kNow), "bad MAC");
}

TEST_F(SlurmKeyAuthTest, WrongBoundBytesAreRefused) {
  std::string credential = IssueAt(kNow, bound_);
  ExpectDenied(verifier_.Verify(credential, RpcBindingBytes(7, "other body"), kNow),
               "digest mismatch");
  ExpectDenied(verifier_.Verify(credential, RpcBindingBytes(8, "request body"), kNow),
               "digest mismatch");
  // A refused attempt does not burn the credential for its real request.
  EXPECT_TRUE(verifier_.Verify(credential, bound_, kNow).ok());
}

TEST_F(SlurmKeyAuthTest, ExpiresAfterFiveMinutes) {
  EXPECT_TRUE(verifier_.Verify(IssueAt(kNow - 300, bound_), bound_, kNow).ok());
  ExpectDenied(verifier_.Verify(IssueAt(kNow - 301, bound_), bound_, kNow), "expired");
}

TEST_F(SlurmKeyAuthTest, FutureDatedBeyondSkewIsRefused) {
  EXPECT_TRUE(verifier_.Verify(IssueAt(kNow + 300, bound_), bound_, kNow).ok());
  auto ahead = verifier_.Verify(IssueAt(kNow + 301, bound_), bound_, kNow);
  ExpectDenied(ahead, "in the future");
  // Answered so that the sender signs again once its clock passes ours (a
  // request in flight across a step back of the clocks); the transport's
  // screen lets it through to that answer instead of closing the connection.
  int64_t sign_after = 0;
  EXPECT_TRUE(IsStaleCredential(ahead.status(), &sign_after));
  EXPECT_EQ(sign_after, kNow * 1000);
  EXPECT_TRUE(verifier_.Screen(IssueAt(kNow + 3600, bound_), kNow).ok());
  EXPECT_FALSE(verifier_.Screen(IssueAt(kNow - 301, bound_), kNow).ok());
}

TEST_F(SlurmKeyAuthTest, AbsurdTimestampsDoNotOverflow) {
  ExpectDenied(verifier_.Verify(IssueAt(INT64_MIN, bound_), bound_, kNow), "expired");
  ExpectDenied(verifier_.Verify(IssueAt(INT64_MAX, bound_), bound_, kNow), "in the future");
}

TEST_F(SlurmKeyAuthTest, ReplayIsRefused) {
  std::string credential = IssueAt(kNow, bound_);
  ASSERT_TRUE(verifier_.Verify(credential, bound_, kNow).ok());
  ExpectDenied(verifier_.Verify(credential, bound_, kNow + 1), "replayed credential");
  // And once it has expired, it is refused as expired.
  ExpectDenied(verifier_.Verify(credential, bound_, kNow + 301), "expired");
}

TEST_F(SlurmKeyAuthTest, ReplayCacheEvictsExpiredNonces) {
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(verifier_.Verify(IssueAt(kNow, bound_), bound_, kNow).ok());
  }
  EXPECT_EQ(verifier_.replay_cache_size(), 1000u);
  ASSERT_TRUE(verifier_.Verify(IssueAt(kNow + 301, bound_), bound_, kNow + 301).ok());
  EXPECT_EQ(verifier_.replay_cache_size(), 1u);
}

TEST_F(SlurmKeyAuthTest, FullReplayCacheFailsClosed) {
  SlurmKeyVerifier::Options options;
  options.max_replay_entries = 2;
  SlurmKeyVerifier small(key_, options);
  ASSERT_TRUE(small.Verify(IssueAt(kNow, bound_), bound_, kNow).ok());
  ASSERT_TRUE(small.Verify(IssueAt(kNow, bound_), bound_, kNow).ok());
  auto third = small.Verify(IssueAt(kNow, bound_), bound_, kNow);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().code(), StatusCode::kUnavailable);
}

TEST_F(SlurmKeyAuthTest, MalformedCredentialsAreRefused) {
  ExpectDenied(verifier_.Verify("", bound_, kNow), "malformed");
  ExpectDenied(verifier_.Verify(std::string(96, 'x'), bound_, kNow), "malformed");
  ExpectDenied(verifier_.Verify(std::string(98, 'x'), bound_, kNow), "malformed");
  std::string wrong_version = IssueAt(kNow, bound_);
  wrong_version[0] = 1;  // Dated in seconds: refused, not misread.
  ExpectDenied(verifier_.Verify(wrong_version, bound_, kNow), "version 1");
}

TEST_F(SlurmKeyAuthTest, ConcurrentVerifiersAcceptEachCredentialOnce) {
  std::vector<std::string> credentials;
  for (int i = 0; i < 200; ++i) credentials.push_back(IssueAt(kNow, bound_));
  std::atomic<int> accepted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (const std::string& credential : credentials) {
        if (verifier_.Verify(credential, bound_, kNow).ok()) ++accepted;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(accepted.load(), 200);
}

TEST_F(SlurmKeyAuthTest, CredentialsFromBeforeTheStartAreStale) {
  SlurmKeyVerifier::Options options;
  options.started_at_ms = kNow * 1000;
  SlurmKeyVerifier restarted(key_, options);
  for (int64_t issued_at : {kNow - 10, kNow}) {
    auto result = restarted.Verify(IssueAt(issued_at, bound_), bound_, kNow + 1);
    ExpectDenied(result, "stale credential");
    EXPECT_TRUE(IsStaleCredential(result.status()));
  }
  EXPECT_EQ(restarted.replay_cache_size(), 0u);
  EXPECT_TRUE(restarted.Verify(IssueAt(kNow + 1, bound_), bound_, kNow + 1).ok());
  // The start is exact to the millisecond: no second-long blind spot.
  options.started_at_ms = kNow * 1000 + 500;
  SlurmKeyVerifier started_mid_second(key_, options);
  auto at_ms = [&](int64_t ms) {
    SlurmKeyIssuer issuer(key_, kAlice, [ms] { return ms; });
    return *issuer.Issue(bound_);
  };
  ExpectDenied(started_mid_second.Verify(at_ms(kNow * 1000 + 500), bound_, kNow), "stale");
  EXPECT_TRUE(started_mid_second.Verify(at_ms(kNow * 1000 + 501), bound_, kNow).ok());
  // Genuineness is judged first: a forged credential is never called stale.
  std::string forged = IssueAt(kNow - 1, bound_);
  forged.back() ^= 1;
  ExpectDenied(restarted.Verify(forged, bound_, kNow + 1), "bad MAC");
}

// The wall clock stepped forward two hours, then back: credentials signed
// after the step back are accepted (not read as expired until the clock
// catches up); those dated up to the step's detection are stale, so an old
// credential whose nonce was evicted under the later time is not taken again.
TEST_F(SlurmKeyAuthTest, AClockSteppedBackRefusesOnlyWhatCouldBeReplayed) {
  const std::string before_steps = IssueAt(kNow, bound_);
  ASSERT_TRUE(verifier_.Verify(before_steps, bound_, kNow).ok());
  constexpr int64_t kAhead = kNow + 7200;
  ASSERT_TRUE(verifier_.Verify(IssueAt(kAhead, bound_), bound_, kAhead).ok());
  EXPECT_EQ(verifier_.replay_cache_size(), 1u);  // kNow's nonce was evicted

  auto stepped = verifier_.Verify(IssueAt(kNow + 10, bound_), bound_, kNow + 10);
  ExpectDenied(stepped, "stale credential");
  EXPECT_TRUE(IsStaleCredential(stepped.status()));
  // The replay of the evicted credential is refused too.
  ExpectDenied(verifier_.Verify(before_steps, bound_, kNow + 10), "stale credential");
  // Signed again a second later, as SendSigned does: accepted, once.
  const std::string fresh = IssueAt(kNow + 11, bound_);
  EXPECT_TRUE(verifier_.Verify(fresh, bound_, kNow + 11).ok());
  ExpectDenied(verifier_.Verify(fresh, bound_, kNow + 12), "replayed credential");
  // Small differences between threads' clocks are not steps.
  EXPECT_TRUE(verifier_.Verify(IssueAt(kNow + 12, bound_), bound_, kNow + 8).ok());
  // A second step back, an hour before the first: the same again, not
  // stale until the clock is back where the first step left it.
  ExpectDenied(verifier_.Verify(IssueAt(kNow - 3600, bound_), bound_, kNow - 3600), "stale");
  EXPECT_TRUE(verifier_.Verify(IssueAt(kNow - 3599, bound_), bound_, kNow - 3599).ok());
}

// A request signed just before a step back and checked just after is dated
// ahead; its sender is told to sign after the step's floor, not only after
// the daemon's now, so the credential it signs next is not stale.
TEST_F(SlurmKeyAuthTest, ARequestInFlightAcrossAStepBackSignsAfterTheFloor) {
  constexpr int64_t kAhead = kNow + 7200;
  ASSERT_TRUE(verifier_.Verify(IssueAt(kAhead, bound_), bound_, kAhead).ok());
  auto in_flight = verifier_.Verify(IssueAt(kAhead + 1, bound_), bound_, kNow + 10);
  ExpectDenied(in_flight, "in the future");
  int64_t sign_after = 0;
  ASSERT_TRUE(IsStaleCredential(in_flight.status(), &sign_after));
  EXPECT_EQ(sign_after, (kNow + 11) * 1000 - 1);
  // Within the second of the step: stale; past the floor: accepted.
  ExpectDenied(verifier_.Verify(IssueAt(kNow + 10, bound_), bound_, kNow + 10), "stale");
  EXPECT_TRUE(verifier_.Verify(IssueAt(kNow + 11, bound_), bound_, kNow + 11).ok());
}

// A daemon started while its clock was ahead: after the step back its
// start lies in the future, yet credentials signed after the step pass.
TEST_F(SlurmKeyAuthTest, AStartAheadOfTheClockStopsMattersAfterAStepBack) {
  SlurmKeyVerifier::Options options;
  options.started_at_ms = (kNow + 7200) * 1000;
  SlurmKeyVerifier started_ahead(key_, options);
  ASSERT_TRUE(started_ahead.Verify(IssueAt(kNow + 7201, bound_), bound_, kNow + 7201).ok());
  ExpectDenied(started_ahead.Verify(IssueAt(kNow, bound_), bound_, kNow), "stale");
  EXPECT_TRUE(started_ahead.Verify(IssueAt(kNow + 1, bound_), bound_, kNow + 1).ok());
}

}  // namespace
}  // namespace rota::auth
