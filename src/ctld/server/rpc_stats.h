#pragma once

// RPC counts and times for sdiag: per message type (Slurm's name and number
// for each of our method ids) and per calling user. Thread-safe: every RPC
// thread records into it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "diag.pb.h"

namespace rota::ctld {

// Slurm's message type for a method id of ours: its number and name
// ("method N" with number N for an id Slurm has no name for).
struct SlurmMessageType {
  uint32_t number = 0;
  std::string_view name;
};
SlurmMessageType SlurmMessageTypeOf(uint16_t method);

class RpcStats {
 public:
  // One request: `micros` spent handling it; `uid`/`user` the caller
  // (nullptr: unknown, the credential was refused).
  void Record(uint16_t method, const uint32_t* uid, const std::string& user, uint64_t micros);
  void Reset();
  // Fills rpc_types (most called first) and rpc_users (most calling first),
  // and server_thread_count (requests being handled now).
  void Fill(wire::DiagResponse& out) const;

  // Times one request on the thread that handles it, from construction to
  // destruction; counts it as in progress meanwhile.
  class Timer {
   public:
    Timer(RpcStats& stats, uint16_t method);
    ~Timer();
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;
    void SetCaller(uint32_t uid, const std::string& user) {
      uid_ = uid;
      user_ = user;
      known_ = true;
    }

   private:
    RpcStats& stats_;
    uint16_t method_;
    std::chrono::steady_clock::time_point began_;
    bool known_ = false;
    uint32_t uid_ = 0;
    std::string user_;
  };

 private:
  struct Tally {
    uint64_t count = 0;
    uint64_t total_us = 0;
  };
  std::atomic<uint32_t> active_{0};
  mutable std::mutex mu_;
  std::map<uint16_t, Tally> by_method_;                        // Guarded by mu_
  std::map<uint32_t, std::pair<std::string, Tally>> by_user_;  // uid -> name; guarded by mu_
};

// Microseconds 1000 reads of the wall clock take (sdiag's gettimeofday latency).
uint64_t WallClockLatency1000();

}  // namespace rota::ctld
