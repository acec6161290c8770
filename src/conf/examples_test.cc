// The example configurations of the shared reference material, parsed verbatim:
// every good one loads, every broken one fails with the error its EXPECTED names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "conf/config_loader.h"
#include "testing/temp_dir.h"

namespace rota::conf {
namespace {

namespace fs = std::filesystem;

fs::path ExamplesDir() { return rota::testing::SharedDir() / "examples"; }

std::vector<fs::path> Subdirs(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename() != "broken") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ExamplesTest, ExamplesDirectoryIsPresent) {
  ASSERT_TRUE(fs::exists(ExamplesDir() / "gpu-cluster" / "slurm.conf")) << ExamplesDir();
  ASSERT_GE(Subdirs(ExamplesDir()).size(), 2u);
  ASSERT_GE(Subdirs(ExamplesDir() / "broken").size(), 4u);
}

TEST(ExamplesTest, EveryGoodExampleLoadsWithoutErrors) {
  for (const fs::path& dir : Subdirs(ExamplesDir())) {
    Diagnostics diags;
    auto config = LoadClusterConfig((dir / "slurm.conf").string(), diags);
    EXPECT_TRUE(config.ok()) << dir << "\n" << diags.ToString();
    EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  }
}

TEST(ExamplesTest, EveryBrokenExampleFailsWithItsExpectedError) {
  for (const fs::path& dir : Subdirs(ExamplesDir() / "broken")) {
    std::ifstream in(dir / "EXPECTED");
    std::string expected;
    std::getline(in, expected);
    ASSERT_FALSE(expected.empty()) << dir;
    Diagnostics diags;
    auto config = LoadClusterConfig((dir / "slurm.conf").string(), diags);
    EXPECT_FALSE(config.ok()) << dir;
    bool found = false;
    for (const Diagnostic& d : diags.all()) {
      if (d.severity != Severity::kError) continue;
      // The expectation names the file by its base name; ours carries the path.
      std::string shown = fs::path(d.where.file).filename().string() + " line " +
                          std::to_string(d.where.line) + ": " + d.message;
      found |= shown == expected;
    }
    EXPECT_TRUE(found) << dir << "\nexpected: " << expected << "\ngot:\n" << diags.ToString();
  }
}

TEST(ExamplesTest, GpuClusterContentsAreUnderstood) {
  Diagnostics diags;
  auto config = LoadClusterConfig((ExamplesDir() / "gpu-cluster" / "slurm.conf").string(), diags);
  ASSERT_TRUE(config.ok()) << diags.ToString();
  const ClusterConfig& c = **config;
  EXPECT_EQ(c.settings.cluster_name, "hpc");
  ASSERT_EQ(c.nodes.size(), 16u);
  const NodeConfig* n = c.FindNode("gpu09");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->cpus, 128u);
  EXPECT_EQ(n->sockets, 2u);
  EXPECT_EQ(n->cores_per_socket, 64u);
  EXPECT_EQ(n->real_memory_mb, 1000000u);
  ASSERT_EQ(n->gres.size(), 1u);
  EXPECT_EQ(n->gres[0].ToString(), "gpu:a100:8");

  ASSERT_EQ(c.partitions.size(), 2u);
  const PartitionConfig* gpu = c.DefaultPartition();
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->name, "gpu");
  EXPECT_EQ(gpu->max_time, 24 * 3600);
  EXPECT_EQ(gpu->priority_tier, 10u);
  EXPECT_DOUBLE_EQ(gpu->billing_weights.at("gres/gpu"), 32.0);
  EXPECT_DOUBLE_EQ(gpu->billing_weights.at("mem"), 0.1 / 1024);
  EXPECT_EQ(gpu->nodes.size(), 16u);
  const PartitionConfig* preempt = c.FindPartition("preempt");
  ASSERT_NE(preempt, nullptr);
  EXPECT_EQ(preempt->grace_time, 120);
  EXPECT_EQ(preempt->preempt_mode, "REQUEUE");

  EXPECT_EQ(c.settings.scheduler.bf_window, 2880 * 60);
  EXPECT_EQ(c.settings.scheduler.bf_resolution, 300);
  EXPECT_EQ(c.settings.scheduler.bf_max_job_test, 2000u);
  EXPECT_TRUE(c.settings.scheduler.bf_continue);
  EXPECT_EQ(c.settings.priority_decay_half_life, 7 * 24 * 3600);
  EXPECT_DOUBLE_EQ(c.settings.priority_weights.tres.at("gres/gpu"), 3000);
  EXPECT_EQ(c.settings.preempt_exempt_time, 600);

  const std::vector<GresDevice>* devices = c.gres.DevicesOf("gpu16");
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->size(), 8u);
  EXPECT_EQ((*devices)[5].file, "/dev/nvidia5");
  EXPECT_EQ((*devices)[5].cores.front(), 64u);
  EXPECT_EQ((*devices)[5].cores.back(), 127u);

  EXPECT_TRUE(c.cgroup.constrain_devices);
  ASSERT_EQ(c.topology.switches.size(), 3u);
  EXPECT_EQ(c.topology.switches[2].level, 1);
  EXPECT_EQ(c.topology.switches[c.topology.leaf_of.at("gpu12")].name, "leaf2");
}

