#include "sim/sim_cluster.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "conf/config_loader.h"

namespace rota::sim {
namespace {

std::string NodeRange(uint32_t nodes) { return nodes == 1 ? "n1" : fmt::format("n[1-{}]", nodes); }

// A directory of our own under $TMPDIR, removed when this goes out of scope.
class ScratchDir {
 public:
  ScratchDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/rota-sim-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

std::string UniformSlurmConf(const UniformCluster& shape) {
  std::string text =
      "ClusterName=sim\n"
      "SlurmctldHost=sim\n"
      "SelectType=select/cons_tres\n"
      "SelectTypeParameters=CR_Core\n";
  if (shape.gpus_per_node > 0) text += "GresTypes=gpu\n";
  text += fmt::format("NodeName={} CPUs={} RealMemory=1000", NodeRange(shape.nodes),
                      shape.cpus_per_node);
  if (shape.gpus_per_node > 0) text += fmt::format(" Gres=gpu:{}", shape.gpus_per_node);
  text += fmt::format(
      " State=UNKNOWN\nPartitionName=sim Nodes={} Default=YES MaxTime=UNLIMITED "
      "State=UP\n",
      NodeRange(shape.nodes));
  return text;
}

std::string UniformGresConf(const UniformCluster& shape) {
  if (shape.gpus_per_node == 0) return "";
  return fmt::format("NodeName={} Name=gpu Count={}\n", NodeRange(shape.nodes),
                     shape.gpus_per_node);
}

Result<std::shared_ptr<const conf::ClusterConfig>> LoadConfigText(const std::string& slurm_conf,
                                                                  const std::string& gres_conf) {
  ScratchDir dir;
  if (dir.path().empty()) return IoError("cannot make a temporary directory");
  std::string path = dir.path() + "/slurm.conf";
  if (!WriteFile(path, slurm_conf) ||
      (!gres_conf.empty() && !WriteFile(dir.path() + "/gres.conf", gres_conf))) {
    return IoError("cannot write the generated configuration in " + dir.path());
  }
  return LoadConfigFile(path);
}

Result<std::shared_ptr<const conf::ClusterConfig>> LoadConfigFile(const std::string& path) {
  conf::Diagnostics diags;
  Result<std::shared_ptr<const conf::ClusterConfig>> config = conf::LoadClusterConfig(path, diags);
  if (config.ok()) return config;
  std::string text = config.status().message();
  for (const conf::Diagnostic& d : diags.all()) text += "\n" + d.ToString();
  return InvalidArgument(text);
}

std::shared_ptr<const conf::ClusterConfig> ForSimulation(const conf::ClusterConfig& config) {
  auto sim = std::make_shared<conf::ClusterConfig>(config);
  sim->settings.slurmd_timeout = 0;
  sim->settings.min_job_age = 0;
  sim->settings.max_job_count = std::numeric_limits<uint32_t>::max();
  return sim;
}

uint64_t TotalCpus(const conf::ClusterConfig& config) {
  uint64_t total = 0;
  for (const conf::NodeConfig& n : config.nodes) total += n.cpus;
  return total;
}

uint64_t TotalGpus(const conf::ClusterConfig& config) {
  uint64_t total = 0;
  for (const conf::NodeConfig& n : config.nodes) {
    for (const GresSpec& g : n.gres) {
      if (g.name == "gpu") total += g.count;
    }
  }
  return total;
}

}  // namespace rota::sim
