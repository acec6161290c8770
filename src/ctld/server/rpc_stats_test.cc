#include "ctld/server/rpc_stats.h"

#include <gtest/gtest.h>

#include "api/methods.h"

namespace rota::ctld {
namespace {

TEST(RpcStatsTest, CountsByTypeAndUserMostFirst) {
  RpcStats stats;
  uint32_t root = 0;
  uint32_t alice = 1000;
  stats.Record(api::kSubmitJob, &alice, "alice", 100);
  stats.Record(api::kSubmitJob, &alice, "alice", 300);
  stats.Record(api::kListJobs, &root, "root", 50);
  stats.Record(api::kSubmitJob, nullptr, "", 200);  // Refused credential: no user.
  wire::DiagResponse out;
  stats.Fill(out);
  ASSERT_EQ(out.rpc_types_size(), 2);
  EXPECT_EQ(out.rpc_types(0).name(), "REQUEST_SUBMIT_BATCH_JOB");
  EXPECT_EQ(out.rpc_types(0).id(), 4003u);
  EXPECT_EQ(out.rpc_types(0).count(), 3u);
  EXPECT_EQ(out.rpc_types(0).total_time_us(), 600u);
  EXPECT_EQ(out.rpc_types(1).name(), "REQUEST_JOB_INFO");
  ASSERT_EQ(out.rpc_users_size(), 2);
  EXPECT_EQ(out.rpc_users(0).name(), "alice");
  EXPECT_EQ(out.rpc_users(0).id(), 1000u);
  EXPECT_EQ(out.rpc_users(0).count(), 2u);
  EXPECT_EQ(out.rpc_users(0).total_time_us(), 400u);
  EXPECT_EQ(out.rpc_users(1).name(), "root");
}

TEST(RpcStatsTest, TimerRecordsAndResetClears) {
  RpcStats stats;
  {
    RpcStats::Timer timer(stats, api::kDiag);
    timer.SetCaller(0, "root");
    wire::DiagResponse during;
    stats.Fill(during);
    EXPECT_EQ(during.server_thread_count(), 1u);  // This request, in progress.
  }
  wire::DiagResponse out;
  stats.Fill(out);
  EXPECT_EQ(out.server_thread_count(), 0u);
  ASSERT_EQ(out.rpc_types_size(), 1);
  EXPECT_EQ(out.rpc_types(0).name(), "REQUEST_STATS_INFO");
  EXPECT_EQ(out.rpc_users(0).name(), "root");
  stats.Reset();
  wire::DiagResponse after;
  stats.Fill(after);
  EXPECT_EQ(after.rpc_types_size(), 0);
  EXPECT_EQ(after.rpc_users_size(), 0);
}

TEST(RpcStatsTest, UnnamedMethodsKeepTheirNumber) {
  EXPECT_EQ(SlurmMessageTypeOf(999).number, 999u);
  EXPECT_TRUE(SlurmMessageTypeOf(999).name.empty());
  EXPECT_EQ(SlurmMessageTypeOf(api::kNodeRegister).name, "MESSAGE_NODE_REGISTRATION_STATUS");
}

}  // namespace
}  // namespace rota::ctld
