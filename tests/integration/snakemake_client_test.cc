// A real workflow client, unmodified, against a real Rota cluster: Debian's
// Snakemake 7 with its --slurm executor drives rotactld, two rotad and rotadbd
// through the commands it really calls (docs/clients.md): sinfo -o %P for the
// default partition, sacct -nu USER -o Account%20 to guess an account, sbatch
// with -J/-o/--export/-p/-t/--mem/--cpus-per-task/-D/--wrap and a GPU rule's
// --gpus, sacct -P -n --format=JobIdRaw,State -j N (and scontrol show jobid
// -dd N while accounting has not caught up) to follow each job, and inside
// each job srun -n1 --cpu-bind=q to run the rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "tests/integration/accounted_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ReadFileText;

constexpr char kSnakemake[] = "/usr/bin/snakemake";

class SnakemakeClientTest : public testing::AccountedClusterTest {
 protected:
  void SetUp() override {
    // Installed by `make test` (scripts/install-deps.sh --with-clients).
    ASSERT_TRUE(std::filesystem::exists(kSnakemake))
        << kSnakemake << " is missing: run scripts/install-deps.sh --with-clients";
    AccountedClusterTest::SetUp();
  }
};

TEST_F(SnakemakeClientTest, AWorkflowWithAGpuRuleRunsToTheEnd) {
  const std::string dir = cluster_->work_dir() + "/workflow";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/Snakefile")
      << "rule all:\n"
         "    input: 'joined.txt', 'gpu.txt'\n"
         "\n"
         "rule first:\n"
         "    output: 'first.txt'\n"
         "    threads: 2\n"
         "    shell: 'echo $SLURM_JOB_ID $SLURM_CPUS_ON_NODE > {output}'\n"
         "\n"
         "rule joined:\n"
         "    input: 'first.txt'\n"
         "    output: 'joined.txt'\n"
         "    shell: 'cat {input} > {output}; echo $SLURM_JOB_ID >> {output}'\n"
         "\n"
         "rule gpu:\n"
         "    output: 'gpu.txt'\n"
         "    resources: slurm_extra='--gpus=1'\n"
         "    shell: 'echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS > {output}'\n";
  // Snakemake reads USER to guess an account; a test machine's root may lack it.
  // (The cluster's SLURM_CONF and PATH reach snakemake through the sh.)
  CommandResult run =
      cluster_->Run("sh -c 'cd " + dir + " && USER=$(id -un) exec timeout 240 " + kSnakemake +
                    " --slurm -j 3 --latency-wait 10"
                    " --default-resources runtime=5 mem_mb=1200'");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("4 of 4 steps (100%) done"), std::string::npos) << run.out;

  // Each rule ran in a job of its own, as the job saw it.
  const std::string first_text = ReadFileText(dir + "/first.txt");
  std::vector<std::string_view> first = Split(Trim(first_text), ' ');
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[1], "2") << "threads: 2 is --cpus-per-task=2";
  // Snakemake's fallback while accounting lags: scontrol's alias "jobid".
  const std::string shown = cluster_->Run("scontrol show jobid -dd " + std::string(first[0])).out;
  EXPECT_NE(shown.find("JobState=COMPLETED"), std::string::npos) << shown;
  const std::string joined = ReadFileText(dir + "/joined.txt");
  std::vector<std::string_view> lines = Split(Trim(joined), '\n');
  ASSERT_EQ(lines.size(), 2u) << joined;
  EXPECT_NE(Split(lines[0], ' ')[0], lines[1]) << "two rules, two jobs";
  EXPECT_EQ(Trim(ReadFileText(dir + "/gpu.txt")), "0 0") << "one GPU, the job's first";

  // The three jobs, as accounting keeps them: each completed, named after the
  // run, with its rule's log where Snakemake asked for it.
  const std::string sacct = SacctOnceItHasRows("-X -n -P -o JobName,State", 3, "|COMPLETED");
  std::vector<std::string_view> rows = Split(Trim(sacct), '\n');
  ASSERT_EQ(rows.size(), 3u) << sacct;
  for (std::string_view row : rows) EXPECT_TRUE(row.ends_with("|COMPLETED")) << sacct;
  EXPECT_TRUE(std::filesystem::exists(dir + "/.snakemake/slurm_logs/rule_gpu"));
}

}  // namespace
}  // namespace rota
