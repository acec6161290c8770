#pragma once

// What sdiag reports of the scheduler: the main pass, the backfill pass and
// the jobs that came and went, counted since the controller started or since
// the last `sdiag --reset`. Pure: pass durations come from an injected
// monotonic clock (microseconds); without one every duration is 0 (the
// simulator and unit tests that do not care).

#include <cstdint>
#include <functional>

#include "rota.pb.h"

namespace rota::ctld {

// Microseconds on a monotonic clock.
using MonotonicMicros = std::function<int64_t()>;

struct MainPassStats {
  uint64_t cycles = 0;
  uint64_t last_cycle_us = 0;
  uint64_t max_cycle_us = 0;
  uint64_t total_cycle_us = 0;
  uint64_t total_depth = 0;  // Jobs looked at, summed over cycles.
  uint64_t last_queue_length = 0;

  uint64_t MeanCycle() const { return cycles == 0 ? 0 : total_cycle_us / cycles; }
  uint64_t MeanDepth() const { return cycles == 0 ? 0 : total_depth / cycles; }
};

struct BackfillPassStats {
  uint64_t backfilled_jobs = 0;  // Since the controller started; kept by reset.
  uint64_t backfilled_since_reset = 0;
  uint64_t cycles = 0;
  int64_t last_cycle_when = 0;  // Unix seconds; 0: none since reset
  uint64_t last_cycle_us = 0;
  uint64_t max_cycle_us = 0;
  uint64_t total_cycle_us = 0;
  uint64_t last_depth = 0;      // Jobs the pass considered
  uint64_t last_depth_try = 0;  // Of those, jobs it decided on (start or plan)
  uint64_t total_depth = 0;
  uint64_t total_depth_try = 0;
  uint64_t last_queue_length = 0;
  uint64_t total_queue_length = 0;
  uint64_t last_table_size = 0;  // Entries of the availability profile
  uint64_t total_table_size = 0;

  uint64_t MeanCycle() const { return cycles == 0 ? 0 : total_cycle_us / cycles; }
  uint64_t MeanDepth() const { return cycles == 0 ? 0 : total_depth / cycles; }
  uint64_t MeanDepthTry() const { return cycles == 0 ? 0 : total_depth_try / cycles; }
  uint64_t MeanQueueLength() const { return cycles == 0 ? 0 : total_queue_length / cycles; }
  uint64_t MeanTableSize() const { return cycles == 0 ? 0 : total_table_size / cycles; }
};

// Owned by ControllerCore, so confined to the state loop thread.
class SchedStats {
 public:
  // `start`: Unix seconds the counting began (the controller's start).
  explicit SchedStats(int64_t start = 0) : since_(start) {}

  void SetClock(MonotonicMicros clock) { clock_ = std::move(clock); }
  // Now on the injected clock; 0 without one.
  int64_t Now() const { return clock_ ? clock_() : 0; }
  // Microseconds since `began` (a Now() value), never negative.
  uint64_t Since(int64_t began) const {
    int64_t d = Now() - began;
    return d > 0 ? static_cast<uint64_t>(d) : 0;
  }

  void RecordMainCycle(uint64_t cycle_us, uint64_t depth, uint64_t queue_length);
  void RecordBackfillCycle(int64_t when, uint64_t cycle_us, uint64_t depth, uint64_t depth_try,
                           uint64_t queue_length, uint64_t table_size);
  void JobBackfilled() {
    ++backfill_.backfilled_jobs;
    ++backfill_.backfilled_since_reset;
  }
  void JobSubmitted() { ++jobs_submitted_; }
  void JobStarted() { ++jobs_started_; }
  // A job took its final state: counted as completed, canceled or failed
  // (Slurm's grouping; other end states count nowhere).
  void JobEnded(wire::JobState state);

  // Zeroes everything but the backfilled jobs since start; `now` (Unix
  // seconds) becomes "Data since".
  void Reset(int64_t now);

  int64_t since() const { return since_; }
  uint64_t jobs_submitted() const { return jobs_submitted_; }
  uint64_t jobs_started() const { return jobs_started_; }
  uint64_t jobs_completed() const { return jobs_completed_; }
  uint64_t jobs_canceled() const { return jobs_canceled_; }
  uint64_t jobs_failed() const { return jobs_failed_; }
  const MainPassStats& main() const { return main_; }
  const BackfillPassStats& backfill() const { return backfill_; }

 private:
  MonotonicMicros clock_;
  int64_t since_;
  uint64_t jobs_submitted_ = 0;
  uint64_t jobs_started_ = 0;
  uint64_t jobs_completed_ = 0;
  uint64_t jobs_canceled_ = 0;
  uint64_t jobs_failed_ = 0;
  MainPassStats main_;
  BackfillPassStats backfill_;
};

}  // namespace rota::ctld