// The seed's node line gives CPUs and Sockets only: Rota derives 64 cores a
// socket (with one warning), so its gres.conf Cores=0-63 / 64-127 are the two
// sockets' cores.
TEST(ExamplesTest, SeedNodeLineWithoutCoresPerSocketLoads) {
  Diagnostics diags;
  auto config = LoadClusterConfig((ExamplesDir() / "seed-verbatim" / "slurm.conf").string(), diags);
  ASSERT_TRUE(config.ok()) << diags.ToString();
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  const NodeConfig* n = (*config)->FindNode("gpu16");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->sockets, 2u);
  EXPECT_EQ(n->cores_per_socket, 64u);
  EXPECT_EQ(n->cores(), 128u);
  const std::vector<GresDevice>* devices = (*config)->gres.DevicesOf("gpu16");
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->size(), 8u);
  EXPECT_EQ((*devices)[4].cores.front(), 64u);
  EXPECT_EQ((*devices)[4].cores.back(), 127u);
  EXPECT_NE(diags.ToString().find("CoresPerSocket not given; using 64"), std::string::npos)
      << diags.ToString();
}

TEST(ExamplesTest, HeterogeneousDefaultsApplyAcrossNodeLines) {
  Diagnostics diags;
  auto config = LoadClusterConfig((ExamplesDir() / "heterogeneous" / "slurm.conf").string(), diags);
  ASSERT_TRUE(config.ok()) << diags.ToString();
  const ClusterConfig& c = **config;
  const NodeConfig* fat = c.FindNode("fat01");
  ASSERT_NE(fat, nullptr);
  EXPECT_EQ(fat->sockets, 2u);  // From NodeName=DEFAULT.
  EXPECT_EQ(fat->cores_per_socket, 96u);
  EXPECT_EQ(fat->features, std::vector<std::string>{"highmem"});
  EXPECT_EQ(c.FindNode("hgpu03")->features, (std::vector<std::string>{"h100", "bigmem"}));
  EXPECT_EQ(c.DefaultPartition()->name, "compute");
  EXPECT_EQ(c.FindPartition("training")->max_time, kInfiniteDuration);
  EXPECT_EQ(c.FindPartition("interactive")->default_time, 3600);
  EXPECT_EQ(c.gres.AutoDetectFor("inf02"), "nvml");
  EXPECT_EQ(c.gres.DevicesOf("inf02")->size(), 4u);
}

TEST(ExamplesTest, ObservedSlurmConfigurationLoads) {
  fs::path observed = rota::testing::SharedDir() / "slurm-observed" / "config" / "slurm.conf";
  Diagnostics diags;
  auto config = LoadClusterConfig(observed.string(), diags);
  ASSERT_TRUE(config.ok()) << diags.ToString();
  const ClusterConfig& c = **config;
  EXPECT_EQ(c.settings.controllers.at(0).name, "vm");
  EXPECT_EQ(c.settings.controllers.at(0).address, "127.0.0.1");
  EXPECT_EQ(c.FindNode("n3")->port, 17003);
  EXPECT_EQ(c.FindNode("n3")->sockets, 2u);               // Boards=1 SocketsPerBoard=2.
  EXPECT_EQ(c.FindPartition("short")->nodes.size(), 4u);  // Nodes=ALL.
  EXPECT_EQ(c.settings.def_mem_per_cpu, 1024u);
  EXPECT_EQ(c.settings.return_to_service, 2u);
}

}  // namespace
}  // namespace rota::conf
