// The fault suite (docs/reliability.md, "Fault suite"): daemons killed with
// SIGKILL at seeded random moments under load, rotadbd and PostgreSQL down
// and back. `make chaos` runs this binary alone (ctest -L chaos).
#include <gtest/gtest.h>
#include <signal.h>

#include "tests/integration/chaos_fixture.h"

namespace rota::chaos {
namespace {

// In turn, twice: a rotad killed and restarted, a running job's rota-stepd
// killed, rotadbd killed and restarted, the controller killed and restarted;
// each at a seeded moment 1-2.5 s after the one before.
TEST_F(ChaosTest, EachDaemonKilledUnderLoadLosesNothingAndLeavesNothing) {
  std::mt19937 rng(seed_);
  GpuWatch watch(token_);
  Submitters submitters(*cluster_, token_, seed_, MixedJobs(*cluster_),
                        std::chrono::milliseconds(900));
  constexpr int kRounds = 2;
  int kills = 0;
  std::vector<uint32_t> stepd_victims;
  const Clock::time_point storm = Clock::now();
  auto pause = [&] { std::this_thread::sleep_for(std::chrono::milliseconds(1000 + rng() % 1500)); };
  for (int round = 0; round < kRounds; ++round) {
    pause();
    const int node = 1 + static_cast<int>(rng() % NodedCluster::kNodes);
    cluster_->StopNode(node, SIGKILL);
    ++kills;
    std::this_thread::sleep_for(std::chrono::milliseconds(200 + rng() % 800));
    ASSERT_TRUE(cluster_->StartNode(node)) << cluster_->NodeLogs();

    pause();
    // A job's step daemon: that of a batch script or an srun task, whichever
    // the seed picks among those running now.
    pid_t stepd = 0;
    uint32_t victim = 0;
    WaitUntil(
        [&] {
          std::vector<JobProcess> running = JobProcesses(token_);
          if (running.empty()) return false;
          const JobProcess& p = running[rng() % running.size()];
          stepd = StepDaemonOf(p.pid);
          victim = p.job;
          return stepd > 0;
        },
        std::chrono::seconds(10));
    ASSERT_GT(stepd, 0) << "no job with a rota-stepd ran";
    ASSERT_EQ(kill(stepd, SIGKILL), 0);
    stepd_victims.push_back(victim);
    ++kills;

    pause();
    KillDbd();
    ++kills;
    std::this_thread::sleep_for(std::chrono::milliseconds(500 + rng() % 1500));
    ASSERT_TRUE(StartDbd()) << dbd_->Log();

    pause();
    ASSERT_TRUE(RestartController()) << ctld_->Log();
    ++kills;
  }
  pause();
  submitters.Stop();
  const double storm_s = SecondsSince(storm);

  const Clock::time_point drain = Clock::now();
  std::map<uint32_t, JobRow> jobs = Drain(std::chrono::seconds(60));
  const double drain_s = SecondsSince(drain);
  EXPECT_TRUE(AllFinal(jobs)) << cluster_->Run("squeue -t all").out;
  const std::map<std::string, uint32_t> acknowledged = submitters.Acknowledged();
  ASSERT_GT(acknowledged.size(), 20u);
  CheckAfterStorm(acknowledged, jobs);

  std::vector<std::string> overlaps = watch.Overlaps();
  EXPECT_TRUE(overlaps.empty()) << overlaps.size() << " samples, first: " << overlaps.front();
  EXPECT_GT(watch.gpu_samples(), 0) << "no GPU job was ever seen running";

  std::map<std::string, int> by_state;
  for (const auto& [id, row] : jobs) ++by_state[row.state];
  std::string states;
  for (const auto& [state, n] : by_state) states += " " + state + "=" + std::to_string(n);
  std::cout << "chaos seed " << seed_ << ": " << kills << " kills in " << storm_s << " s, "
            << submitters.attempts() << " sbatch calls, " << acknowledged.size()
            << " acknowledged, " << jobs.size() << " jobs (" << states << " ), drained in "
            << drain_s << " s, " << watch.samples() << " process samples (" << watch.gpu_samples()
            << " with GPUs held), test " << SecondsSince(start_) << " s\n";
}

// rotadbd on PostgreSQL: rotadbd killed and down for 2-3 s, later the
// PostgreSQL server stopped for 2-3 s, while jobs are submitted and end.
class ChaosPgsqlTest : public ChaosTest {
 protected:
  void BeforeDbdStarts() override {
    pg_ = testing::PostgresEnvironment::Server();
    ASSERT_NE(pg_, nullptr) << testing::PostgresEnvironment::StartError();
    database_ = pg_->CreateDatabase();
    ASSERT_FALSE(database_.empty()) << pg_->Log();
    cluster_->dir().Write("slurmdbd.conf",
                          "StorageType=accounting_storage/pgsql\n"
                          "StorageHost=127.0.0.1\n"
                          "StoragePort=" +
                              std::to_string(pg_->port()) + "\nStorageUser=" + pg_->user() +
                              "\nStoragePass=" + pg_->password() + "\nStorageLoc=" + database_ +
                              "\nSlurmUser=root\n");
  }

