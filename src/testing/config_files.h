#pragma once

// Loads a configuration written inline in a test, the way an administrator
// would lay it out: slurm.conf with gres.conf, cgroup.conf, topology.conf beside it.

#include <memory>
#include <string>

#include "conf/config_loader.h"
#include "testing/temp_dir.h"

namespace rota::testing {

struct ConfigFiles {
  ConfigFiles(std::string slurm_text, std::string gres_text = "", std::string cgroup_text = "",
              std::string topology_text = "")
      : slurm(std::move(slurm_text)),
        gres(std::move(gres_text)),
        cgroup(std::move(cgroup_text)),
        topology(std::move(topology_text)) {}

  std::string slurm;
  std::string gres;      // Not written when empty.
  std::string cgroup;    // Not written when empty.
  std::string topology;  // Not written when empty.
};

struct LoadedConfig {
  Result<std::shared_ptr<const conf::ClusterConfig>> config = InvalidArgument("not loaded");
  conf::Diagnostics diags;

  // Every diagnostic, one per line, with file paths reduced to base names.
  std::string Text() const {
    std::string out;
    for (const conf::Diagnostic& d : diags.all()) {
      conf::Diagnostic shown = d;
      shown.where.file = std::filesystem::path(d.where.file).filename().string();
      out += shown.ToString() + "\n";
    }
    return out;
  }
};

inline LoadedConfig LoadConfigFiles(const TempDir& dir, const ConfigFiles& files) {
  std::string path = dir.Write("slurm.conf", files.slurm);
  if (!files.gres.empty()) dir.Write("gres.conf", files.gres);
  if (!files.cgroup.empty()) dir.Write("cgroup.conf", files.cgroup);
  if (!files.topology.empty()) dir.Write("topology.conf", files.topology);
  LoadedConfig loaded;
  loaded.config = conf::LoadClusterConfig(path, loaded.diags);
  return loaded;
}

// The smallest valid head of a slurm.conf; tests append their nodes and partitions.
inline constexpr const char* kMinimalHead =
    "ClusterName=test\n"
    "SlurmctldHost=ctl\n"
    "GresTypes=gpu\n";

}  // namespace rota::testing
