// The daemons' transport limits: the credential screen each daemon installs,
// and the environment overrides.

#include "api/transport_limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "api/methods.h"
#include "auth/none_auth.h"
#include "auth/slurm_key_auth.h"

namespace rota::api {
namespace {

using ::testing::HasSubstr;

EnvLookup Env(std::map<std::string, std::string> values) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(values));
  return [held](const char* name) -> const char* {
    auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

TEST(TransportLimitsTest, ScreenPassesGenuineCredentialsWithoutSpendingThem) {
  auto key = std::make_shared<const auth::SlurmKey>(std::string(64, 'k'));
  auth::SlurmKeyVerifier verifier(key);
  rpc::ServerOptions options;
  ASSERT_TRUE(ApplyTransportLimits(ControllerBodyLimits(), &verifier, &options, Env({})).ok());
  ASSERT_TRUE(options.screen_credential);

  auth::SlurmKeyIssuer issuer(key, {.uid = 1000, .gid = 1000});
  const std::string body = "request body";
  Result<std::string> credential = issuer.Issue(auth::RpcBindingBytes(kSubmitJob, body));
  ASSERT_TRUE(credential.ok());
  EXPECT_TRUE(options.screen_credential(kSubmitJob, *credential, "10.0.0.9:4000").ok());
  // The screen recorded nothing: the handler's Verify still accepts it once.
  EXPECT_TRUE(
      verifier.Verify(*credential, auth::RpcBindingBytes(kSubmitJob, body), auth::SystemUnixNow())
          .ok());

  // Signed with another key, or not a credential at all: refused unread.
  auth::SlurmKeyIssuer forger(std::make_shared<const auth::SlurmKey>(std::string(64, 'f')),
                              {.uid = 0, .gid = 0});
  Result<std::string> forged = forger.Issue(auth::RpcBindingBytes(kSubmitJob, body));
  ASSERT_TRUE(forged.ok());
  Status refused = options.screen_credential(kSubmitJob, *forged, "10.0.0.9:4000");
  EXPECT_EQ(refused.code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.message(), HasSubstr("bad MAC"));
  EXPECT_EQ(options.screen_credential(kSubmitJob, "garbage", "10.0.0.9:4000").code(),
            StatusCode::kPermissionDenied);

  // Expired: refused before its body too.
  auth::SlurmKeyIssuer old_issuer(key, {.uid = 1000, .gid = 1000},
                                  [] { return (auth::SystemUnixNow() - 3600) * 1000; });
  Result<std::string> old = old_issuer.Issue(auth::RpcBindingBytes(kSubmitJob, body));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(options.screen_credential(kSubmitJob, *old, "10.0.0.9:4000").code(),
            StatusCode::kPermissionDenied);
}

TEST(TransportLimitsTest, BodyLimitsAreLargeForSubmissionsAndSmallForQueries) {
  const rpc::MethodBodyLimits controller = ControllerBodyLimits();
  EXPECT_GE(controller.For(kSubmitJob), 64u << 20);
  EXPECT_LE(controller.For(kListJobs), 256u << 10);
  EXPECT_LE(controller.For(kPing), 256u << 10);
  EXPECT_EQ(controller.For(999), 1u << 20);  // Unknown methods.
  EXPECT_GE(NodeBodyLimits().For(kLaunchJob), 64u << 20);
  EXPECT_LE(NodeBodyLimits().For(kSignalJob), 1u << 20);
}

TEST(TransportLimitsTest, EnvironmentOverridesTheCapsAndTimeouts) {
  auth::NoneVerifier verifier;
  rpc::ServerOptions options;
  ASSERT_TRUE(ApplyTransportLimits(ControllerBodyLimits(), &verifier, &options,
                                   Env({{"ROTA_RPC_MAX_CONNECTIONS", "500"},
                                        {"ROTA_RPC_MAX_CONNECTIONS_PER_PEER", "7"},
                                        {"ROTA_RPC_IDLE_TIMEOUT", "30"},
                                        {"ROTA_RPC_UNAUTHENTICATED_TIMEOUT", "3"}}))
                  .ok());
  EXPECT_EQ(options.max_connections, 500u);
  EXPECT_EQ(options.max_connections_per_peer, 7u);
  EXPECT_EQ(options.idle_timeout, std::chrono::seconds(30));
  EXPECT_EQ(options.unauthenticated_timeout, std::chrono::seconds(3));

  rpc::ServerOptions defaults;
  ASSERT_TRUE(ApplyTransportLimits(ControllerBodyLimits(), &verifier, &defaults, Env({})).ok());
  EXPECT_EQ(defaults.max_connections, 0u);  // Sized from RLIMIT_NOFILE at Start.
  EXPECT_EQ(defaults.max_connections_per_peer, 256u);
  EXPECT_EQ(defaults.idle_timeout, std::chrono::seconds(60));
  EXPECT_EQ(defaults.unauthenticated_timeout, std::chrono::seconds(10));

  for (const char* bad : {"0", "-3", "many", ""}) {
    rpc::ServerOptions refused;
    Status s = ApplyTransportLimits(ControllerBodyLimits(), &verifier, &refused,
                                    Env({{"ROTA_RPC_MAX_CONNECTIONS_PER_PEER", bad}}));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("ROTA_RPC_MAX_CONNECTIONS_PER_PEER")) << bad;
  }
}

TEST(TransportLimitsTest, DescriptorReserveLeavesRoomForTheDaemonsOwnFiles) {
  EXPECT_EQ(rpc::DefaultMaxConnections(1024), 768u);
  EXPECT_EQ(rpc::DefaultMaxConnections(4096), 3072u);
  EXPECT_EQ(rpc::DefaultMaxConnections(1 << 20), 16384u);
  EXPECT_EQ(rpc::DefaultMaxConnections(100), 16u);
}

}  // namespace
}  // namespace rota::api