  testing::PostgresServer* pg_ = nullptr;
  std::string database_;
};

std::string QuickJob(int /*thread*/, std::mt19937& rng) {
  return rng() % 2 ? "--wrap=true" : "--gres=gpu:1 --wrap='sleep 0.3'";
}

TEST_F(ChaosPgsqlTest, RotadbdAndPostgresqlDownAndBackLoseNoRecord) {
  std::mt19937 rng(seed_);
  Submitters submitters(*cluster_, token_, seed_, QuickJob, std::chrono::milliseconds(300));
  const Clock::time_point storm = Clock::now();
  auto pause = [&] { std::this_thread::sleep_for(std::chrono::milliseconds(1000 + rng() % 1000)); };
  pause();
  KillDbd();
  std::this_thread::sleep_for(std::chrono::milliseconds(2000 + rng() % 1000));
  ASSERT_TRUE(StartDbd()) << dbd_->Log();
  pause();
  pg_->Halt();
  std::this_thread::sleep_for(std::chrono::milliseconds(2000 + rng() % 1000));
  // rotadbd met the outage with records to store.
  EXPECT_TRUE(WaitUntil(
      [&] { return dbd_->Log().find("cannot connect to PostgreSQL") != std::string::npos; },
      std::chrono::seconds(5)))
      << dbd_->Log();
  ASSERT_EQ(pg_->Restart(), "");
  pause();
  submitters.Stop();
  const double storm_s = SecondsSince(storm);

  std::map<uint32_t, JobRow> jobs = Drain(std::chrono::seconds(40));
  EXPECT_TRUE(AllFinal(jobs)) << cluster_->Run("squeue -t all").out;
  const std::map<std::string, uint32_t> acknowledged = submitters.Acknowledged();
  ASSERT_GT(acknowledged.size(), 10u);
  CheckAfterStorm(acknowledged, jobs);
  // And in the database itself: every job, one row per attempt.
  EXPECT_EQ(pg_->Query(database_, "SELECT count(DISTINCT job_id) FROM job_attempts"),
            std::to_string(jobs.size()));
  EXPECT_EQ(pg_->Query(database_,
                       "SELECT count(*) FROM (SELECT 1 FROM job_attempts GROUP BY job_id, restarts "
                       "HAVING count(*) > 1) d"),
            "0");
  std::cout << "chaos pgsql seed " << seed_ << ": storm " << storm_s << " s, "
            << submitters.attempts() << " sbatch calls, " << acknowledged.size()
            << " acknowledged, " << jobs.size() << " jobs, test " << SecondsSince(start_) << " s\n";
}

}  // namespace
}  // namespace rota::chaos
