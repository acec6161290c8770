#include "cli/query/sdiag_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace rota::cli {
namespace {

// "Sun Nov 29 07:14:16 2026 (1795936456)": ctime's layout, then the number.
std::string When(int64_t t, const std::function<int64_t(int64_t)>& utc_offset) {
  time_t local = static_cast<time_t>(t + utc_offset(t));
  tm parts{};
  gmtime_r(&local, &parts);
  char buf[64];
  strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &parts);
  return fmt::format("{} ({})", buf, t);
}

uint64_t Average(const wire::RpcCount& c) {
  return c.count() == 0 ? 0 : c.total_time_us() / c.count();
}

}  // namespace

void SortRpcCounts(wire::DiagResponse& diag, SdiagRpcOrder order) {
  if (order == SdiagRpcOrder::kCount) return;
  auto before = [order](const wire::RpcCount& a, const wire::RpcCount& b) {
    switch (order) {
      case SdiagRpcOrder::kId:
        return a.id() < b.id();
      case SdiagRpcOrder::kTotalTime:
        return a.total_time_us() > b.total_time_us();
      default:
        return Average(a) > Average(b);
    }
  };
  for (auto* list : {diag.mutable_rpc_types(), diag.mutable_rpc_users()}) {
    std::stable_sort(list->begin(), list->end(), before);
  }
}

std::string FormatSdiag(const wire::DiagResponse& d,
                        const std::function<int64_t(int64_t)>& utc_offset) {
  std::string out;
  auto line = [&out](const std::string& s) {
    out += s;
    out += '\n';
  };
  const std::string stars(55, '*');
  line(stars);
  line("sdiag output at " + When(d.now(), utc_offset));
  line("Data since      " + When(d.data_since(), utc_offset));
  line(stars);
  // Not in Slurm's sdiag: the one condition an administrator must act on.
  if (!d.refusing_changes().empty()) line("CHANGES REFUSED: " + d.refusing_changes());
  line(fmt::format("Server thread count:  {}", d.server_thread_count()));
  line(fmt::format("Agent queue size:     {}", d.agent_queue_size()));
  line(fmt::format("Agent count:          {}", d.agent_count()));
  line(fmt::format("Agent thread count:   {}", d.agent_thread_count()));
  line(fmt::format("DBD Agent queue size: {}", d.dbd_agent_queue_size()));
  line("");
  line(fmt::format("Jobs submitted: {}", d.jobs_submitted()));
  line(fmt::format("Jobs started:   {}", d.jobs_started()));
  line(fmt::format("Jobs completed: {}", d.jobs_completed()));
  line(fmt::format("Jobs canceled:  {}", d.jobs_canceled()));
  line(fmt::format("Jobs failed:    {}", d.jobs_failed()));
  line("");
  line("Job states ts:  " + When(d.job_states_time(), utc_offset));
  line(fmt::format("Jobs pending:   {}", d.jobs_pending()));
  line(fmt::format("Jobs running:   {}", d.jobs_running()));
  line("");
  line("Main schedule statistics (microseconds):");
  line(fmt::format("\tLast cycle:   {}", d.schedule_cycle_last()));
  line(fmt::format("\tMax cycle:    {}", d.schedule_cycle_max()));
  line(fmt::format("\tTotal cycles: {}", d.schedule_cycle_counter()));
  if (d.schedule_cycle_counter() > 0) {
    line(fmt::format("\tMean cycle:   {}", d.schedule_cycle_mean()));
    line(fmt::format("\tMean depth cycle:  {}", d.schedule_cycle_mean_depth()));
  }
  line(fmt::format("\tLast queue length: {}", d.schedule_queue_len()));
  line("");
  line("Backfilling stats");
  line(fmt::format("\tTotal backfilled jobs (since last slurm start): {}", d.bf_backfilled_jobs()));
  line(fmt::format("\tTotal backfilled jobs (since last stats cycle start): {}",
                   d.bf_last_backfilled_jobs()));
  line("\tTotal backfilled heterogeneous job components: 0");
  line(fmt::format("\tTotal cycles: {}", d.bf_cycle_counter()));
  if (d.bf_when_last_cycle() > 0) {
    line("\tLast cycle when: " + When(d.bf_when_last_cycle(), utc_offset));
  }
  line(fmt::format("\tLast cycle: {}", d.bf_cycle_last()));
  line(fmt::format("\tMax cycle:  {}", d.bf_cycle_max()));
  if (d.bf_cycle_counter() > 0) line(fmt::format("\tMean cycle: {}", d.bf_cycle_mean()));
  line(fmt::format("\tLast depth cycle: {}", d.bf_last_depth()));
  line(fmt::format("\tLast depth cycle (try sched): {}", d.bf_last_depth_try()));
  if (d.bf_cycle_counter() > 0) {
    line(fmt::format("\tDepth Mean: {}", d.bf_depth_mean()));
    line(fmt::format("\tDepth Mean (try depth): {}", d.bf_depth_mean_try()));
  }
  line(fmt::format("\tLast queue length: {}", d.bf_queue_len()));
  if (d.bf_cycle_counter() > 0) line(fmt::format("\tQueue length mean: {}", d.bf_queue_len_mean()));
  line(fmt::format("\tLast table size: {}", d.bf_table_size()));
  if (d.bf_cycle_counter() > 0) line(fmt::format("\tMean table size: {}", d.bf_table_size_mean()));
  line("");
  line(fmt::format("Latency for 1000 calls to gettimeofday(): {} microseconds",
                   d.gettimeofday_latency_us()));
  line("");
  line("Remote Procedure Call statistics by message type");
  for (const wire::RpcCount& c : d.rpc_types()) {
    line(fmt::format("\t{:<40}({:>5}) count:{:<6} ave_time:{:<6} total_time:{}", c.name(), c.id(),
                     c.count(), Average(c), c.total_time_us()));
  }
  line("");
  line("Remote Procedure Call statistics by user");
  for (const wire::RpcCount& c : d.rpc_users()) {
    line(fmt::format("\t{:<16}({:>8}) count:{:<6} ave_time:{:<6} total_time:{}", c.name(), c.id(),
                     c.count(), Average(c), c.total_time_us()));
  }
  line("");
  line("Pending RPC statistics");
  line("\tNo pending RPCs");
  return out;
}

}  // namespace rota::cli
