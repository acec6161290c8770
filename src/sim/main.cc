// rota-sim: replays a workload trace through Rota's controller core on a
// virtual clock and prints how the cluster would have done.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "sim/alibaba_reader.h"
#include "sim/policy.h"
#include "sim/replay_plot.h"
#include "sim/runtime_predictions.h"
#include "sim/sacct_json_reader.h"
#include "sim/sacct_reader.h"
#include "sim/sim_cluster.h"
#include "sim/simulator.h"
#include "sim/summary.h"
#include "sim/swf_reader.h"
#include "sim/synthetic_trace.h"

namespace rota::sim {
namespace {

constexpr const char* kUsage =
    "usage: rota-sim --trace FILE.swf[.gz]|PODS.csv|SACCT.txt [--alibaba-nodes NODES.csv]\n"
    "                [--config slurm.conf | --nodes N --cpus-per-node C [--gpus-per-node G]]\n"
    "                [--policy fcfs|easy|conservative|slurm] [--estimates user|exact|predicted]\n"
    "                [--predictions F] [--forecasts] [--jobs-csv F] [--plot F.svg]\n"
    "                [--max-jobs N] [--no-timing] [--quiet]\n"
    "       rota-sim --generate N --out F.swf [--procs P] [--load L] [--seed S]\n";

struct Options {
  std::string trace;
  std::string config;
  std::string alibaba_nodes;
  uint32_t nodes = 0;
  uint32_t cpus_per_node = 1;
  uint32_t gpus_per_node = 0;
  std::string policy = "fcfs";
  std::string estimates = "user";
  std::string jobs_csv;
  std::string plot;
  uint64_t max_jobs = 0;
  bool timing = true;
  bool quiet = false;
  bool forecasts = false;
  std::string predictions;
  uint64_t generate = 0;
  std::string out;
  SyntheticOptions synthetic;
};

int Fail(const std::string& message) {
  std::cerr << "rota-sim: " << message << "\n";
  return 2;
}

bool ParseCount(const std::string& text, uint64_t& out) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') return false;
  out = v;
  return true;
}

// Parses argv into `o`; an error message, or "" when all is well.
std::string ParseArgs(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg != "--no-timing" && arg != "--quiet" && arg != "--forecasts" &&
               arg != "--help" && arg != "-h") {
      if (i + 1 >= argc) return arg + " needs a value";
      value = argv[++i];
    }
    uint64_t n = 0;
    auto count = [&](auto& field) {
      if (!ParseCount(value, n)) return false;
      field = static_cast<std::remove_reference_t<decltype(field)>>(n);
      return true;
    };
    if (arg == "--trace") {
      o.trace = value;
    } else if (arg == "--alibaba-nodes") {
      o.alibaba_nodes = value;
    } else if (arg == "--config") {
      o.config = value;
    } else if (arg == "--nodes") {
      if (!count(o.nodes)) return "bad --nodes " + value;
    } else if (arg == "--cpus-per-node") {
      if (!count(o.cpus_per_node)) return "bad --cpus-per-node " + value;
    } else if (arg == "--gpus-per-node") {
      if (!count(o.gpus_per_node)) return "bad --gpus-per-node " + value;
    } else if (arg == "--policy") {
      o.policy = value;
    } else if (arg == "--estimates") {
      o.estimates = value;
    } else if (arg == "--predictions") {
      o.predictions = value;
    } else if (arg == "--jobs-csv") {
      o.jobs_csv = value;
    } else if (arg == "--plot") {
      o.plot = value;
    } else if (arg == "--max-jobs") {
      if (!count(o.max_jobs)) return "bad --max-jobs " + value;
    } else if (arg == "--no-timing") {
      o.timing = false;
    } else if (arg == "--quiet") {
      o.quiet = true;
    } else if (arg == "--forecasts") {
      o.forecasts = true;
    } else if (arg == "--generate") {
      if (!count(o.generate)) return "bad --generate " + value;
    } else if (arg == "--out") {
      o.out = value;
    } else if (arg == "--procs") {
      if (!count(o.synthetic.processors)) return "bad --procs " + value;
    } else if (arg == "--load") {
      char* end = nullptr;
      o.synthetic.load = std::strtod(value.c_str(), &end);
      if (*end != '\0' || o.synthetic.load <= 0) return "bad --load " + value;
    } else if (arg == "--seed") {
      if (!count(o.synthetic.seed)) return "bad --seed " + value;
    } else if (arg == "--help" || arg == "-h") {
      return "help";
    } else {
      return "unknown option " + arg;
    }
  }
  return "";
}

