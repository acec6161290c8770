#include "noded/gpu/gpu_watch.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "common/strings.h"

namespace rota::noded {

std::string GpuHealthReason(const GpuHealthEvent& e) {
  return fmt::format("GPU {} ({}): {}", e.index, e.device_file, GpuEventText(e.event));
}

std::optional<uint32_t> JobOfProcess(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/cgroup", pid));
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.find("/job_");
    if (at == std::string::npos) continue;
    std::string_view rest = std::string_view(line).substr(at + 5);
    rest = rest.substr(0, rest.find('/'));
    std::optional<uint64_t> id = ParseUint(rest);
    if (id && *id <= UINT32_MAX) return static_cast<uint32_t>(*id);
  }
  return std::nullopt;
}

namespace {

// The file each GPU is read by: its own, or a MIG instance's parent's.
std::vector<std::string> ReadableFiles(const std::vector<GpuDevice>& devices) {
  std::vector<std::string> files;
  for (const GpuDevice& d : devices)
    files.push_back(!d.parent_file.empty() ? d.parent_file : d.file);
  return files;
}

}  // namespace

GpuWatch::GpuWatch(std::unique_ptr<GpuSampler> sampler, const std::vector<GpuDevice>& devices,
                   std::chrono::seconds interval, HealthSink on_health, ProcessOwner owner,
                   Clock clock)
    : sampler_(std::move(sampler)),
      files_(ReadableFiles(devices)),
      interval_(interval),
      on_health_(std::move(on_health)),
      owner_(std::move(owner)),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })),
      start_(clock_()),
      meter_(files_) {}

GpuWatch::~GpuWatch() { Stop(); }

double GpuWatch::Now() const { return std::chrono::duration<double>(clock_() - start_).count(); }

void GpuWatch::Start() {
  if (interval_.count() <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void GpuWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GpuWatch::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (wake_.wait_for(lock, interval_, [this] { return stopping_; })) break;
    lock.unlock();
    SampleNow();
    lock.lock();
  }
}

void GpuWatch::Watch(uint64_t key, const std::vector<uint32_t>& indices,
                     std::optional<GpuIdleRule> idle, bool maybe_told_idle) {
  std::lock_guard<std::mutex> lock(mu_);
  meter_.Watch(key, indices, Now());
  health_hits_.erase(key);
  idle_.erase(key);
  if (idle) {
    IdleState& st = idle_[key];
    st.rule = *idle;
    st.maybe_told_idle = maybe_told_idle;
  }
}

std::optional<wire::GpuUsage> GpuWatch::Finish(uint64_t key) {
  SampleNow();
  std::lock_guard<std::mutex> lock(mu_);
  idle_.erase(key);
  return meter_.Finish(key);
}

void GpuWatch::Forget(uint64_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  meter_.Finish(key);
  health_hits_.erase(key);
  idle_.erase(key);
}

std::optional<wire::GpuUsage> GpuWatch::Current(uint64_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  return meter_.Current(key);
}

bool GpuWatch::TakeHealthHit(uint64_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  return health_hits_.erase(key) > 0;
}

void GpuWatch::TrackIdle(double now_s, std::vector<GpuIdleChange>& changes) {
  for (auto& [key, st] : idle_) {
    std::optional<double> util = meter_.LatestMeanUtil(key);
    if (!util) continue;  // Not read this time: no evidence either way
    if (*util < st.rule.threshold_pct) {
      if (!st.idle_from_s) {
        st.idle_from_s = now_s;
        st.idle_from_wall = std::chrono::system_clock::now();
        st.util_sum = 0;
        st.samples = 0;
      }
      st.util_sum += *util;
      ++st.samples;
      if (!st.flagged && now_s - *st.idle_from_s >= static_cast<double>(st.rule.period.count())) {
        st.flagged = true;
        st.maybe_told_idle = false;
        changes.push_back({key, true, st.idle_from_wall, st.util_sum / st.samples});
      }
      continue;
    }
    if (st.flagged) {
      changes.push_back({key, false, st.idle_from_wall, st.util_sum / st.samples});
    } else if (st.maybe_told_idle) {
      changes.push_back({key, false, std::chrono::system_clock::now(), *util});
    }
    st.maybe_told_idle = false;
    st.idle_from_s.reset();
    st.flagged = false;
  }
}

void GpuWatch::SampleNow() {
  std::vector<GpuHealthEvent> events;
  std::vector<GpuIdleChange> idle_changes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Result<std::vector<GpuReading>> readings = sampler_->Sample();
    if (!readings.ok()) {
      if (!sample_failing_) {
        spdlog::warn("GPU sampling ({}): {}", sampler_->Name(), readings.status().message());
      }
      sample_failing_ = true;
      return;
    }
    if (sample_failing_) spdlog::info("GPU sampling ({}) works again", sampler_->Name());
    sample_failing_ = false;
    const double now_s = Now();
    meter_.Record(*readings, now_s);
    TrackIdle(now_s, idle_changes);
    // What holds each GPU (jobs and steps), for the checks below.
    std::map<uint32_t, std::vector<uint64_t>> holders;
    for (const auto& [key, indices] : meter_.Watched()) {
      for (uint32_t index : indices) holders[index].push_back(key);
    }
    for (const GpuReading& r : *readings) {
      for (uint32_t index = 0; index < files_.size(); ++index) {
        if (files_[index] != r.device_file) continue;
        const std::vector<uint64_t>& keys = holders[index];
        std::vector<uint32_t> jobs;
        for (uint64_t key : keys) {
          if (std::find(jobs.begin(), jobs.end(), JobOfWatchKey(key)) == jobs.end()) {
            jobs.push_back(JobOfWatchKey(key));
          }
        }
        for (GpuEventKind kind :
             {GpuEventKind::kFallenOffBus, GpuEventKind::kRetiredPagesPending}) {
          const bool now = std::any_of(r.events.begin(), r.events.end(),
                                       [&](const GpuEvent& e) { return e.kind == kind; });
          if (!now) standing_.erase({index, kind});
        }
        for (const GpuEvent& e : r.events) {
          const bool lasting =
              e.kind == GpuEventKind::kFallenOffBus || e.kind == GpuEventKind::kRetiredPagesPending;
          if (lasting && !standing_.insert({index, e.kind}).second) continue;  // Told already
          events.push_back({index, r.device_file, e, jobs});
          health_hits_.insert(keys.begin(), keys.end());
        }
        for (pid_t pid : r.pids) {
          std::optional<uint32_t> job = owner_(pid);
          if (!job || std::find(jobs.begin(), jobs.end(), *job) != jobs.end()) continue;
          if (foreign_told_.insert({*job, index}).second) {
            spdlog::warn("job {}: process {} uses GPU {} ({}), which the job was not given", *job,
                         pid, index, r.device_file);
          }
        }
      }
    }
  }
  // Outside the lock: the sinks talk to the controller.
  for (const GpuHealthEvent& e : events) on_health_(e);
  if (on_idle_) {
    for (const GpuIdleChange& c : idle_changes) on_idle_(c);
  }
}

}  // namespace rota::noded
