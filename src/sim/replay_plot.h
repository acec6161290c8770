#pragma once

// `rota-sim --plot F.svg`: a picture of one replay that a person can open in a
// browser. Two time series (jobs waiting, CPU and GPU utilization) over the
// replay and the distribution of waiting times. The series are computed apart
// from the drawing so that they can be checked by tests.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace rota::sim {

// The cluster's state at one instant (seconds from the trace's start).
struct PlotSample {
  int64_t time_s = 0;
  uint64_t waiting = 0;  // Submitted, not yet started
  double cpu_utilization = 0;
  double gpu_utilization = 0;
};

// The state at `samples` evenly spaced instants from the first submission to
// the last end (both included; fewer when the replay is shorter than that many
// seconds). Refused jobs are left out; a job that never started waits to the end.
std::vector<PlotSample> SampleReplay(const SimResult& result, uint64_t total_cpus,
                                     uint64_t total_gpus, size_t samples);

// Started jobs counted by waiting time, in bins a person reads at a glance.
struct WaitBin {
  std::string label;  // "< 1 min", "1-10 min", ...
  int64_t upper_s;    // Exclusive; INT64_MAX for the last bin
  uint64_t jobs = 0;
};
std::vector<WaitBin> WaitHistogram(const SimResult& result);

// A self-contained SVG document (no scripts, no external resources).
void WriteReplayPlot(std::ostream& out, const SimResult& result, uint64_t total_cpus,
                     uint64_t total_gpus, const std::string& title);

}  // namespace rota::sim
