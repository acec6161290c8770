// The dashboard in a real browser: Debian's headless Chromium, driven by
// puppeteer-core (tests/dashboard/dashboard_check.mjs), against rotarestd on
// the REST tests' cluster. What the pages show is checked against squeue,
// sinfo and what the job itself saw; a job is cancelled from its page; a
// screenshot of each page lands in the build's test-output/dashboard/.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/integration/rest_cluster_test.h"

namespace rota::testing {
namespace {

class DashboardTest : public RestClusterTest {};

std::string Column(const std::string& text) { return std::string(Trim(text)); }

TEST_F(DashboardTest, PagesShowWhatTheCommandsShowAndCancelFromTheJobPage) {
  const std::string node_modules = std::string(ROTA_SOURCE_DIR) + "/tests/dashboard/node_modules";
  ASSERT_TRUE(std::filesystem::exists(node_modules + "/puppeteer-core"))
      << "run scripts/install-deps.sh --with-clients (npm ci in tests/dashboard)";
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/chromium")) << "Debian's chromium is missing";

  // A job on one GPU that writes which GPU it got, one held, a node drained.
  const std::string out = cluster_->work_dir() + "/gpu.out";
  const std::string running =
      SubmitScript("--gres=gpu:1 -o " + out, "echo \"gpus=$SLURM_JOB_GPUS\"\nsleep 120\n");
  const std::string held = SubmitScript("--hold", "true\n");
  ASSERT_TRUE(WaitForState(running, "RUNNING"));
  ASSERT_TRUE(WaitUntil([&] { return ReadFileText(out).find("gpus=") != std::string::npos; }));
  std::string text = ReadFileText(out);
  const std::string gpu_ids = Column(text.substr(text.find("gpus=") + 5));
  const std::string running_node = Column(cluster_->Run("squeue -h -j " + running + " -o %N").out);
  const std::string all_nodes = cluster_->Run("sinfo -h -N -o %N").out;
  Json nodes = Json::array();
  std::string drained_node;
  for (std::string_view n : Split(Trim(all_nodes), '\n')) {
    nodes.push_back(std::string(Trim(n)));
    if (Trim(n) != running_node) drained_node = std::string(Trim(n));
  }
  ASSERT_EQ(
      cluster_
          ->Run("scontrol update NodeName=" + drained_node + " State=DRAIN Reason=\"fan replaced\"")
          .exit_code,
      0);
  ASSERT_TRUE(WaitUntil([&] {
    return Trim(cluster_->Run("sinfo -h -n " + drained_node + " -o %T").out) == "drained";
  }));
  const std::string held_reason = Column(cluster_->Run("squeue -h -j " + held + " -o %r").out);
  const std::string queue = cluster_->Run("squeue -h -o %i").out;
  Json expect = {
      {"user", "root"},
      {"nodes", nodes},
      {"running_job", std::stoi(running)},
      {"running_node", running_node},
      {"running_gpu_ids", gpu_ids},
      {"running_gpus", Json::array()},
      {"running_stdout", out},
      {"held_job", std::stoi(held)},
      {"held_reason", held_reason},
      {"drained_node", drained_node},
      {"drained_reason", Column(cluster_->Run("sinfo -h -n " + drained_node + " -o %E").out)},
      {"queue_length", Split(Trim(queue), '\n').size()}};
  for (std::string_view id : Split(gpu_ids, ','))
    expect["running_gpus"].push_back(std::stoi(std::string(id)));

  const std::string shots = std::string(ROTA_BINARY_DIR) + "/test-output/dashboard";
  std::filesystem::create_directories(shots);
  CommandResult r =
      RunShell("cd " + std::string(ROTA_SOURCE_DIR) +
               "/tests/dashboard && ROTA_REST_URL=http://127.0.0.1:" + std::to_string(rest_port_) +
               " ROTA_TOKEN='" + token_ + "' ROTA_SCREENSHOTS='" + shots + "' ROTA_EXPECT='" +
               expect.dump() + "' timeout 120 node dashboard_check.mjs 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::cout << r.out;
  for (const char* page : {"cluster", "queue", "scheduler", "job"}) {
    EXPECT_GT(std::filesystem::file_size(shots + "/" + page + ".png"), 10000u) << page;
  }
  // The cancel pressed on the job page reached the controller.
  EXPECT_TRUE(WaitUntil([&] {
    std::string state = Column(cluster_->Run("squeue -h -t all -j " + running + " -o %T").out);
    return state == "CANCELLED" || state.empty();
  })) << cluster_->Run("squeue -h -t all -j " + running + " -o %T").out;
  cluster_->Run("scancel " + held);
}

}  // namespace
}  // namespace rota::testing
