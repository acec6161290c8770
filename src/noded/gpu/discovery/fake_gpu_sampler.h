#pragma once

// Scripted GPU readings for tests and demos: a job that idles, one that
// peaks, a GPU that throws an XID, without a GPU. The fake inventory
// (fake_gpu_provider.h) names each GPU's script with Metrics=FILE; a GPU
// without one reads as idle (all figures 0).
//
// A script has one line per moment, "SECONDS Key=Value ...", SECONDS counted
// from the sampler's creation (rotad's start). A line sets only the figures
// it names; the others keep their earlier values. '#' starts a comment.
//   0   Util=0  MemUsed=512M MemTotal=80G Power=60 Temp=35
//   5   Util=97 MemUsed=70G Power=390 Pids=4242,4243
//   20  Event=xid:79
// Keys (case-insensitive): Util (%), MemUsed and MemTotal (sizes as --mem
// takes them: 512M, 80G), Power (watts), Temp (°C), Pids (a comma list of
// processes on the GPU; "Pids=" for none), Event (xid:N, ecc, lost,
// retired-pages: reported once, by the first sample at or after its moment).
// Files are read anew at each sample, so a test may also append to them: an
// event line appended with a past moment fires at the next sample.

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "noded/gpu/discovery/gpu_sampler.h"

namespace rota::noded {

// One line of a script.
struct ScriptedMoment {
  double at_s = 0;
  std::map<std::string, std::string> values;  // Lower-case key -> text, Event excluded
  std::vector<GpuEvent> events;
};

// The moments a script's `text` holds, in file order; errors name `origin`
// and the line.
Result<std::vector<ScriptedMoment>> ParseGpuScript(std::string_view text, std::string_view origin);

// The reading at `elapsed_s` of `script` for `device_file`, with the events
// of the moments up to then that `fired` (moment numbers of this script)
// does not hold yet; those are added to it. Errors: a bad value (named with
// `origin`).
Result<GpuReading> ScriptedReading(const std::vector<ScriptedMoment>& script,
                                   const std::string& device_file, double elapsed_s,
                                   std::set<size_t>& fired, std::string_view origin);

class FakeGpuSampler : public GpuSampler {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // `clock` is for tests; scripts count from the sampler's creation.
  explicit FakeGpuSampler(std::string inventory_path, Clock clock = nullptr);

  std::string Name() const override { return "fake inventory " + inventory_path_; }
  Result<std::vector<GpuReading>> Sample() override;

 private:
  std::string inventory_path_;
  Clock clock_;
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, std::set<size_t>> fired_;  // Script -> moments whose events were told
};

}  // namespace rota::noded
