#pragma once

// rotad's eye on its GPUs: every JobAcctGatherFrequency task= seconds a thread
// reads them (a GpuSampler), adds the figures to the jobs holding them
// (GpuUsageMeter), warns of a process on a GPU its job was not given, and
// hands health events (XID, uncorrectable ECC, a GPU off the bus, retired
// pages pending) to rotad, which drains the node. docs/gpu-efficiency.md.

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "noded/gpu/discovery/gpu_sampler.h"
#include "noded/gpu/gpu_allocator.h"
#include "noded/gpu/gpu_usage_meter.h"

namespace rota::noded {

// A health event on one of the node's GPUs, with the jobs that held it.
struct GpuHealthEvent {
  uint32_t index = 0;
  std::string device_file;
  GpuEvent event;
  std::vector<uint32_t> jobs;
};

// What a watch measures: a job's GPUs on its first node (its batch step),
// one step's GPUs on one of its nodes, or, for idleness only, a job's GPUs
// on one of its other nodes (its share there).
inline uint64_t JobWatchKey(uint32_t job_id) { return job_id; }
inline uint64_t StepWatchKey(uint32_t job_id, uint32_t step_id) {
  return (static_cast<uint64_t>(step_id) + 1) << 32 | job_id;
}
// A step id no step has (srun's count from 0; the batch container's is
// 0xfffffffb).
inline constexpr uint32_t kGpuShareStep = 0xfffffffe;
inline uint64_t ShareWatchKey(uint32_t job_id) { return StepWatchKey(job_id, kGpuShareStep); }
inline bool IsShareWatchKey(uint64_t key) { return key >> 32 == uint64_t{kGpuShareStep} + 1; }
inline uint32_t JobOfWatchKey(uint64_t key) { return static_cast<uint32_t>(key); }

// "GPU 1 (/dev/nvidia1): XID 79": the drain reason.
std::string GpuHealthReason(const GpuHealthEvent& e);

// The job a process belongs to, from its cgroup ("…/job_12/…"); nullopt for
// a process outside every job (or gone).
std::optional<uint32_t> JobOfProcess(pid_t pid);

// When a watched job's GPUs count as idle (conf's GpuIdlePolicy).
struct GpuIdleRule {
  double threshold_pct = 5;           // The GPUs' mean utilisation below which a sample is idle
  std::chrono::seconds period{1800};  // How long every sample must be idle
};

// A job's GPUs became idle (every sample below the threshold for the period),
// or busy again after that.
struct GpuIdleChange {
  uint64_t key = 0;
  bool idle = false;
  std::chrono::system_clock::time_point since;  // The first idle sample
  double mean_util_pct = 0;                     // Mean per GPU over the idle samples
};

class GpuWatch {
 public:
  using HealthSink = std::function<void(const GpuHealthEvent&)>;
  using ProcessOwner = std::function<std::optional<uint32_t>(pid_t)>;
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using IdleSink = std::function<void(const GpuIdleChange&)>;

  // `devices`: the node's GPUs (GpuAllocator's list). `interval` 0: no
  // thread, samples only at Finish. `owner` maps processes to jobs (tests
  // replace JobOfProcess); `clock` likewise.
  GpuWatch(std::unique_ptr<GpuSampler> sampler, const std::vector<GpuDevice>& devices,
           std::chrono::seconds interval, HealthSink on_health, ProcessOwner owner = JobOfProcess,
           Clock clock = nullptr);
  ~GpuWatch();  // Stop().

  std::string SamplerName() const { return sampler_->Name(); }
  // Where idle changes go (called from the sampling thread, unlocked). Set
  // before Start.
  void OnIdle(IdleSink sink) { on_idle_ = std::move(sink); }
  void Start();  // The sampling thread, unless the interval is 0.
  void Stop();   // Idempotent.

  // Measures the GPUs of `key` (JobWatchKey, StepWatchKey, ShareWatchKey)
  // from now on, and with `idle` tells OnIdle's sink when they turn idle and
  // busy again. `maybe_told_idle`: an earlier rotad may have told the
  // controller they were idle (a watch taken up again after a restart), so
  // their first busy sample is told too, though this watch never flagged them.
  void Watch(uint64_t key, const std::vector<uint32_t>& indices,
             std::optional<GpuIdleRule> idle = std::nullopt, bool maybe_told_idle = false);
  // Takes one last sample, then gives what its GPUs did (nullopt when it
  // was not watched) and stops measuring it.
  std::optional<wire::GpuUsage> Finish(uint64_t key);
  // Stops measuring `key` without a last sample (a step that failed).
  void Forget(uint64_t key);
  // What its GPUs did so far.
  std::optional<wire::GpuUsage> Current(uint64_t key);
  // Whether a health event hit a GPU that `key` held since it was watched
  // (told once).
  bool TakeHealthHit(uint64_t key);
  // One sample now (the thread's work; tests call it directly).
  void SampleNow();

 private:
  struct IdleState {
    GpuIdleRule rule;
    std::optional<double> idle_from_s;  // Now() of the first idle sample of the run
    std::chrono::system_clock::time_point idle_from_wall;
    double util_sum = 0;
    int samples = 0;
    bool flagged = false;
    bool maybe_told_idle = false;  // See Watch
  };
  // Follows each idle rule after a sample. REQUIRES: mu_ held.
  void TrackIdle(double now_s, std::vector<GpuIdleChange>& changes);
  void Loop();
  double Now() const;

  std::unique_ptr<GpuSampler> sampler_;
  std::vector<std::string> files_;  // By GPU index
  std::chrono::seconds interval_;
  HealthSink on_health_;
  ProcessOwner owner_;
  Clock clock_;
  std::chrono::steady_clock::time_point start_;

  std::mutex mu_;  // Serialises samples and guards what follows.
  GpuUsageMeter meter_;
  std::set<uint64_t> health_hits_;  // Keys whose GPU had an event
  // Conditions that last (off the bus, retired pages pending), by GPU index and
  // kind: told when they appear, not at every sample while they stand.
  std::set<std::pair<uint32_t, GpuEventKind>> standing_;
  std::map<uint64_t, IdleState> idle_;  // Keys watched for idleness
  IdleSink on_idle_;
  std::set<std::pair<uint32_t, uint32_t>> foreign_told_;  // (job, GPU) warned of once
  bool sample_failing_ = false;  // The last sample failed (said once in the log)
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace rota::noded
