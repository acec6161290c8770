#include "cli/query/sdiag_format.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

void AddRpc(wire::RpcCount& c, uint32_t id, const char* name, uint64_t count, uint64_t total) {
  c.set_id(id);
  c.set_name(name);
  c.set_count(count);
  c.set_total_time_us(total);
}

// Slurm 22.05's sdiag on a small test cluster, and the same figures through
// FormatSdiag: the layout must match line for line.
TEST(SdiagFormatTest, MatchesSlurmLayout) {
  wire::DiagResponse d;
  d.set_now(1795936456);
  d.set_data_since(1795936406);
  d.set_server_thread_count(3);
  d.set_jobs_submitted(43);
  d.set_jobs_started(20);
  d.set_jobs_completed(16);
  d.set_job_states_time(1795936436);
  d.set_jobs_pending(1);
  d.set_schedule_cycle_last(147);
  d.set_schedule_cycle_max(2059);
  d.set_schedule_cycle_counter(11);
  d.set_schedule_cycle_mean(463);
  d.set_schedule_cycle_mean_depth(1);
  d.set_schedule_queue_len(5);
  d.set_bf_backfilled_jobs(1);
  d.set_bf_last_backfilled_jobs(1);
  d.set_bf_cycle_counter(1);
  d.set_bf_when_last_cycle(1795936435);
  d.set_bf_cycle_last(524);
  d.set_bf_cycle_max(524);
  d.set_bf_cycle_mean(524);
  d.set_bf_last_depth(1);
  d.set_bf_last_depth_try(1);
  d.set_bf_depth_mean(1);
  d.set_bf_depth_mean_try(1);
  d.set_bf_queue_len(1);
  d.set_bf_queue_len_mean(1);
  d.set_bf_table_size(1);
  d.set_bf_table_size_mean(1);
  d.set_gettimeofday_latency_us(24);
  AddRpc(*d.add_rpc_types(), 2009, "REQUEST_PARTITION_INFO", 156, 30160);
  AddRpc(*d.add_rpc_types(), 2049, "REQUEST_FED_INFO", 143, 31158);
  AddRpc(*d.add_rpc_types(), 2021, "REQUEST_JOB_INFO_SINGLE", 143, 28929);
  AddRpc(*d.add_rpc_types(), 4003, "REQUEST_SUBMIT_BATCH_JOB", 36, 22060);
  AddRpc(*d.add_rpc_types(), 2003, "REQUEST_JOB_INFO", 16, 4983);
  AddRpc(*d.add_rpc_types(), 2007, "REQUEST_NODE_INFO", 12, 3254);
  AddRpc(*d.add_rpc_types(), 5016, "REQUEST_STEP_COMPLETE", 12, 5461);
  AddRpc(*d.add_rpc_types(), 5001, "REQUEST_JOB_STEP_CREATE", 11, 7107);
  AddRpc(*d.add_rpc_types(), 5018, "REQUEST_COMPLETE_BATCH_SCRIPT", 10, 5808);
  AddRpc(*d.add_rpc_types(), 10001, "ACCOUNTING_UPDATE_MSG", 7, 2847);
  AddRpc(*d.add_rpc_types(), 4001, "REQUEST_RESOURCE_ALLOCATION", 7, 3576);
  AddRpc(*d.add_rpc_types(), 4019, "REQUEST_JOB_READY", 6, 1239);
  AddRpc(*d.add_rpc_types(), 5017, "REQUEST_COMPLETE_JOB_ALLOCATION", 6, 4486);
  AddRpc(*d.add_rpc_types(), 4027, "REQUEST_HET_JOB_ALLOC_INFO", 5, 3718);
  AddRpc(*d.add_rpc_types(), 1002, "MESSAGE_NODE_REGISTRATION_STATUS", 4, 1848);
  AddRpc(*d.add_rpc_types(), 2026, "REQUEST_PRIORITY_FACTORS", 3, 749);
  AddRpc(*d.add_rpc_types(), 2043, "REQUEST_ASSOC_MGR_INFO", 1, 278);
  AddRpc(*d.add_rpc_types(), 1008, "REQUEST_PING", 1, 244);
  AddRpc(*d.add_rpc_types(), 3002, "REQUEST_UPDATE_NODE", 1, 240);
  AddRpc(*d.add_rpc_types(), 2035, "REQUEST_STATS_INFO", 1, 347);
  AddRpc(*d.add_rpc_users(), 0, "root", 581, 158492);
  const std::string expected =
      "*******************************************************\n"
      "sdiag output at Sun Nov 29 07:14:16 2026 (1795936456)\n"
      "Data since      Sun Nov 29 07:13:26 2026 (1795936406)\n"
      "*******************************************************\n"
      "Server thread count:  3\n"
      "Agent queue size:     0\n"
      "Agent count:          0\n"
      "Agent thread count:   0\n"
      "DBD Agent queue size: 0\n"
      "\n"
      "Jobs submitted: 43\n"
      "Jobs started:   20\n"
      "Jobs completed: 16\n"
      "Jobs canceled:  0\n"
      "Jobs failed:    0\n"
      "\n"
      "Job states ts:  Sun Nov 29 07:13:56 2026 (1795936436)\n"
      "Jobs pending:   1\n"
      "Jobs running:   0\n"
      "\n"
      "Main schedule statistics (microseconds):\n"
      "\tLast cycle:   147\n"
      "\tMax cycle:    2059\n"
      "\tTotal cycles: 11\n"
      "\tMean cycle:   463\n"
      "\tMean depth cycle:  1\n"
      "\tLast queue length: 5\n"
      "\n"
      "Backfilling stats\n"
      "\tTotal backfilled jobs (since last slurm start): 1\n"
      "\tTotal backfilled jobs (since last stats cycle start): 1\n"
      "\tTotal backfilled heterogeneous job components: 0\n"
      "\tTotal cycles: 1\n"
      "\tLast cycle when: Sun Nov 29 07:13:55 2026 (1795936435)\n"
      "\tLast cycle: 524\n"
      "\tMax cycle:  524\n"
      "\tMean cycle: 524\n"
      "\tLast depth cycle: 1\n"
      "\tLast depth cycle (try sched): 1\n"
      "\tDepth Mean: 1\n"
      "\tDepth Mean (try depth): 1\n"
      "\tLast queue length: 1\n"
      "\tQueue length mean: 1\n"
      "\tLast table size: 1\n"
      "\tMean table size: 1\n"
      "\n"
      "Latency for 1000 calls to gettimeofday(): 24 microseconds\n"
      "\n"
      "Remote Procedure Call statistics by message type\n"
      "\tREQUEST_PARTITION_INFO                  ( 2009) count:156    ave_time:193    "
      "total_time:30160\n"
      "\tREQUEST_FED_INFO                        ( 2049) count:143    ave_time:217    "
      "total_time:31158\n"
      "\tREQUEST_JOB_INFO_SINGLE                 ( 2021) count:143    ave_time:202    "
      "total_time:28929\n"
      "\tREQUEST_SUBMIT_BATCH_JOB                ( 4003) count:36     ave_time:612    "
      "total_time:22060\n"
      "\tREQUEST_JOB_INFO                        ( 2003) count:16     ave_time:311    "
      "total_time:4983\n"
      "\tREQUEST_NODE_INFO                       ( 2007) count:12     ave_time:271    "
      "total_time:3254\n"
      "\tREQUEST_STEP_COMPLETE                   ( 5016) count:12     ave_time:455    "
      "total_time:5461\n"
      "\tREQUEST_JOB_STEP_CREATE                 ( 5001) count:11     ave_time:646    "
      "total_time:7107\n"
      "\tREQUEST_COMPLETE_BATCH_SCRIPT           ( 5018) count:10     ave_time:580    "
      "total_time:5808\n"
      "\tACCOUNTING_UPDATE_MSG                   (10001) count:7      ave_time:406    "
      "total_time:2847\n"
      "\tREQUEST_RESOURCE_ALLOCATION             ( 4001) count:7      ave_time:510    "
      "total_time:3576\n"
      "\tREQUEST_JOB_READY                       ( 4019) count:6      ave_time:206    "
      "total_time:1239\n"
      "\tREQUEST_COMPLETE_JOB_ALLOCATION         ( 5017) count:6      ave_time:747    "
      "total_time:4486\n"
      "\tREQUEST_HET_JOB_ALLOC_INFO              ( 4027) count:5      ave_time:743    "
      "total_time:3718\n"
      "\tMESSAGE_NODE_REGISTRATION_STATUS        ( 1002) count:4      ave_time:462    "
      "total_time:1848\n"
      "\tREQUEST_PRIORITY_FACTORS                ( 2026) count:3      ave_time:249    "
      "total_time:749\n"
      "\tREQUEST_ASSOC_MGR_INFO                  ( 2043) count:1      ave_time:278    "
      "total_time:278\n"
      "\tREQUEST_PING                            ( 1008) count:1      ave_time:244    "
      "total_time:244\n"
      "\tREQUEST_UPDATE_NODE                     ( 3002) count:1      ave_time:240    "
      "total_time:240\n"
      "\tREQUEST_STATS_INFO                      ( 2035) count:1      ave_time:347    "
      "total_time:347\n"
      "\n"
      "Remote Procedure Call statistics by user\n"
      "\troot            (       0) count:581    ave_time:272    total_time:158492\n"
      "\n"
      "Pending RPC statistics\n"
      "\tNo pending RPCs\n";
  EXPECT_EQ(FormatSdiag(d, [](int64_t) { return 0; }), expected);
}

