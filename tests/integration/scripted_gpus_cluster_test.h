#pragma once
// AccountedClusterTest whose nodes' fake GPUs play scripted readings
// (noded/gpu/discovery/fake_gpu_sampler.h) through the fake inventory
// (ROTA_FAKE_GPUS), sampled every second (JobAcctGatherFrequency=task=1).

#include <string>
#include <vector>

#include "common/strings.h"
#include "tests/integration/accounted_cluster_test.h"

namespace rota::testing {

class ScriptedGpusClusterTest : public AccountedClusterTest {
 protected:
  // More slurm.conf lines beside the sampling interval.
  virtual std::string GpuSettings() const { return ""; }
  // What GPU `gpu` of node `node` plays from its rotad's start; by default
  // busy at 80%, 10 GiB of 80 used, drawing 300 W.
  virtual std::string GpuScript(int /*node*/, int /*gpu*/) const {
    return "0 Util=80 MemUsed=10G MemTotal=80G Power=300 Temp=50\n";
  }

  std::string MoreSettings() const final {
    return "JobAcctGatherFrequency=task=1\n" + GpuSettings();
  }
  std::vector<std::string> NodeEnvironment(int node) const override {
    std::string inventory;
    for (int g = 0; g < NodedCluster::kGpusPerNode; ++g) {
      const std::string script = cluster_->dir().Write(Script(node, g), GpuScript(node, g));
      inventory += "Type=a100 File=" + cluster_->Gpu(node, g) + " Metrics=" + script + "\n";
    }
    return {"ROTA_FAKE_GPUS=" + cluster_->dir().Write("gpus-" + std::to_string(node), inventory)};
  }
  // The script file of a GPU, relative to the cluster's directory.
  static std::string Script(int node, int gpu) {
    return "gpu-" + std::to_string(node) + "-" + std::to_string(gpu) + ".script";
  }

  // sacct's -P cells of `id` (State first, then `fields`), once its state is
  // `state` (or after 40 s).
  std::vector<std::string> SacctOnce(const std::string& id, const std::string& state,
                                     const std::string& fields) {
    std::string out;
    WaitUntil(
        [&] {
          out = cluster_->Run("sacct -n -P -j " + id + " -o State," + fields).out;
          return out.starts_with(state + "|");
        },
        std::chrono::seconds(40));
    const std::string first_line = out.substr(0, out.find('\n'));
    std::vector<std::string> cells;
    for (std::string_view c : Split(Trim(first_line), '|')) cells.emplace_back(c);
    return cells;
  }
};

}  // namespace rota::testing
