#include "auth/signed_send.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rota::auth {
namespace {

// Numbers its credentials, so a test can tell them apart.
class CountingIssuer final : public CredentialIssuer {
 public:
  Result<std::string> Issue(std::string_view) override {
    return "cred" + std::to_string(++issued_);
  }
  int issued_ = 0;
};

TEST(SendSignedTest, SendsOnceWhenAccepted) {
  CountingIssuer issuer;
  std::vector<std::string> sent;
  Status s = SendSigned(issuer, "bytes", [&](const std::string& credential) {
    sent.push_back(credential);
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(sent, std::vector<std::string>{"cred1"});
}

TEST(SendSignedTest, OtherRefusalsAreNotRetried) {
  CountingIssuer issuer;
  int sends = 0;
  Status s = SendSigned(issuer, "bytes", [&](const std::string&) {
    ++sends;
    return PermissionDenied("replayed credential");
  });
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(sends, 1);
}

TEST(SendSignedTest, StaleCredentialIsSignedAgainOnceTheStartSecondHasPassed) {
  CountingIssuer issuer;
  int64_t clock = 100;
  std::vector<std::string> sent;
  Status s = SendSigned(
      issuer, "bytes",
      [&](const std::string& credential) {
        sent.push_back(credential);
        // The daemon started at 100; a credential signed at 100 is stale too.
        if (sent.size() == 1) return StaleCredential(99, 100);
        return Status::Ok();
      },
      [&] { return clock++; });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(sent, (std::vector<std::string>{"cred1", "cred2"}));
  EXPECT_GT(clock, 101);  // Waited until the clock read past the start second.
}

// A credential that aged past its time to live in flight (the clock stepped
// forward between signing and checking) is signed again at once.
TEST(SendSignedTest, ACredentialAgedInFlightIsSignedAgain) {
  CountingIssuer issuer;
  std::vector<std::string> sent;
  Status s = SendSigned(
      issuer, "bytes",
      [&](const std::string& credential) {
        sent.push_back(credential);
        if (sent.size() == 1) return AgedCredential(1000, 4600, 300);
        return Status::Ok();
      },
      [] { return int64_t{4600'000}; });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(sent, (std::vector<std::string>{"cred1", "cred2"}));
  int64_t after = 0;
  EXPECT_TRUE(IsStaleCredential(AgedCredential(1000, 4600, 300), &after));
  EXPECT_EQ(after, 4300'000);
  EXPECT_NE(AgedCredential(1000, 4600, 300).message().find("outside its time to live of 300 s"),
            std::string::npos);
}

TEST(SendSignedTest, SignsAgainAtMostThreeTimes) {
  CountingIssuer issuer;
  int sends = 0;
  Status s = SendSigned(
      issuer, "bytes",
      [&](const std::string&) {
        ++sends;
        return StaleCredential(10, 10);
      },
      [] { return int64_t{11}; });
  EXPECT_TRUE(IsStaleCredential(s));
  EXPECT_EQ(sends, 4);
}

// A request in flight across a step back of the clock is refused as dated
// ahead, and the credential signed after it as stale (within the second the
// daemon saw the step): the third goes through.
TEST(SendSignedTest, AFutureRefusalThenAStaleOneIsSignedAgainTwice) {
  CountingIssuer issuer;
  int64_t clock = 100;
  std::vector<std::string> sent;
  Status s = SendSigned(
      issuer, "bytes",
      [&](const std::string& credential) {
        sent.push_back(credential);
        if (sent.size() == 1) return FutureCredential(7200, 100, 300);
        if (sent.size() == 2) return StaleCredential(clock, 110);
        return Status::Ok();
      },
      [&] { return clock++; });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(sent.size(), 3u);
  EXPECT_GT(clock, 111);
}

}  // namespace
}  // namespace rota::auth
