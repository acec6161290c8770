#pragma once
// The fault suite's fixture (docs/reliability.md, "Fault suite"): a real
// rotactld, rotadbd and two rotad (cgroups v1, fake GPUs) under four
// submitters, and the checks made after each storm: no acknowledged job lost
// or duplicated, every job in a final state, no process of an ended job left,
// no GPU held by two jobs' processes at once, every job accounted once.
//
// The seed is fixed (kSeed); ROTA_CHAOS_SEED=N runs another storm, and a
// failure prints the seed that reproduces it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/strings.h"
#include "testing/pg_test_env.h"
#include "tests/integration/dbd_process.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota::chaos {

using testing::DaemonProcess;
using testing::NodedCluster;
using testing::ReadFileText;
using testing::WaitUntil;
using Clock = std::chrono::steady_clock;

inline constexpr uint32_t kSeed = 2801;

inline uint32_t Seed() {
  const char* env = std::getenv("ROTA_CHAOS_SEED");
  std::optional<uint64_t> n = env != nullptr ? ParseUint(env) : std::nullopt;
  return n ? static_cast<uint32_t>(*n) : kSeed;
}

inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline bool IsFinal(const std::string& state) {
  static const std::set<std::string> kFinal = {"COMPLETED", "FAILED",    "CANCELLED",
                                               "TIMEOUT",   "NODE_FAIL", "PREEMPTED",
                                               "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY"};
  return kFinal.count(state) > 0;
}

// A live process that belongs to a job submitted in this run: its
// environment carries CHAOS_RUN=<token> (sbatch exports the submitter's
// environment to the batch script, and from there to srun's tasks), which no
// daemon's environment does.
struct JobProcess {
  pid_t pid = 0;
  uint32_t job = 0;
  std::string node;
  std::vector<uint32_t> gpus;  // Physical indices on `node`
};

inline std::map<std::string, std::string> EnvironmentOf(pid_t pid) {
  std::map<std::string, std::string> env;
  const std::string raw = ReadFileText("/proc/" + std::to_string(pid) + "/environ");
  for (std::string_view entry : Split(raw, '\0')) {
    size_t eq = entry.find('=');
    if (eq != std::string_view::npos) {
      env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
    }
  }
  return env;
}

inline std::vector<JobProcess> JobProcesses(const std::string& token) {
  std::vector<JobProcess> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    std::optional<uint64_t> pid = ParseUint(entry.path().filename().string());
    if (!pid) continue;
    std::map<std::string, std::string> env = EnvironmentOf(static_cast<pid_t>(*pid));
    auto run = env.find("CHAOS_RUN");
    if (run == env.end() || run->second != token) continue;
    if (!testing::ProcessAlive(static_cast<pid_t>(*pid))) continue;
    JobProcess p;
    p.pid = static_cast<pid_t>(*pid);
    p.job = static_cast<uint32_t>(ParseUint(env["SLURM_JOB_ID"]).value_or(0));
    p.node = env["SLURMD_NODENAME"];
    std::string gpus =
        env.count("SLURM_STEP_GPUS") ? env["SLURM_STEP_GPUS"] : env["SLURM_JOB_GPUS"];
    for (std::string_view g : Split(gpus, ',')) {
      if (std::optional<uint64_t> i = ParseUint(g)) p.gpus.push_back(static_cast<uint32_t>(*i));
    }
    found.push_back(std::move(p));
  }
  return found;
}

