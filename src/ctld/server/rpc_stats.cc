#include "ctld/server/rpc_stats.h"

#include <sys/time.h>

#include <algorithm>
#include <vector>

#include "api/methods.h"

namespace rota::ctld {

SlurmMessageType SlurmMessageTypeOf(uint16_t method) {
  switch (method) {
    case api::kPing:
      return {1008, "REQUEST_PING"};
    case api::kSubmitJob:
      return {4003, "REQUEST_SUBMIT_BATCH_JOB"};
    case api::kListJobs:
      return {2003, "REQUEST_JOB_INFO"};
    case api::kSignalJobs:
      return {5032, "REQUEST_KILL_JOB"};
    case api::kUpdateJob:
      return {3001, "REQUEST_UPDATE_JOB"};
    case api::kUpdateNode:
      return {3002, "REQUEST_UPDATE_NODE"};
    case api::kListNodes:
      return {2007, "REQUEST_NODE_INFO"};
    case api::kReconfigure:
      return {1003, "REQUEST_RECONFIGURE"};
    case api::kNodeRegister:
      return {1002, "MESSAGE_NODE_REGISTRATION_STATUS"};
    case api::kJobExited:
      return {5018, "REQUEST_COMPLETE_BATCH_SCRIPT"};
    case api::kCreateStep:
      return {5001, "REQUEST_JOB_STEP_CREATE"};
    case api::kStepEnded:
      return {5016, "REQUEST_STEP_COMPLETE"};
    case api::kListSteps:
      return {2005, "REQUEST_JOB_STEP_INFO"};
    case api::kSignalStep:
      return {5005, "REQUEST_CANCEL_JOB_STEP"};
    case api::kDiag:
      return {2035, "REQUEST_STATS_INFO"};
    default:
      return {method, ""};
  }
}

void RpcStats::Record(uint16_t method, const uint32_t* uid, const std::string& user,
                      uint64_t micros) {
  std::lock_guard<std::mutex> lock(mu_);
  Tally& m = by_method_[method];
  ++m.count;
  m.total_us += micros;
  if (uid != nullptr) {
    auto& [name, tally] = by_user_[*uid];
    if (name.empty()) name = user;
    ++tally.count;
    tally.total_us += micros;
  }
}

void RpcStats::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  by_method_.clear();
  by_user_.clear();
}

namespace {

void SortByCount(google::protobuf::RepeatedPtrField<wire::RpcCount>& counts) {
  std::stable_sort(
      counts.begin(), counts.end(),
      [](const wire::RpcCount& a, const wire::RpcCount& b) { return a.count() > b.count(); });
}

}  // namespace

void RpcStats::Fill(wire::DiagResponse& out) const {
  out.set_server_thread_count(active_.load());
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [method, tally] : by_method_) {
    SlurmMessageType type = SlurmMessageTypeOf(method);
    wire::RpcCount& c = *out.add_rpc_types();
    c.set_id(type.number);
    c.set_name(type.name.empty() ? "method " + std::to_string(method) : std::string(type.name));
    c.set_count(tally.count);
    c.set_total_time_us(tally.total_us);
  }
  for (const auto& [uid, entry] : by_user_) {
    wire::RpcCount& c = *out.add_rpc_users();
    c.set_id(uid);
    c.set_name(entry.first);
    c.set_count(entry.second.count);
    c.set_total_time_us(entry.second.total_us);
  }
  SortByCount(*out.mutable_rpc_types());
  SortByCount(*out.mutable_rpc_users());
}

RpcStats::Timer::Timer(RpcStats& stats, uint16_t method)
    : stats_(stats), method_(method), began_(std::chrono::steady_clock::now()) {
  stats_.active_.fetch_add(1);
}

RpcStats::Timer::~Timer() {
  auto took = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::steady_clock::now() - began_)
                  .count();
  stats_.Record(method_, known_ ? &uid_ : nullptr, user_,
                took > 0 ? static_cast<uint64_t>(took) : 0);
  stats_.active_.fetch_sub(1);
}

uint64_t WallClockLatency1000() {
  auto began = std::chrono::steady_clock::now();
  timeval tv{};
  for (int i = 0; i < 1000; ++i) gettimeofday(&tv, nullptr);
  auto took = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::steady_clock::now() - began)
                  .count();
  return took > 0 ? static_cast<uint64_t>(took) : 0;
}

}  // namespace rota::ctld
