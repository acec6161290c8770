#include "auth/jwt_credential.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "auth/jwt_token.h"
#include "auth/none_auth.h"
#include "testing/temp_dir.h"

namespace rota::auth {
namespace {

constexpr std::string_view kKey = "0123456789abcdef0123456789abcdef";
constexpr int64_t kNow = 1'800'000'000;

std::optional<Identity> FakeUsers(const std::string& name) {
  if (name == "root") return Identity{0, 0};
  if (name == "slurm") return Identity{64, 64};
  if (name == "alice") return Identity{1001, 100};
  if (name == "bob") return Identity{1002, 100};
  return std::nullopt;
}

JwtAltVerifier MakeJwtVerifier() {
  JwtAltVerifier::Options options;
  options.key = std::string(kKey);
  options.slurm_user_uid = 64;
  options.lookup = FakeUsers;
  return JwtAltVerifier(std::make_unique<NoneVerifier>(), options);
}

std::string Token(std::string_view user, int64_t lifespan = 600, std::string_view key = kKey) {
  auto token = MintToken(key, user, kNow, lifespan);
  EXPECT_TRUE(token.ok()) << token.status().message();
  return token.ok() ? *token : "";
}

TEST(JwtTokenTest, MintedTokenVerifiesWithItsClaims) {
  auto claims = VerifyToken(kKey, Token("alice", 900), kNow + 10);
  ASSERT_TRUE(claims.ok()) << claims.status().message();
  EXPECT_EQ(claims->user, "alice");
  EXPECT_EQ(claims->issued_at, kNow);
  EXPECT_EQ(claims->expires_at, kNow + 900);
}

TEST(JwtTokenTest, RefusesExpiredForeignAndMalformedTokens) {
  auto expired = VerifyToken(kKey, Token("alice", 60), kNow + 60);
  EXPECT_EQ(expired.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(expired.status().message().find("expired"), std::string::npos);
  auto foreign = VerifyToken(kKey, Token("alice", 60, "another key entirely, 32 bytes.."), kNow);
  EXPECT_EQ(foreign.status().code(), StatusCode::kPermissionDenied);
  EXPECT_FALSE(VerifyToken(kKey, "not.a.token", kNow).ok());
  EXPECT_FALSE(VerifyToken(kKey, "", kNow).ok());
  // An unsigned token ("alg": "none") naming root: header {"alg":"none"},
  // claims {"sun":"root","exp":4000000000}.
  EXPECT_FALSE(
      VerifyToken(kKey, "eyJhbGciOiJub25lIn0.eyJzdW4iOiJyb290IiwiZXhwIjo0MDAwMDAwMDAwfQ.", kNow)
          .ok());
  EXPECT_FALSE(MintToken(kKey, "", kNow, 60).ok());
  EXPECT_FALSE(MintToken(kKey, "alice", kNow, 0).ok());
}

TEST(JwtCredentialTest, TokenActsForItsOwnUser) {
  JwtAltVerifier verifier = MakeJwtVerifier();
  auto id = verifier.Verify(JwtCredential("alice", Token("alice")), "any bytes", kNow);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(id->uid, 1001u);
  EXPECT_EQ(id->gid, 100u);
  EXPECT_TRUE(verifier.Screen(JwtCredential("alice", Token("alice")), kNow).ok());
}

TEST(JwtCredentialTest, OnlyRootAndSlurmUserTokensActForOthers) {
  JwtAltVerifier verifier = MakeJwtVerifier();
  auto as_bob = verifier.Verify(JwtCredential("bob", Token("alice")), "", kNow);
  EXPECT_EQ(as_bob.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(as_bob.status().message().find("belongs to alice"), std::string::npos);
  auto root_for_bob = verifier.Verify(JwtCredential("bob", Token("root")), "", kNow);
  ASSERT_TRUE(root_for_bob.ok());
  EXPECT_EQ(root_for_bob->uid, 1002u);
  auto slurm_for_alice = verifier.Verify(JwtCredential("alice", Token("slurm")), "", kNow);
  ASSERT_TRUE(slurm_for_alice.ok());
  EXPECT_EQ(slurm_for_alice->uid, 1001u);
  EXPECT_FALSE(verifier.Verify(JwtCredential("nobody-here", Token("root")), "", kNow).ok());
  EXPECT_FALSE(verifier.Verify(JwtCredential("ghost", Token("ghost")), "", kNow).ok());
  EXPECT_FALSE(verifier.Screen(JwtCredential("bob", Token("alice")), kNow).ok());
}

TEST(JwtCredentialTest, OtherCredentialsGoToThePrimaryMechanism) {
  JwtAltVerifier verifier = MakeJwtVerifier();
  NoneIssuer issuer(Identity{1001, 100});
  auto credential = issuer.Issue("bytes");
  ASSERT_TRUE(credential.ok());
  EXPECT_FALSE(IsJwtCredential(*credential));
  auto id = verifier.Verify(*credential, "bytes", kNow);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->uid, 1001u);
}

TEST(JwtCredentialTest, DaemonVerifierLoadsTheKeyAndRefusesAReadableOne) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "jwt_hs256.key").string();
  { std::ofstream(path) << kKey; }
  chmod(path.c_str(), 0644);
  AuthSettings settings;
  settings.auth_type = "auth/none";
  settings.jwt_key_path = path;
  auto loose = MakeDaemonVerifier(settings);
  ASSERT_FALSE(loose.ok());
  EXPECT_NE(loose.status().message().find("chmod 0600"), std::string::npos);
  chmod(path.c_str(), 0600);
  auto verifier = MakeDaemonVerifier(settings);
  ASSERT_TRUE(verifier.ok()) << verifier.status().message();
  auto id = (*verifier)->Verify(JwtCredential("root", Token("root")), "", kNow);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(id->uid, 0u);
  settings.jwt_key_path = (dir.path() / "missing.key").string();
  EXPECT_FALSE(MakeDaemonVerifier(settings).ok());
}

}  // namespace
}  // namespace rota::auth