inline pid_t ParentOf(pid_t pid) {
  std::string stat = ReadFileText("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::vector<std::string_view> fields = Split(std::string_view(stat).substr(paren + 2), ' ');
  return fields.size() < 2 ? 0 : static_cast<pid_t>(ParseUint(fields[1]).value_or(0));
}

// The rota-stepd that `pid` runs under, or 0.
inline pid_t StepDaemonOf(pid_t pid) {
  for (int depth = 0; depth < 8 && pid > 1; ++depth) {
    pid = ParentOf(pid);
    if (Trim(ReadFileText("/proc/" + std::to_string(pid) + "/comm")) == "rota-stepd") return pid;
  }
  return 0;
}

// Calls `sample` every `period` on a thread of its own until destroyed; the
// destructor stops and joins it, so a failed assertion leaves no thread. An
// owner declares it last, so that it stops before what `sample` uses goes.
class PeriodicSampler {
 public:
  PeriodicSampler(std::chrono::milliseconds period, std::function<void()> sample)
      : thread_([this, period, sample = std::move(sample)] {
          while (!stop_) {
            sample();
            std::this_thread::sleep_for(period);
          }
        }) {}
  ~PeriodicSampler() {
    stop_ = true;
    thread_.join();
  }
  PeriodicSampler(const PeriodicSampler&) = delete;
  PeriodicSampler& operator=(const PeriodicSampler&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;  // After stop_, which it reads from its start
};

// Watches the processes of a run's jobs every 100 ms until destroyed, and
// records each moment two jobs' live processes hold the same GPU of a node.
class GpuWatch {
 public:
  explicit GpuWatch(std::string token) : token_(std::move(token)) {}
  std::vector<std::string> Overlaps() {
    std::lock_guard<std::mutex> lock(mu_);
    return overlaps_;
  }
  int samples() const { return samples_; }
  int gpu_samples() const { return gpu_samples_; }

 private:
  void Sample() {
    std::map<std::pair<std::string, uint32_t>, std::set<uint32_t>> holders;
    for (const JobProcess& p : JobProcesses(token_)) {
      for (uint32_t g : p.gpus) holders[{p.node, g}].insert(p.job);
    }
    ++samples_;
    if (!holders.empty()) ++gpu_samples_;
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [gpu, jobs] : holders) {
      if (jobs.size() < 2) continue;
      std::string who;
      for (uint32_t j : jobs) who += " " + std::to_string(j);
      overlaps_.push_back(gpu.first + " gpu " + std::to_string(gpu.second) + " held by jobs" + who);
    }
  }

  const std::string token_;
  std::atomic<int> samples_{0};
  std::atomic<int> gpu_samples_{0};
  std::mutex mu_;
  std::vector<std::string> overlaps_;  // Guarded by mu_.
  PeriodicSampler sampler_{std::chrono::milliseconds(100), [this] { Sample(); }};
};

// Four threads submitting jobs through sbatch until stopped (or destroyed,
// which stops and joins them, so that a failed assertion leaves no thread).
// Each submission has a name of its own; an sbatch that fails (a controller
// down) is not retried under the same name.
class Submitters {
 public:
  using MakeOptions = std::function<std::string(int thread, std::mt19937& rng)>;
  static constexpr int kThreads = 4;

  Submitters(const NodedCluster& cluster, std::string token, uint32_t seed, MakeOptions options,
             std::chrono::milliseconds pause)
      : cluster_(cluster), token_(std::move(token)) {
    for (int t = 0; t < kThreads; ++t) {
      threads_.emplace_back([this, t, seed, options, pause] {
        std::mt19937 rng(seed + 1 + t);
        for (int n = 0; !stop_; ++n) {
          const std::string name = "ch" + std::to_string(t) + "_" + std::to_string(n);
          testing::CommandResult r =
              cluster_.Run("CHAOS_RUN=" + token_ + " sbatch --parsable -J " + name +
                           " --chdir=" + cluster_.work_dir() + " -o /dev/null " + options(t, rng));
          std::optional<uint64_t> id = ParseUint(Trim(r.out));
          {
            std::lock_guard<std::mutex> lock(mu_);
            ++attempts_;
            if (r.exit_code == 0 && id) {
              acknowledged_[name] = static_cast<uint32_t>(*id);
            } else if (refusals_.size() < 10) {
              refusals_.push_back(r.out);
            }
          }
          std::this_thread::sleep_for(pause + std::chrono::milliseconds(rng() % pause.count()));
        }
      });
    }
  }
  ~Submitters() { Stop(); }
  void Stop() {
    stop_ = true;
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  // Job name -> the id sbatch printed.
  std::map<std::string, uint32_t> Acknowledged() {
    std::lock_guard<std::mutex> lock(mu_);
    return acknowledged_;
  }
  int attempts() {
    std::lock_guard<std::mutex> lock(mu_);
    return attempts_;
  }
  // What the first ten refused submissions printed.
  std::vector<std::string> Refusals() {
    std::lock_guard<std::mutex> lock(mu_);
    return refusals_;
  }

 private:
  const NodedCluster& cluster_;
  std::string token_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::map<std::string, uint32_t> acknowledged_;  // Guarded by mu_.
  int attempts_ = 0;                              // Guarded by mu_.
  std::vector<std::string> refusals_;             // Guarded by mu_.
  std::vector<std::thread> threads_;
};

struct JobRow {
  std::string name;
  std::string state;
};

class ChaosTest : public testing::TwoNodeClusterTest {
 protected:
  std::string Settings() const override { return testing::AccountingConf(dbd_port_); }
  void SetUp() override {
    start_ = Clock::now();
    token_ = std::to_string(getpid()) + "_" + std::to_string(seed_);
    TwoNodeClusterTest::SetUp();
    if (HasFatalFailure()) return;
    BeforeDbdStarts();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(StartDbd()) << dbd_->Log();
  }
  void TearDown() override {
    if (HasFailure()) {
      std::cerr << "chaos seed " << seed_ << " (ROTA_CHAOS_SEED=" << seed_ << " reproduces it)\n"
                << "rotadbd log:\n"
                << (dbd_ ? dbd_->Log() : "");
    }
    TwoNodeClusterTest::TearDown();
    dbd_.reset();
  }
  virtual void BeforeDbdStarts() {}

  bool StartDbd() {
    dbd_ = std::make_unique<DaemonProcess>(
        std::vector<std::string>{testing::BinDir() + "/rotadbd", "-f", cluster_->conf(), "-s",
                                 (cluster_->dir().path() / "dbd").string()},
        (cluster_->dir().path() / "rotadbd.log").string());
    return WaitUntil([&] { return testing::LoopbackAccepting(dbd_port_); });
  }
  void KillDbd() {
    kill(dbd_->pid(), SIGKILL);
    dbd_->Stop();  // Reaps it.
  }
  bool RestartController() {
    kill(ctld_->pid(), SIGKILL);
    ctld_->Stop();
    ctld_ = std::make_unique<DaemonProcess>(
        std::vector<std::string>{testing::BinDir() + "/rotactld", "-f", cluster_->conf()},
        (cluster_->dir().path() / "rotactld.log").string());
    return WaitUntil([&] { return cluster_->Run("sinfo -h -o %t").exit_code == 0; });
  }

  // Every job the controller lists, by id; `duplicates` gets the ids listed twice.
  std::map<uint32_t, JobRow> Jobs(std::vector<uint32_t>* duplicates = nullptr) {
    std::map<uint32_t, JobRow> jobs;
    testing::CommandResult r = cluster_->Run("squeue -h -t all -o '%i|%j|%T'");
    if (r.exit_code != 0) return jobs;
    for (std::string_view line : Split(r.out, '\n')) {
      std::vector<std::string_view> cells = Split(line, '|');
      if (cells.size() != 3) continue;
      uint32_t id = static_cast<uint32_t>(ParseUint(cells[0]).value_or(0));
      if (jobs.count(id) && duplicates != nullptr) duplicates->push_back(id);
      jobs[id] = JobRow{std::string(cells[1]), std::string(cells[2])};
    }
    return jobs;
  }
  bool AllFinal(const std::map<uint32_t, JobRow>& jobs) {
    if (jobs.empty()) return false;
    for (const auto& [id, row] : jobs) {
      if (!IsFinal(row.state)) return false;
    }
    return true;
  }
  // Waits up to `timeout` for every job to reach a final state; returns the listing.
  std::map<uint32_t, JobRow> Drain(std::chrono::seconds timeout) {
    std::map<uint32_t, JobRow> jobs;
    WaitUntil([&] { return AllFinal(jobs = Jobs()); }, timeout);
    return jobs;
  }

  // The checks common to every storm: each acknowledged job listed once under
  // its name and final; nothing of an ended job left; each job accounted once
  // with the state the controller gave it.
  void CheckAfterStorm(const std::map<std::string, uint32_t>& acknowledged,
                       const std::map<uint32_t, JobRow>& jobs) {
    std::vector<uint32_t> duplicates;
    Jobs(&duplicates);
    EXPECT_TRUE(duplicates.empty()) << "ids listed twice: " << duplicates.size();
    std::map<std::string, std::vector<uint32_t>> ids_of_name;
    for (const auto& [id, row] : jobs) ids_of_name[row.name].push_back(id);
    for (const auto& [name, ids] : ids_of_name) {
      EXPECT_EQ(ids.size(), 1u) << "job name " << name << " created " << ids.size() << " times";
    }
    std::set<uint32_t> acked_ids;
    for (const auto& [name, id] : acknowledged) {
      EXPECT_TRUE(acked_ids.insert(id).second) << "id " << id << " acknowledged twice";
      auto it = jobs.find(id);
      if (it == jobs.end()) {
        ADD_FAILURE() << "acknowledged job " << id << " (" << name << ") was lost";
        continue;
      }
      EXPECT_EQ(it->second.name, name) << "job " << id;
      EXPECT_TRUE(IsFinal(it->second.state)) << "job " << id << " is " << it->second.state;
    }

    // No process of any job of this run is left (all have ended), and no
    // job's cgroup remains on either node.
    std::vector<JobProcess> left;
    WaitUntil([&] { return (left = JobProcesses(token_)).empty(); }, std::chrono::seconds(5));
    for (const JobProcess& p : left) {
      ADD_FAILURE() << "pid " << p.pid << " of ended job " << p.job << " still runs on " << p.node
                    << ": " << ReadFileText("/proc/" + std::to_string(p.pid) + "/cmdline");
    }
    for (int n = 1; n <= NodedCluster::kNodes; ++n) {
      for (const char* controller : {"freezer", "memory", "devices", "cpuset"}) {
        for (const auto& [id, row] : jobs) {
          const std::string dir = NodedCluster::CgroupDir(controller, cluster_->Node(n), id);
          EXPECT_TRUE(
              WaitUntil([&] { return !std::filesystem::exists(dir); }, std::chrono::seconds(2)))
              << dir << " is left after job " << id << " ended " << row.state;
        }
      }
    }

    // Accounting: the job's last attempt once (without -D), with the
    // controller's final state; with -D one line per attempt.
    // Up to a day ahead: jobs that ran while the clock was ahead
    // (clock_jump_test) are recorded at the times it gave.
    std::string expected;
    for (const auto& [id, row] : jobs) {
      expected += std::to_string(id) + "|" + row.name + "|" + row.state + "\n";
    }
    std::string sacct;
    WaitUntil(
        [&] {
          sacct =
              cluster_->Run("sacct -X -n -P -S now-1days -E now+1days -o JobID,JobName,State").out;
          // sacct writes "CANCELLED by 0" where squeue writes CANCELLED.
          std::string plain;
          for (std::string_view line : Split(sacct, '\n')) {
            if (line.empty()) continue;
            std::string l(line);
            if (size_t by = l.find(" by "); by != std::string::npos) l.resize(by);
            plain += l + "\n";
          }
          sacct = plain;
          return sacct == expected;
        },
        std::chrono::seconds(40));
    EXPECT_EQ(sacct, expected);
    std::map<uint32_t, std::pair<int, int>> attempts;  // id -> (lines, restarts)
    const std::string records =
        cluster_->Run("sacct -X -n -P -D -S now-1days -E now+1days -o JobID,Restarts").out;
    for (std::string_view line : Split(records, '\n')) {
      std::vector<std::string_view> cells = Split(line, '|');
      if (cells.size() != 2) continue;
      auto& a = attempts[static_cast<uint32_t>(ParseUint(cells[0]).value_or(0))];
      ++a.first;
      a.second = std::max(a.second, static_cast<int>(ParseUint(cells[1]).value_or(0)));
    }
    for (const auto& [id, a] : attempts) {
      EXPECT_EQ(a.first, a.second + 1)
          << "job " << id << ": " << a.first << " records for " << a.second << " restarts";
    }
  }

  uint32_t seed_ = Seed();
  uint16_t dbd_port_ = testing::FreeLoopbackPort();
  std::unique_ptr<DaemonProcess> dbd_;
  std::string token_;
  Clock::time_point start_;
};

// Short jobs, a third of them on a GPU and a third with an srun step on one
// (the built srun, on this cluster's slurm.conf).
inline Submitters::MakeOptions MixedJobs(const NodedCluster& cluster) {
  const std::string env =
      "export PATH=" + testing::BinDir() + ":$PATH SLURM_CONF=" + cluster.conf() + "; ";
  return [env](int /*thread*/, std::mt19937& rng) -> std::string {
    const std::string sleep = "sleep 0." + std::to_string(4 + rng() % 6);
    switch (rng() % 3) {
      case 0:
        return "--wrap='" + sleep + "'";
      case 1:
        return "--gres=gpu:1 --wrap='" + sleep + "'";
      default:
        return "--gres=gpu:1 --wrap='" + env + "srun -n1 " + sleep + "'";
    }
  };
}

}  // namespace rota::chaos
