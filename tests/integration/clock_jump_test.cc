// The fault suite's clock case (docs/reliability.md, "Fault suite"): the
// host's realtime clock stepped forward and back, as an NTP step or an
// administrator's `date -s` does, while four submitters run jobs.
//
// libfaketime, preloaded into every daemon, command and job of the cluster,
// adds the offset written in a file that the test rewrites; the monotonic
// clock is left alone, as a real step leaves it. The host's own clock is not
// touched.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/integration/chaos_fixture.h"

namespace rota::chaos {
namespace {

constexpr const char* kFakeTimeLibrary = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";

class ClockJumpTest : public ChaosTest {
 protected:
  // Ended jobs are not moved by a step (their times are history, already
  // accounted): a step forward past MinJobAge would purge them from squeue's
  // listing, which the checks read.
  std::string Settings() const override { return ChaosTest::Settings() + "MinJobAge=86400\n"; }
  void SetUp() override {
    // Checked, not skipped: scripts/install-deps.sh installs libfaketime.
    ASSERT_TRUE(std::filesystem::exists(kFakeTimeLibrary)) << "libfaketime is not installed";
    offset_file_ = std::filesystem::temp_directory_path() /
                   ("rota-clock-" + std::to_string(getpid()) + ".offset");
    Step(0);
    ASSERT_TRUE(CreateSharedState());
    // Inherited by everything the fixture starts: daemons, commands, jobs.
    // The ASan runtime need not be first when libfaketime is preloaded.
    saved_asan_ = getenv("ASAN_OPTIONS") != nullptr ? getenv("ASAN_OPTIONS") : "";
    setenv("LD_PRELOAD", kFakeTimeLibrary, 1);
    setenv("FAKETIME_TIMESTAMP_FILE", offset_file_.c_str(), 1);
    // Read at every clock call, so that all processes step at once, as on
    // one host they do (cached, each would step up to a second apart).
    setenv("FAKETIME_NO_CACHE", "1", 1);
    setenv("DONT_FAKE_MONOTONIC", "1", 1);
    setenv("FAKETIME_SHARED", (sem_name_ + " " + shm_name_).c_str(), 1);
    setenv("ASAN_OPTIONS", (saved_asan_ + ":verify_asan_link_order=0").c_str(), 1);
    ChaosTest::SetUp();
  }
  void TearDown() override {
    ChaosTest::TearDown();
    for (const char* name : {"LD_PRELOAD", "FAKETIME_TIMESTAMP_FILE", "FAKETIME_NO_CACHE",
                             "DONT_FAKE_MONOTONIC", "FAKETIME_SHARED"}) {
      unsetenv(name);
    }
    sem_unlink(sem_name_.c_str());
    shm_unlink(shm_name_.c_str());
    setenv("ASAN_OPTIONS", saved_asan_.c_str(), 1);
    std::error_code ec;
    std::filesystem::remove(offset_file_, ec);
  }

  // libfaketime keeps a counter in a POSIX semaphore and shared memory that
  // each process creates, unless FAKETIME_SHARED names existing ones, and
  // removes at its normal exit only: a killed daemon, a job or a process
  // whose creator exited first would leave them behind in /dev/shm or fail
  // to start. One pair, the test's own, serves all and is removed at the end.
  bool CreateSharedState() {
    const std::string tag = std::to_string(getpid());
    sem_name_ = "/rota_clock_sem_" + tag;
    shm_name_ = "/rota_clock_shm_" + tag;
    sem_t* sem = sem_open(sem_name_.c_str(), O_CREAT | O_EXCL, 0600, 1);
    if (sem == SEM_FAILED) return false;
    sem_close(sem);
    int fd = shm_open(shm_name_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) return false;
    const bool sized = ftruncate(fd, sizeof(uint64_t)) == 0;  // Its call counter
    close(fd);
    return sized;
  }

  // Sets the cluster's clock to the host's plus `seconds`. Written whole and
  // renamed, so that no process reads half a file.
  void Step(int64_t seconds) {
    const std::string tmp = offset_file_.string() + ".new";
    std::ofstream(tmp) << (seconds < 0 ? "" : "+") << seconds << "\n";
    std::filesystem::rename(tmp, offset_file_);
    offset_ = seconds;
  }
  // The cluster's wall clock as a command sees it.
  int64_t ClusterTime() {
    const std::string out = cluster_->Run("date +%s").out;
    return static_cast<int64_t>(ParseUint(Trim(out)).value_or(0));
  }

  std::filesystem::path offset_file_;
  std::string sem_name_;
  std::string shm_name_;
  std::string saved_asan_;
  int64_t offset_ = 0;
};

// Node states seen while the clock moves: anything but idle, mixed or
// allocated is a node the controller wrongly thought silent.
class NodeStateWatch {
 public:
  explicit NodeStateWatch(const NodedCluster& cluster) : cluster_(cluster) {}
  std::set<std::string> Odd() {
    std::lock_guard<std::mutex> lock(mu_);
    return odd_;
  }

