#pragma once

// What each job's (or step's) GPUs on this node did, from the samples rotad takes
// (gpu_watch.h): per sample the job's GPUs' figures are summed (Slurm's
// gres/gpuutil and gres/gpumem are sums over the GPUs), then the mean and
// peak over samples, and energy as power x time between samples. Pure: no
// clock, no thread; the caller passes times and serialises calls.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "noded/gpu/discovery/gpu_sampler.h"
#include "usage.pb.h"

namespace rota::noded {

class GpuUsageMeter {
 public:
  // `files`: the node's GPUs' device files by index ("" for a GPU known only
  // by count, which cannot be read).
  explicit GpuUsageMeter(std::vector<std::string> files) : files_(std::move(files)) {}

  // A key is what is measured: a job or a step (gpu_watch.h's keys).
  // Starts measuring `key`'s GPUs (indices into `files`) at `at_s`
  // (seconds on any steady clock). Watching a job again starts it afresh.
  void Watch(uint64_t key, const std::vector<uint32_t>& indices, double at_s);
  // Adds a sample taken at `at_s` to every watched job. A GPU without a
  // reading adds nothing to that sample's sums.
  void Record(const std::vector<GpuReading>& readings, double at_s);
  // What `key`'s GPUs did so far; nullopt when it is not watched.
  std::optional<wire::GpuUsage> Current(uint64_t key) const;
  // Current, and stops watching.
  std::optional<wire::GpuUsage> Finish(uint64_t key);
  // The mean utilisation per GPU (%) of `key`'s GPUs in the latest sample;
  // nullopt when that sample read none of them (or `key` is not watched).
  std::optional<double> LatestMeanUtil(uint64_t key) const;
  // Jobs watched now, with their GPU indices.
  std::map<uint64_t, std::vector<uint32_t>> Watched() const;

 private:
  struct Tally {
    std::vector<uint32_t> indices;
    double last_at_s = 0;  // The previous sample, or the start
    uint32_t samples = 0;
    double util_sum = 0;  // Over samples, of the summed utilisation
    uint32_t util_max = 0;
    double mem_sum = 0;
    uint64_t mem_max = 0;
    uint64_t mem_total = 0;
    double energy_j = 0;
    uint32_t power_max_mw = 0;
    std::optional<double> latest_mean_util;  // The latest Record's, per GPU
  };
  static wire::GpuUsage Summary(const Tally& t);

  std::vector<std::string> files_;
  std::map<uint64_t, Tally> jobs_;
};

}  // namespace rota::noded
