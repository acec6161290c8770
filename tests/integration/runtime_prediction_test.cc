// SchedulerParameters=rota_predict_runtime across a restart: the controller
// has purged the ended job (MinJobAge), so what it knows of its user's
// runtimes after the restart came from rotadbd.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <regex>
#include <thread>

#include "tests/integration/controller_calls.h"
#include "tests/integration/controller_process.h"
#include "tests/integration/dbd_process.h"

namespace rota {
namespace {

using testing::ControllerProcess;
using testing::DbdProcess;

// The predicted runtime `rota why --json` reports; -1 when absent.
int64_t PredictedRun(const std::string& json) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"predicted_run_s\":\\s*([0-9]+)"))) return -1;
  return std::stoll(m[1]);
}

TEST(RuntimePredictionTest, ARestartedControllerPredictsFromAccounting) {
  const uint16_t dbd_port = testing::FreeLoopbackPort();
  ControllerProcess ctld(testing::AccountingConf(dbd_port) +
                         "MinJobAge=2\nSchedulerParameters=rota_predict_runtime\n");
  DbdProcess dbd(ctld, dbd_port);
  ASSERT_TRUE(dbd.Start()) << dbd.Log();
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  testing::RegisterFakeNodes(ctld, {"n1", "n2", "n3", "n4"});

  // Job 1 runs about three seconds of its hour.
  ASSERT_EQ(ctld.Run("sbatch --parsable -t 60 --wrap=true").out, "1\n");
  ASSERT_TRUE(testing::WaitForJobState(ctld, "1", "RUNNING"));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  testing::ReportJobExit(ctld, 1, 0);
  ASSERT_EQ(testing::SacctUntil(ctld, "-n -P -X -o JobID,State -j 1", "1|COMPLETED\n"),
            "1|COMPLETED\n")
      << ctld.Log() << dbd.Log();
  // Purged from the controller once accounted and MinJobAge old.
  bool purged = false;
  for (int i = 0; i < 100 && !purged; ++i) {
    purged = ctld.Run("squeue -h -j 1 -o %i", false).out.empty();
    if (!purged) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(purged) << ctld.Run("squeue -j 1").out;

  ctld.Kill(SIGTERM);
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  testing::RegisterFakeNodes(ctld, {"n1", "n2", "n3", "n4"});
  bool learned = false;
  for (int i = 0; i < 100 && !learned; ++i) {
    learned = ctld.Log().find("learned from 1 ended runs in accounting") != std::string::npos;
    if (!learned) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(learned) << ctld.Log();

  // The whole cluster taken, so that the next job waits and is planned.
  ASSERT_EQ(ctld.Run("sbatch --parsable -N 4 --exclusive -t 60 --wrap=true").out, "2\n");
  ASSERT_TRUE(testing::WaitForJobState(ctld, "2", "RUNNING"));
  ASSERT_EQ(ctld.Run("sbatch --parsable -t 60 --wrap=true").out, "3\n");
  const std::string why = ctld.Run("rota why --json 3", false).out;
  const int64_t predicted = PredictedRun(why);
  EXPECT_GE(predicted, 2) << why;
  EXPECT_LE(predicted, 10) << why;
  const std::string text = ctld.Run("rota why 3").out;
  EXPECT_NE(text.find("(its user's recent jobs), not its time limit"), std::string::npos) << text;
}

// squeue's StartP50/StartP90 through the real controller and command: no
// range until 20 planned jobs have started, then a range from how they did.
TEST(RuntimePredictionTest, SqueueShowsTheRangeOnceTwentyPlansHaveTurnedOut) {
  ControllerProcess ctld("SchedulerParameters=bf_interval=1\n");
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  testing::RegisterFakeNodes(ctld, {"n1", "n2", "n3", "n4"});
  // 23 jobs of the whole cluster: one runs, the others are planned behind it.
  for (int i = 1; i <= 23; ++i) {
    ASSERT_EQ(ctld.Run("sbatch --parsable -N 4 --exclusive -t 60 --wrap=true").out,
              std::to_string(i) + "\n");
  }
  const std::string format = "-O JobID:4,StartP50:21,StartP90:21";
  std::string listing;
  for (int i = 0; i < 100; ++i) {  // The first backfill pass plans them
    listing = ctld.Run("squeue -h -j 23 -O JobID:4,StartTime:21", false).out;
    if (listing.find("N/A") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(listing.find("N/A"), std::string::npos) << listing;
  EXPECT_EQ(ctld.Run("squeue -h -j 23 " + format, false).out,
            "23  N/A                  N/A                  \n");

  // Each ends early: 21 planned jobs start, far sooner than planned.
  for (int i = 1; i <= 21; ++i) {
    ASSERT_TRUE(testing::WaitForJobState(ctld, std::to_string(i), "RUNNING")) << i;
    testing::ReportJobExit(ctld, static_cast<uint32_t>(i), 0);
  }
  ASSERT_TRUE(testing::WaitForJobState(ctld, "22", "RUNNING"));
  const std::regex range("23  (20[0-9-]{8}T[0-9:]{8}) +(20[0-9-]{8}T[0-9:]{8}) +\n");
  std::smatch m;
  for (int i = 0; i < 100; ++i) {
    listing = ctld.Run("squeue -h -j 23 " + format, false).out;
    if (std::regex_match(listing, m, range)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(std::regex_match(listing, m, range)) << listing;
  EXPECT_LE(m[1].str(), m[2].str());  // P50 no later than P90 (ISO times sort as text)
  // The jobs started long before their plans: the range is well before the plan.
  const std::string planned = ctld.Run("squeue -h -j 23 -o %S", false).out;
  EXPECT_LT(m[2].str(), planned) << planned;
}

}  // namespace
}  // namespace rota