 private:
  void Sample() {
    const std::string states = cluster_.Run("sinfo -h -N -o '%N %t'").out;
    for (std::string_view line : Split(states, '\n')) {
      std::vector<std::string_view> cells = Split(line, ' ');
      if (cells.size() != 2) continue;
      if (cells[1] != "idle" && cells[1] != "mix" && cells[1] != "alloc") {
        std::lock_guard<std::mutex> lock(mu_);
        odd_.insert(std::string(line));
      }
    }
  }

  const NodedCluster& cluster_;
  std::mutex mu_;
  std::set<std::string> odd_;  // Guarded by mu_.
  PeriodicSampler sampler_{std::chrono::milliseconds(250), [this] { Sample(); }};
};

// Forward two hours (past SlurmdTimeout and every job's time limit), back to
// the true time, back one more hour (before every job's submission), and
// forward to the true time again; each held a few seconds under load. Jobs
// ask for 10 minutes and run for under one second, and one longer job spans
// every step: a step is no job's timeout and no node's silence.
TEST_F(ClockJumpTest, StepsForwardAndBackLoseNothingAndEndNothingEarly) {
  GpuWatch watch(token_);
  NodeStateWatch nodes(*cluster_);
  Submitters::MakeOptions mixed = MixedJobs(*cluster_);
  Submitters submitters(
      *cluster_, token_, seed_,
      [&](int thread, std::mt19937& rng) {
        return "--time=10 -o " + cluster_->work_dir() + "/clock-%j.out " + mixed(thread, rng);
      },
      std::chrono::milliseconds(700));
  testing::CommandResult spanning =
      cluster_->Run("CHAOS_RUN=" + token_ +
                    " sbatch --parsable -J spanning --time=1 -o /dev/null --wrap='sleep 25'");
  ASSERT_EQ(spanning.exit_code, 0) << spanning.out;
  const std::string spanning_id(Trim(spanning.out));
  ASSERT_TRUE(WaitForState(spanning_id, "RUNNING"));

  const Clock::time_point storm = Clock::now();
  const int64_t before = ClusterTime();
  for (int64_t offset : {7200, 0, -3600, 0}) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    Step(offset);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    // The step is seen by the cluster's commands.
    const int64_t seen = ClusterTime();
    const int64_t expected = before + offset + static_cast<int64_t>(SecondsSince(storm));
    EXPECT_NEAR(seen, expected, 5) << "offset " << offset;
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  submitters.Stop();
  const double storm_s = SecondsSince(storm);

  std::map<uint32_t, JobRow> jobs = Drain(std::chrono::seconds(60));
  EXPECT_TRUE(AllFinal(jobs)) << cluster_->Run("squeue -t all").out;
  const std::map<std::string, uint32_t> acknowledged = submitters.Acknowledged();
  ASSERT_GT(acknowledged.size(), 20u);
  CheckAfterStorm(acknowledged, jobs);

  // Every job ran to its end: none timed out, failed with its node or was requeued.
  for (const auto& [id, row] : jobs) {
    EXPECT_EQ(row.state, "COMPLETED")
        << "job " << id << " (" << row.name << ") wrote: "
        << ReadFileText(cluster_->work_dir() + "/clock-" + std::to_string(id) + ".out");
  }
  // The job that spanned every step ran its 25 s under a one-minute limit, and
  // its accounted run time is what it ran.
  const std::string elapsed(
      Trim(cluster_->Run("sacct -X -n -P -j " + spanning_id + " -o ElapsedRaw").out));
  const int64_t elapsed_s = static_cast<int64_t>(ParseUint(elapsed).value_or(0));
  // Each step is measured to the second (the controller's clock reads whole
  // seconds): four of them may each move the start by one.
  EXPECT_GE(elapsed_s, 20) << elapsed;
  EXPECT_LE(elapsed_s, 40) << elapsed;
  const std::string sacct_times =
      cluster_->Run("sacct -X -n -P -S now-1days -E now+1days -o JobID,Submit,Start,End,ElapsedRaw")
          .out;
  for (std::string_view line : Split(sacct_times, '\n')) {
    std::vector<std::string_view> cells = Split(line, '|');
    if (cells.size() != 5) continue;
    EXPECT_LE(cells[1], cells[2]) << "started before its submission: " << line;
    EXPECT_LE(cells[2], cells[3]) << "ended before it started: " << line;
  }

  std::set<std::string> odd = nodes.Odd();
  EXPECT_TRUE(odd.empty()) << "a node was seen as " << *odd.begin();
  std::vector<std::string> overlaps = watch.Overlaps();
  EXPECT_TRUE(overlaps.empty()) << overlaps.size() << " samples, first: " << overlaps.front();
  for (const std::string& refusal : submitters.Refusals()) std::cout << "refused: " << refusal;
  std::cout << "clock seed " << seed_ << ": 4 steps in " << storm_s << " s, "
            << submitters.attempts() << " sbatch calls, " << acknowledged.size()
            << " acknowledged, " << jobs.size() << " jobs, test " << SecondsSince(start_) << " s\n";
}

}  // namespace
}  // namespace rota::chaos
