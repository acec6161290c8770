#pragma once

// The one thread that owns the controller's state. RPC handler threads never
// touch it: they enqueue Work and wait for their Reply. The loop applies
// queued work in batches, runs scheduling passes when due, appends every
// record of the batch to the write-ahead log with one sync (group commit), and
// only then runs the replies — so nothing is acknowledged before it is durable.
//
// A full state disk does not stop the controller. Before a batch that changes
// anything, the free space of the state directory is checked; below
// min_free_bytes, or when a batch could not be written after all (that batch
// is then held, unanswered and not carried out, and retried), the loop
// refuses changes: reads are served, work that changes state is refused (or,
// when it has no way to be refused, kept for later), and no scheduling pass
// runs. Every retry_durable it tries again, and resumes once it can.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "ctld/core/controller_core.h"
#include "ctld/server/accounting_sink.h"
#include "ctld/server/clock_step_watch.h"
#include "ctld/state/state_store.h"

namespace rota::ctld {

// Carries out the effects that leave the controller (launches and signals to
// node daemons). Called on the loop thread after the records are durable.
class EffectSink {
 public:
  virtual ~EffectSink() = default;
  virtual void Carry(const Effects& effects) = 0;
};

// The Refuse of a request answered through `respond` (an rpc::Responder, or
// anything else with Fail(const Status&)).
template <typename Responder>
std::function<void(const Status&)> RefuseThrough(Responder respond) {
  return [respond](const Status& why) { respond.Fail(why); };
}

class StateLoop {
 public:
  // Runs on the loop thread after the batch is durable; sends the answer.
  using Reply = std::function<void()>;
  // Runs on the loop thread with exclusive access to the core.
  using Work = std::function<Reply(ControllerCore& core, int64_t now, Effects& effects)>;
  // Wall-clock seconds for the core (injected so tests can move time).
  using WallClock = std::function<int64_t()>;
  // Answers a request with an error without running its Work: how a change is
  // refused while the state cannot be written.
  using Refuse = std::function<void(const Status& why)>;

  struct Options {
    size_t max_batch = 4096;
    // A full pass at least this often, to keep reasons and timers fresh.
    std::chrono::milliseconds periodic_pass{1000};
    // Snapshot once the log has grown by this much since the last one.
    uint64_t snapshot_after_bytes = 64ull << 20;
    // While changes are refused, how often the loop tries to resume.
    std::chrono::milliseconds retry_durable{1000};
    // Changes are refused while the state directory has less free than this
    // (room for a large batch and a snapshot's start).
    uint64_t min_free_bytes = 8ull << 20;
    // Watch the wall clock for steps against the monotonic one and have the
    // core keep durations across them (ControllerCore::ClockStepped). For a
    // clock that follows the system's: a test's fixed clock would read as
    // stepping back.
    bool follow_clock_steps = false;
  };

  StateLoop(std::unique_ptr<ControllerCore> core, std::unique_ptr<StateStore> store,
            EffectSink* sink, WallClock clock, Options options);
  ~StateLoop();
  StateLoop(const StateLoop&) = delete;
  StateLoop& operator=(const StateLoop&) = delete;

  // REQUIRES: before Start(); `sink` outlives the loop.
  void SetAccountingSink(AccountingSink* sink) { accounting_ = sink; }

  void Start();
  // Finishes the queued work, then stops the thread.
  void Stop();
  // Thread-safe. `refuse`, when given, answers the request while the state
  // cannot be written; work without one waits until it can.
  void Enqueue(Work work, Refuse refuse = nullptr);
  // Work that changes state (its records are made durable as any other's) but
  // cannot let a pending job start or change the order others start in: a
  // held or --test-only submission. Like a read it makes no pass due, so a
  // stream of held submissions into a deep queue is not followed by a pass
  // over every job after each batch. Thread-safe.
  void EnqueueWithoutPass(Work work, Refuse refuse = nullptr);
  // Work that only reads the core (publishing a view for a listing): unlike
  // other work it does not make a scheduling pass due, so a squeue on an idle
  // controller is answered without waiting for a pass over every job.
  // Thread-safe.
  void EnqueueRead(Work work);

  struct Stats {
    uint64_t batches = 0;
    uint64_t commands = 0;
    uint64_t passes = 0;
    uint64_t last_pass_us = 0;
    uint64_t max_pass_us = 0;
  };
  Stats stats() const;
  // Why changes are refused now, for sdiag and scontrol ping; "" when they are
  // not. Thread-safe.
  std::string refusing_changes() const;

 private:
  struct Queued {
    Work work;
    bool wants_pass;  // Whether it may change what a scheduling pass decides
    bool read;        // Only reads the core
    Refuse refuse;    // May be empty
  };
  // A batch (or a pass) whose changes are applied in memory but not yet on
  // disk: nothing of it is answered or carried out until they are.
  struct Undurable {
    Effects effects;
    std::vector<Reply> replies;
    int stage = 0;  // How far MakeDurable got: see there
  };

  void Run();
  void Push(Queued queued);
  void RunBatch(std::deque<Queued>& batch);
  // Accounting records, then log records, on disk. `*stage` records what is
  // done so that a retry does not write anything twice (0: nothing; 1: the
  // accounting records; 2: the node events too). Aborts the controller only
  // when the log itself is broken (a failed sync): a restart recovers.
  Status MakeDurable(const Effects& effects, int* stage);
  // Holds what could not be made durable and starts refusing changes.
  void Hold(Undurable held, const Status& why);
  bool refusing() const { return held_.has_value() || short_of_space_; }
  // Whether the state directory is writable and has min_free_bytes; says why
  // not once.
  bool EnoughSpace();
  void StartRefusing(std::string why);
  // Writes the held batch (answering it and carrying it out), checks the
  // space, and resumes taking changes when both succeed.
  void TryToResume();
  // While refusing: reads run, changes are refused or kept for later.
  void RunBatchWhileRefusing(std::deque<Queued>& batch);
  void Carry(const Effects& effects);
  bool PassDue(std::chrono::steady_clock::time_point now, bool wanted) const;
  // Snapshots are serialized and written on a thread of their own, so that a
  // big state never stalls acknowledgements; the loop adopts each once written.
  void StartSnapshot(uint64_t covers_seq);
  void FinishSnapshot(bool wait);

  std::unique_ptr<ControllerCore> core_;  // Loop thread only.
  std::unique_ptr<StateStore> store_;     // Loop thread only.
  EffectSink* sink_;
  AccountingSink* accounting_ = nullptr;
  WallClock clock_;
  Options options_;
  ClockStepWatch clock_steps_;  // Loop thread only

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Queued> queue_;  // Guarded by mu_.
  bool stopping_ = false;     // Guarded by mu_.
  Stats stats_;               // Guarded by mu_.

  std::chrono::steady_clock::time_point last_pass_{};
  std::chrono::microseconds last_pass_duration_{0};
  bool pass_wanted_ = true;
  std::optional<Undurable> held_;  // Loop thread only
  bool short_of_space_ = false;    // Loop thread only: or read-only
  std::deque<Queued> deferred_;    // Loop thread only: changes kept while refusing
  std::chrono::steady_clock::time_point last_retry_{};
  std::string refusing_;          // Guarded by mu_.
  std::future<Status> snapshot_;  // Loop thread only: the write in flight
  uint64_t snapshot_seq_ = 0;     // What it covers
  std::thread thread_;
};

}  // namespace rota::ctld
