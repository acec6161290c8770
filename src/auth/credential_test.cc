// The factory and auth/none.

#include "auth/credential.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "auth/none_auth.h"
#include "auth/slurm_key_auth.h"
#include "testing/temp_dir.h"

namespace rota::auth {
namespace {

using ::testing::HasSubstr;

// GCC warns about designated initializers that leave members out, so tests
// build settings through this.
AuthSettings Settings(std::string auth_type, std::string key_path = "") {
  AuthSettings settings;
  settings.auth_type = std::move(auth_type);
  settings.key_path = std::move(key_path);
  return settings;
}

TEST(RpcBindingBytesTest, MethodThenBody) {
  EXPECT_EQ(RpcBindingBytes(0x0102, "xy"), std::string("\x02\x01xy", 4));
  EXPECT_NE(RpcBindingBytes(1, "ab"), RpcBindingBytes(2, "ab"));
}

TEST(NoneAuthTest, RoundTripClaimsAnyone) {
  NoneIssuer issuer({.uid = 0, .gid = 0});
  NoneVerifier verifier;
  auto credential = issuer.Issue("ignored");
  ASSERT_TRUE(credential.ok());
  EXPECT_EQ(*credential, "none:0:0");
  auto identity = verifier.Verify(*credential, "anything", 0);
  ASSERT_TRUE(identity.ok());
  EXPECT_EQ(*identity, (Identity{.uid = 0, .gid = 0}));
  EXPECT_EQ(*verifier.Verify("none:4294967295:7", "", 0), (Identity{.uid = 4294967295u, .gid = 7}));
}

TEST(NoneAuthTest, MalformedIsRefused) {
  NoneVerifier verifier;
  for (std::string_view bad : {"", "none:", "none:1", "none:1:", "none::1", "none:1:2:3",
                               "none:-1:2", "none:4294967296:0", "slurm:1:2"}) {
    auto identity = verifier.Verify(bad, "", 0);
    ASSERT_FALSE(identity.ok()) << bad;
    EXPECT_EQ(identity.status().code(), StatusCode::kPermissionDenied);
  }
}

TEST(AuthFactoryTest, NoneUsesProcessIdentity) {
  auto issuer = MakeIssuer(Settings("auth/none"));
  auto verifier = MakeVerifier(Settings("auth/none"));
  ASSERT_TRUE(issuer.ok() && verifier.ok());
  auto identity = (*verifier)->Verify(*(*issuer)->Issue("x"), "x", 0);
  ASSERT_TRUE(identity.ok());
  EXPECT_EQ(identity->uid, geteuid());
  EXPECT_EQ(identity->gid, getegid());
}

TEST(AuthFactoryTest, SlurmLoadsKeyAndRoundTrips) {
  rota::testing::TempDir dir;
  std::string key_path = dir.Write("slurm.key", std::string(48, 'z'));
  ASSERT_EQ(chmod(key_path.c_str(), 0600), 0);
  AuthSettings settings = Settings("auth/slurm", key_path);
  auto issuer = MakeIssuer(settings);
  auto verifier = MakeVerifier(settings);
  ASSERT_TRUE(issuer.ok()) << issuer.status().ToString();
  ASSERT_TRUE(verifier.ok()) << verifier.status().ToString();
  const std::string bound = RpcBindingBytes(3, "body");
  std::this_thread::sleep_for(std::chrono::milliseconds(2));  // Past the verifier's start.
  auto identity = (*verifier)->Verify(*(*issuer)->Issue(bound), bound, SystemUnixNow());
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->uid, geteuid());
}

TEST(AuthFactoryTest, SlurmVerifierRefusesCredentialsSignedBeforeItStarted) {
  rota::testing::TempDir dir;
  std::string key_path = dir.Write("slurm.key", std::string(48, 'z'));
  ASSERT_EQ(chmod(key_path.c_str(), 0600), 0);
  AuthSettings settings = Settings("auth/slurm", key_path);
  auto issuer = MakeIssuer(settings);
  ASSERT_TRUE(issuer.ok()) << issuer.status().ToString();
  const std::string bound = RpcBindingBytes(3, "body");
  // Captured before a restart...
  const std::string captured = *(*issuer)->Issue(bound);
  auto first_run = MakeVerifier(settings);
  ASSERT_TRUE(first_run.ok());
  // ...and replayed to the next run, whose replay cache is empty.
  const int64_t now_ms = SystemUnixMillis();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto restarted = MakeVerifier(settings);
  ASSERT_TRUE(restarted.ok());
  auto replayed = (*restarted)->Verify(captured, bound, SystemUnixNow());
  ASSERT_FALSE(replayed.ok());
  int64_t started_at = 0;
  EXPECT_TRUE(IsStaleCredential(replayed.status(), &started_at)) << replayed.status().message();
  EXPECT_GT(started_at, now_ms);
  EXPECT_EQ(replayed.status().code(), StatusCode::kPermissionDenied);
}

TEST(StaleCredentialTest, RecognisedOnlyAsSuch) {
  int64_t started_at = 0;
  EXPECT_TRUE(IsStaleCredential(StaleCredential(99, 1234), &started_at));
  EXPECT_EQ(started_at, 1234);
  EXPECT_FALSE(IsStaleCredential(PermissionDenied("replayed credential")));
  EXPECT_FALSE(
      IsStaleCredential(Status(StatusCode::kUnavailable, StaleCredential(1, 2).message())));
  EXPECT_FALSE(IsStaleCredential(Status::Ok()));
}

TEST(AuthFactoryTest, SlurmRefusesLooseKeyAtConstruction) {
  rota::testing::TempDir dir;
  std::string key_path = dir.Write("slurm.key", std::string(48, 'z'));
  ASSERT_EQ(chmod(key_path.c_str(), 0644), 0);
  auto verifier = MakeVerifier(Settings("auth/slurm", key_path));
  ASSERT_FALSE(verifier.ok());
  EXPECT_EQ(verifier.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(verifier.status().message(), HasSubstr("0644"));
}

TEST(AuthFactoryTest, SlurmWithoutKeyPathFails) {
  EXPECT_FALSE(MakeIssuer(Settings("auth/slurm")).ok());
}

TEST(AuthFactoryTest, UnknownTypeFails) {
  auto issuer = MakeIssuer(Settings("auth/kerberos"));
  ASSERT_FALSE(issuer.ok());
  EXPECT_THAT(issuer.status().message(), HasSubstr("auth/kerberos"));
  EXPECT_FALSE(MakeVerifier(Settings("")).ok());
}

}  // namespace
}  // namespace rota::auth