TEST(SdiagFormatTest, NoCyclesYetLeavesOutTheMeans) {
  wire::DiagResponse d;
  std::string text = FormatSdiag(d, [](int64_t) { return 0; });
  EXPECT_NE(text.find("\tTotal cycles: 0\n\tLast queue length: 0\n"), std::string::npos);
  EXPECT_EQ(text.find("Mean cycle"), std::string::npos);
  EXPECT_EQ(text.find("Last cycle when"), std::string::npos);
  EXPECT_NE(text.find("Remote Procedure Call statistics by user\n\nPending"), std::string::npos);
}

TEST(SdiagFormatTest, RpcLinesSortByIdTotalOrAverageTime) {
  wire::DiagResponse d;
  AddRpc(*d.add_rpc_types(), 4003, "REQUEST_SUBMIT_BATCH_JOB", 10, 100);  // ave 10
  AddRpc(*d.add_rpc_types(), 2009, "REQUEST_PARTITION_INFO", 5, 400);     // ave 80
  AddRpc(*d.add_rpc_types(), 2003, "REQUEST_JOB_INFO", 2, 300);           // ave 150
  AddRpc(*d.add_rpc_users(), 1000, "alice", 3, 30);
  AddRpc(*d.add_rpc_users(), 0, "root", 14, 770);
  auto ids = [](const auto& list) {
    std::vector<uint32_t> out;
    for (const wire::RpcCount& c : list) out.push_back(c.id());
    return out;
  };
  wire::DiagResponse by = d;
  SortRpcCounts(by, SdiagRpcOrder::kCount);  // As the controller sent them
  EXPECT_EQ(ids(by.rpc_types()), (std::vector<uint32_t>{4003, 2009, 2003}));
  SortRpcCounts(by, SdiagRpcOrder::kId);
  EXPECT_EQ(ids(by.rpc_types()), (std::vector<uint32_t>{2003, 2009, 4003}));
  EXPECT_EQ(ids(by.rpc_users()), (std::vector<uint32_t>{0, 1000}));
  SortRpcCounts(by, SdiagRpcOrder::kTotalTime);
  EXPECT_EQ(ids(by.rpc_types()), (std::vector<uint32_t>{2009, 2003, 4003}));
  SortRpcCounts(by, SdiagRpcOrder::kAverageTime);
  EXPECT_EQ(ids(by.rpc_types()), (std::vector<uint32_t>{2003, 2009, 4003}));
  EXPECT_EQ(ids(by.rpc_users()), (std::vector<uint32_t>{0, 1000}));  // 55 and 10 on average
}

}  // namespace
}  // namespace rota::cli
