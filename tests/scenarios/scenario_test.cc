// Runs every tests/scenarios/*.scn and diffs its decisions against the
// .expected file beside it. ROTA_UPDATE_SCENARIOS=1 rewrites the expected
// files instead (review the diff before committing them).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenario_runner.h"

namespace rota::scenarios {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> Scenarios() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(ROTA_SCENARIO_DIR)) {
    if (e.path().extension() == ".scn") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class ScenarioTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(ScenarioTest, DecisionsMatchExpected) {
  const fs::path scn = GetParam();
  Result<std::string> got = RunScenario(Read(scn));
  ASSERT_TRUE(got.ok()) << scn << ": " << got.status().message();
  fs::path expected_path = scn;
  expected_path.replace_extension(".expected");
  const char* update = std::getenv("ROTA_UPDATE_SCENARIOS");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(expected_path) << *got;
    return;
  }
  ASSERT_TRUE(fs::exists(expected_path)) << expected_path << " is missing; decisions:\n" << *got;
  EXPECT_EQ(*got, Read(expected_path)) << scn;
}

INSTANTIATE_TEST_SUITE_P(Golden, ScenarioTest, ::testing::ValuesIn(Scenarios()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(ScenarioRunnerTest, ReportsItsOwnErrorsWithTheLine) {
  Result<std::string> r = RunScenario("config gpu-cluster\nfly away\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("line 2"), std::string::npos);
}

TEST(ScenarioRunnerTest, CatchesOvercommitByConstruction) {
  // A job that holds a whole node, then the same again: the second pends.
  Result<std::string> r =
      RunScenario("config gpu-cluster\nrun a -w gpu01 --exclusive\nrun b -w gpu01 -c 1\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NE(r->find("b: pending Resources"), std::string::npos) << *r;
}

}  // namespace
}  // namespace rota::scenarios
