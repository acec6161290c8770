#include "rest/rest_caller.h"

#include <gtest/gtest.h>

#include "auth/jwt_credential.h"

namespace rota::rest {
namespace {

// {"alg":"HS256"} . {"sun":"alice","exp":1} . (signature not checked here)
constexpr const char* kAliceToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdW4iOiJhbGljZSIsImV4cCI6MX0.c2ln";

RestAuthOptions Options() {
  RestAuthOptions o;
  o.own_uid = 4242;
  o.auth_settings.auth_type = "auth/none";
  return o;
}

TEST(RestCallerTest, ReadsTheUserOfATokenWithoutTrustingIt) {
  EXPECT_EQ(UnverifiedTokenUser(kAliceToken), "alice");
  EXPECT_EQ(UnverifiedTokenUser("no dots"), "");
  EXPECT_EQ(UnverifiedTokenUser("a.!!!.c"), "");
}

TEST(RestCallerTest, TokenCallersForwardTheirTokenAsTheirCredential) {
  HttpRequest req;
  req.headers["x-slurm-user-name"] = "root";
  req.headers["x-slurm-user-token"] = "tok";
  auto caller = ResolveRestCaller(req, Options());
  ASSERT_TRUE(caller.ok()) << caller.status().message();
  EXPECT_EQ(caller->user, "root");
  EXPECT_EQ(caller->uid, 0u);
  auto issuer = caller->make_issuer();
  ASSERT_TRUE(issuer.ok());
  EXPECT_EQ(*(*issuer)->Issue("any"), auth::JwtCredential("root", "tok"));

  RestAuthOptions no_jwt = Options();
  no_jwt.jwt = false;
  EXPECT_FALSE(ResolveRestCaller(req, no_jwt).ok());
  req.headers["x-slurm-user-name"] = "no-such-user-here";
  EXPECT_FALSE(ResolveRestCaller(req, Options()).ok());
}

TEST(RestCallerTest, LocalSocketPeersMustBeRotarestdsOwnUser) {
  HttpRequest req;
  req.peer_uid = 4242;
  auto caller = ResolveRestCaller(req, Options());
  ASSERT_TRUE(caller.ok()) << caller.status().message();
  EXPECT_EQ(caller->uid, 4242u);
  req.peer_uid = 1;
  auto other = ResolveRestCaller(req, Options());
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("uid 1"), std::string::npos);
  RestAuthOptions no_local = Options();
  no_local.local = false;
  req.peer_uid = 4242;
  EXPECT_FALSE(ResolveRestCaller(req, no_local).ok());
  // Over TCP without a token: nobody.
  HttpRequest tcp;
  auto nobody = ResolveRestCaller(tcp, Options());
  ASSERT_FALSE(nobody.ok());
  EXPECT_NE(nobody.status().message().find("X-SLURM-USER-TOKEN"), std::string::npos);
}

}  // namespace
}  // namespace rota::rest