int Generate(Options& o) {
  if (o.out.empty()) return Fail("--generate needs --out F.swf");
  o.synthetic.jobs = o.generate;
  std::ofstream out(o.out, std::ios::binary);
  if (!out) return Fail("cannot write " + o.out);
  WriteSwf(out, GenerateTrace(o.synthetic), o.synthetic);
  out.close();
  if (!out) return Fail("cannot write " + o.out);
  std::cerr << fmt::format("rota-sim: wrote {} jobs to {}\n", o.generate, o.out);
  return 0;
}

int Replay(const Options& o) {
  Result<Policy> policy = ParsePolicy(o.policy);
  if (!policy.ok()) return Fail(policy.status().message());
  if (o.estimates != "user" && o.estimates != "exact" && o.estimates != "predicted") {
    return Fail("--estimates is user, exact or predicted, not " + o.estimates);
  }
  if (o.trace.empty()) return Fail(std::string("--trace is required\n") + kUsage);
  const bool alibaba = o.trace.size() >= 4 && o.trace.compare(o.trace.size() - 4, 4, ".csv") == 0;
  Result<Trace> trace = InvalidArgument("no trace");
  std::string generated_conf;
  std::string generated_gres;
  if (alibaba && o.config.empty() && o.nodes == 0) {
    // The pods' machine: the node list beside them unless told otherwise.
    std::string nodes_path = o.alibaba_nodes;
    if (nodes_path.empty()) {
      nodes_path = o.trace;
      size_t at = nodes_path.rfind("pod_list_default");
      if (at == std::string::npos) return Fail("an Alibaba pod list needs --alibaba-nodes");
      nodes_path.replace(at, std::string("pod_list_default").size(), "node_list_gpu_node");
    }
    Result<std::string> nodes_text = ReadMaybeGzip(nodes_path);
    if (!nodes_text.ok()) return Fail(nodes_text.status().message());
    Result<std::vector<AlibabaNode>> nodes = ParseAlibabaNodes(*nodes_text);
    if (!nodes.ok()) return Fail(nodes_path + ": " + nodes.status().message());
    generated_conf = AlibabaSlurmConf(*nodes);
    generated_gres = AlibabaGresConf(*nodes);
  }
  if (alibaba) {
    Result<std::string> pods = ReadMaybeGzip(o.trace);
    if (!pods.ok()) return Fail(pods.status().message());
    trace = ParseAlibabaPods(*pods, o.max_jobs);
  } else {
    // SWF, or a site's own history exported with sacct --json or -P (told apart by its start).
    Result<std::string> text = ReadMaybeGzip(o.trace);
    if (!text.ok()) return Fail(text.status().message());
    if (LooksLikeJson(*text)) {
      trace = ParseSacctJson(*text, o.max_jobs);
    } else if (LooksLikeSacctParsable(*text)) {
      trace = ParseSacctParsable(*text, o.max_jobs);
    } else {
      trace = Result<Trace>(ParseSwf(*text, {o.max_jobs}));
    }
  }
  if (!trace.ok()) return Fail(trace.status().message());
  const ReadStats& st = trace->stats;
  std::cerr << fmt::format(
      "rota-sim: {} jobs read from {} ({} lines; skipped: {} runtime <= 0, {} processors <= 0, "
      "{} malformed; {} fractional GPU shares rounded up to a whole GPU)\n",
      st.read, o.trace, st.lines, st.skipped_runtime, st.skipped_processors, st.skipped_malformed,
      st.rounded_gpus);

  Result<std::shared_ptr<const conf::ClusterConfig>> config = InvalidArgument("no cluster");
  if (!o.config.empty()) {
    if (o.nodes > 0) return Fail("--config and --nodes exclude each other");
    config = LoadConfigFile(o.config);
  } else if (!generated_conf.empty() && o.nodes == 0) {
    config = LoadConfigText(generated_conf, generated_gres);
  } else {
    UniformCluster shape{o.nodes, o.cpus_per_node, o.gpus_per_node};
    if (shape.nodes == 0) {
      // The trace's machine: one single-CPU node per processor.
      uint32_t biggest = 0;
      for (const TraceJob& j : trace->jobs) biggest = std::max(biggest, j.processors);
      shape.nodes = std::max(trace->machine_processors, biggest);
      shape.cpus_per_node = 1;
      std::cerr << fmt::format("rota-sim: cluster of {} one-CPU nodes (one per processor)\n",
                               shape.nodes);
    }
    if (shape.nodes == 0) return Fail("the trace has no jobs and no --nodes was given");
    config = LoadConfigText(UniformSlurmConf(shape), UniformGresConf(shape));
  }
  if (!config.ok()) return Fail(config.status().message());

  SimOptions sim_options;
  sim_options.estimates = o.estimates == "exact"       ? Estimates::kExact
                          : o.estimates == "predicted" ? Estimates::kPredicted
                                                       : Estimates::kUser;
  sim_options.policy = *policy;
  sim_options.forecasts = o.forecasts;
  Result<RuntimePredictions> predictions = RuntimePredictions();
  if (!o.predictions.empty()) {
    if (sim_options.estimates != Estimates::kPredicted) {
      return Fail("--predictions plans with the listed runtimes: it needs --estimates predicted");
    }
    predictions = ReadRuntimePredictions(o.predictions);
    if (!predictions.ok()) return Fail(predictions.status().message());
    sim_options.predictions = &*predictions;
  }
  if (!o.quiet) {
    sim_options.progress = [](const SimProgress& p) {
      std::cerr << fmt::format(
          "rota-sim: {}/{} submitted, {} finished, simulated {:.1f} days, "
          "{:.0f} s\n",
          p.submitted, p.total, p.finished, p.sim_time_s / 86400.0, p.wall_s);
    };
  }
  Simulator simulator(**config, sim_options);
  SimResult result = simulator.Run(trace->jobs);
  if (!o.jobs_csv.empty()) {
    std::ofstream csv(o.jobs_csv, std::ios::binary);
    WriteJobsCsv(csv, result);
    csv.close();
    if (!csv) return Fail("cannot write " + o.jobs_csv);
  }
  if (!o.plot.empty()) {
    std::ofstream svg(o.plot, std::ios::binary);
    WriteReplayPlot(
        svg, result, TotalCpus(**config), TotalGpus(**config),
        fmt::format("rota-sim: {} ({} policy, {} estimates)",
                    std::filesystem::path(o.trace).filename().string(), o.policy, o.estimates));
    svg.close();
    if (!svg) return Fail("cannot write " + o.plot);
  }
  for (const JobOutcome& j : result.jobs) {
    if (!j.refused.empty()) {
      std::cerr << fmt::format("rota-sim: {} submissions refused; the first, trace job {}: {}\n",
                               result.refused, j.trace_id, j.refused);
      break;
    }
  }
  Summary summary = Summarize(result, TotalCpus(**config), TotalGpus(**config));
  WriteSummary(std::cout, summary, o.timing);
  return 0;
}

}  // namespace
}  // namespace rota::sim

int main(int argc, char** argv) {
  rota::sim::Options options;
  std::string error = rota::sim::ParseArgs(argc, argv, options);
  if (error == "help") {
    std::cout << rota::sim::kUsage;
    return 0;
  }
  if (!error.empty()) return rota::sim::Fail(error + "\n" + rota::sim::kUsage);
  if (options.generate > 0) return rota::sim::Generate(options);
  return rota::sim::Replay(options);
}
