// What steps used, end to end: a real rotactld, rotadbd and two rotad (cgroups
// v1) with PrologFlags=Contain; a batch job and an srun step that each fill
// about 50 MiB, read back with sacct (MaxRSS on their lines, the .extern step
// before .batch).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "tests/integration/accounted_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::WaitUntil;

// "51200K", "50M", "1G" (sacct's units) in KiB; 0 when it does not parse.
uint64_t KibOf(std::string_view text) {
  if (text.empty()) return 0;
  uint64_t scale = 1;
  switch (text.back()) {
    case 'K':
      break;
    case 'M':
      scale = 1024;
      break;
    case 'G':
      scale = 1024 * 1024;
      break;
    default:
      return 0;
  }
  std::optional<uint64_t> n = ParseUint(text.substr(0, text.size() - 1));
  return n ? *n * scale : 0;
}

constexpr uint64_t k40MiB = 40 * 1024;  // In KiB

class UsageAccountingTest : public testing::AccountedClusterTest {
 protected:
  std::string MoreSettings() const override { return "PrologFlags=Contain\n"; }

  std::string SacctUntil(const std::string& args, const std::string& expected) {
    std::string out;
    WaitUntil([&] { return (out = cluster_->Run("sacct " + args).out) == expected; },
              std::chrono::seconds(40));
    return out;
  }
  // sacct's lines for `job`, one per step, as "STEP|FIELDS..." split by '|'.
  std::map<std::string, std::vector<std::string>> Rows(const std::string& job,
                                                       const std::string& fields) {
    std::map<std::string, std::vector<std::string>> rows;
    const std::string out = cluster_->Run("sacct -n -P -j " + job + " -o JobID," + fields).out;
    for (std::string_view line : Split(out, '\n')) {
      if (line.empty()) continue;
      std::vector<std::string> cells;
      for (std::string_view c : Split(line, '|')) cells.emplace_back(c);
      std::string id = cells.front();
      rows[id] = std::move(cells);
    }
    return rows;
  }
};

TEST_F(UsageAccountingTest, MaxRssOfTheBatchAndSrunStepsAndTheExternStep) {
  // tail keeps the whole line (50 MiB without a newline) in memory.
  const std::string job =
      SubmitScript("-N1 -n1 --mem=400M",
                   "head -c 50M /dev/zero | tail > /dev/null\n"
                   "srun -n1 sh -c 'head -c 50M /dev/zero | tail > /dev/null'\n");
  ASSERT_FALSE(job.empty());
  const std::string node = cluster_->Node(1);
  const std::string expected = job + "|COMPLETED|0:0\n" + job + ".extern|COMPLETED|0:0\n" + job +
                               ".batch|COMPLETED|0:0\n" + job + ".0|COMPLETED|0:0\n";
  ASSERT_EQ(SacctUntil("-n -P -j " + job + " -o JobID,State,ExitCode", expected), expected)
      << cluster_->Run("sacct -j " + job).out;

  auto rows = Rows(job, "MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,TRESUsageInMax,JobName");
  ASSERT_EQ(rows.size(), 4u);
  // The job's own line leaves them blank, as Slurm; so does the extern step,
  // which runs nothing.
  EXPECT_EQ(rows[job][1], "");
  EXPECT_EQ(rows[job + ".extern"][1], "");
  EXPECT_EQ(rows[job + ".extern"][6], "extern");
  for (const std::string step : {".batch", ".0"}) {
    const std::vector<std::string>& r = rows[job + step];
    EXPECT_GE(KibOf(r[1]), k40MiB) << step << ": MaxRSS " << r[1];
    EXPECT_LT(KibOf(r[1]), 400u * 1024) << step << ": MaxRSS " << r[1];
    EXPECT_EQ(r[2], node) << step;
    EXPECT_EQ(r[3], "0") << step;
    EXPECT_GE(KibOf(r[4]), k40MiB) << step << ": AveRSS " << r[4];
    EXPECT_TRUE(r[5].ends_with("mem=" + r[1])) << step << ": " << r[5];
  }

  // sacct -j JOB.extern lists that step alone.
  EXPECT_EQ(cluster_->Run("sacct -n -P -j " + job + ".extern -o JobID,JobName,State").out,
            job + ".extern|extern|COMPLETED\n");

  // --json: each measured step's highest task, in bytes.
  nlohmann::json out =
      nlohmann::json::parse(cluster_->Run("sacct --json -j " + job).out, nullptr, false);
  ASSERT_FALSE(out.is_discarded());
  ASSERT_EQ(out["jobs"].size(), 1u);
  int measured = 0;
  for (const nlohmann::json& step : out["jobs"][0]["steps"]) {
    if (!step["tres"].contains("requested")) continue;
    const nlohmann::json& mem = step["tres"]["requested"]["max"][0];
    EXPECT_EQ(mem["type"], "mem");
    EXPECT_GE(mem["count"].get<uint64_t>(), k40MiB * 1024) << step.dump();
    ++measured;
  }
  EXPECT_EQ(measured, 2);
}

}  // namespace
}  // namespace rota
