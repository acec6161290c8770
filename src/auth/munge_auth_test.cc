// auth/munge against a real munged of our own (munged_process.h). These tests
// FAIL, never skip, when munged cannot start: CI runs them as root with the
// munge package installed, so a missing daemon is a broken environment.

#include "auth/munge_auth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>

#include "auth/munged_process.h"
#include "testing/temp_dir.h"

namespace rota::auth {
namespace {

using ::testing::HasSubstr;

class MungeAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto munged = testing::MungedProcess::Start(dir_.path());
    ASSERT_TRUE(munged.ok()) << "cannot start a private munged: " << munged.status().ToString();
    munged_ = std::move(munged).value();
    issuer_ = std::make_unique<MungeIssuer>(munged_->socket_path());
    verifier_ = std::make_unique<MungeVerifier>(munged_->socket_path());
  }

  // Declared first, destroyed last: munged is stopped before its files go.
  rota::testing::TempDir dir_;
  std::unique_ptr<testing::MungedProcess> munged_;
  std::unique_ptr<MungeIssuer> issuer_;
  std::unique_ptr<MungeVerifier> verifier_;
  const std::string bound_ = RpcBindingBytes(11, "submit this");
};

TEST_F(MungeAuthTest, RoundTripsGiveOurIdentity) {
  for (int i = 0; i < 20; ++i) {
    auto credential = issuer_->Issue(bound_);
    ASSERT_TRUE(credential.ok()) << credential.status().ToString();
    EXPECT_TRUE(credential->starts_with("MUNGE:")) << *credential;
    auto identity = verifier_->Verify(*credential, bound_, 0);
    ASSERT_TRUE(identity.ok()) << identity.status().ToString();
    EXPECT_EQ(identity->uid, geteuid());
    EXPECT_EQ(identity->gid, getegid());
  }
}

TEST_F(MungeAuthTest, WrongBoundBytesAreRefused) {
  auto credential = issuer_->Issue(bound_);
  ASSERT_TRUE(credential.ok());
  auto identity = verifier_->Verify(*credential, RpcBindingBytes(11, "submit that"), 0);
  ASSERT_FALSE(identity.ok());
  EXPECT_EQ(identity.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(identity.status().message(), HasSubstr("digest mismatch"));
}

TEST_F(MungeAuthTest, ReplayIsRefused) {
  auto credential = issuer_->Issue(bound_);
  ASSERT_TRUE(credential.ok());
  ASSERT_TRUE(verifier_->Verify(*credential, bound_, 0).ok());
  auto again = verifier_->Verify(*credential, bound_, 0);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(again.status().message(), HasSubstr("replayed"));
}

TEST_F(MungeAuthTest, TamperedOrForeignCredentialsAreRefused) {
  auto credential = issuer_->Issue(bound_);
  ASSERT_TRUE(credential.ok());
  std::string tampered = *credential;
  char& c = tampered[tampered.size() / 2];
  c = (c == 'A') ? 'B' : 'A';
  for (const std::string& bad :
       {tampered, std::string("MUNGE:garbage:"), std::string("none:0:0"), std::string()}) {
    auto identity = verifier_->Verify(bad, bound_, 0);
    ASSERT_FALSE(identity.ok()) << bad;
    EXPECT_EQ(identity.status().code(), StatusCode::kPermissionDenied) << bad;
  }
}

// Screen runs before a request's body is read; Verify then checks the binding.
TEST_F(MungeAuthTest, ScreenedCredentialIsVerifiedOnceAgainstItsBody) {
  auto credential = issuer_->Issue(bound_);
  ASSERT_TRUE(credential.ok());
  ASSERT_TRUE(verifier_->Screen(*credential, SystemUnixNow()).ok());
  auto identity = verifier_->Verify(*credential, bound_, SystemUnixNow());
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->uid, geteuid());
  // Spent: neither a second Verify nor a second Screen accepts it.
  EXPECT_THAT(verifier_->Verify(*credential, bound_, SystemUnixNow()).status().message(),
              HasSubstr("replayed"));
  EXPECT_EQ(verifier_->Screen(*credential, SystemUnixNow()).code(), StatusCode::kPermissionDenied);
}

TEST_F(MungeAuthTest, ScreenRefusesForgedAndReplayedCredentialsBeforeTheBody) {
  auto credential = issuer_->Issue(bound_);
  ASSERT_TRUE(credential.ok());
  std::string tampered = *credential;
  char& c = tampered[tampered.size() / 2];
  c = (c == 'A') ? 'B' : 'A';
  for (const std::string& bad : {tampered, std::string("MUNGE:garbage:"), std::string("x")}) {
    EXPECT_EQ(verifier_->Screen(bad, SystemUnixNow()).code(), StatusCode::kPermissionDenied) << bad;
  }
  ASSERT_TRUE(verifier_->Verify(*credential, bound_, SystemUnixNow()).ok());
  Status replayed = verifier_->Screen(*credential, SystemUnixNow());
  EXPECT_EQ(replayed.code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(replayed.message(), HasSubstr("replayed"));
}

TEST_F(MungeAuthTest, ScreenedCredentialForAnotherBodyIsRefused) {
  auto credential = issuer_->Issue(bound_);
  ASSERT_TRUE(credential.ok());
  ASSERT_TRUE(verifier_->Screen(*credential, SystemUnixNow()).ok());
  auto identity = verifier_->Verify(*credential, RpcBindingBytes(11, "submit that"), 0);
  ASSERT_FALSE(identity.ok());
  EXPECT_THAT(identity.status().message(), HasSubstr("digest mismatch"));
}

TEST_F(MungeAuthTest, ScreenHoldsABoundedNumberOfCredentials) {
  MungeVerifier small(munged_->socket_path(), /*max_screened=*/2);
  for (int i = 0; i < 2; ++i) {
    auto credential = issuer_->Issue(bound_);
    ASSERT_TRUE(credential.ok());
    ASSERT_TRUE(small.Screen(*credential, SystemUnixNow()).ok()) << i;
  }
  auto third = issuer_->Issue(bound_);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(small.Screen(*third, SystemUnixNow()).code(), StatusCode::kUnavailable);
  // Once their TTL has run out, the held ones make room.
  EXPECT_TRUE(small.Screen(*third, SystemUnixNow() + 3600).ok());
}

TEST_F(MungeAuthTest, FactoryHonoursSocketPath) {
  AuthSettings settings;
  settings.auth_type = "auth/munge";
  settings.munge_socket = munged_->socket_path();
  auto issuer = MakeIssuer(settings);
  auto verifier = MakeVerifier(settings);
  ASSERT_TRUE(issuer.ok() && verifier.ok());
  auto credential = (*issuer)->Issue(bound_);
  ASSERT_TRUE(credential.ok()) << credential.status().ToString();
  EXPECT_TRUE((*verifier)->Verify(*credential, bound_, 0).ok());
}

TEST(MungeUnreachableTest, MissingSocketIsUnavailable) {
  rota::testing::TempDir dir;
  MungeIssuer issuer((dir.path() / "no.socket").string());
  auto credential = issuer.Issue("x");
  ASSERT_FALSE(credential.ok());
  EXPECT_EQ(credential.status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace rota::auth
