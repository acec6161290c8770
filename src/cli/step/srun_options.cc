#include "cli/step/srun_options.h"

#include <fmt/format.h>
#include <getopt.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <span>

#include "cli/step/mpi_type.h"
#include "cli/submit/container_options.h"
#include "cli/submit/hostfile.h"
#include "cli/submit/job_options.h"
#include "cli/submit/propagated_limits.h"
#include "common/cpu_bind_spec.h"
#include "common/gres_spec.h"
#include "common/mem_bind_spec.h"
#include "common/memory_size.h"
#include "common/strings.h"
#include "model/task_distribution.h"

namespace rota::cli {
namespace {

enum LongOnly : int {
  kNtasksPerNode = 1000,
  kGpusPerTask,
  kGpuBind,
  kJobId,
  kUsage,
  kMpi,
  kOverlap,
  kOvercommit,
  kExclusive,
  kOpenMode,
  kPty,
  kMem,
  kMemPerCpu,
  kGres,
  kCpuBind,
  kGpusPerNode,
  kAllocationOnly,  // + index in JobOptionTable()
};

const option kOptions[] = {
    {"ntasks", required_argument, nullptr, 'n'},
    {"nodes", required_argument, nullptr, 'N'},
    {"ntasks-per-node", required_argument, nullptr, kNtasksPerNode},
    {"cpus-per-task", required_argument, nullptr, 'c'},
    {"gpus-per-task", required_argument, nullptr, kGpusPerTask},
    {"gpu-bind", required_argument, nullptr, kGpuBind},
    {"job-name", required_argument, nullptr, 'J'},
    {"jobid", required_argument, nullptr, kJobId},
    {"label", no_argument, nullptr, 'l'},
    {"help", no_argument, nullptr, 'h'},
    {"usage", no_argument, nullptr, kUsage},
    {"version", no_argument, nullptr, 'V'},
    {"verbose", no_argument, nullptr, 'v'},
    {"mpi", required_argument, nullptr, kMpi},
    {"overlap", no_argument, nullptr, kOverlap},
    {"overcommit", no_argument, nullptr, kOvercommit},
    {"exclusive", optional_argument, nullptr, kExclusive},
    {"output", required_argument, nullptr, 'o'},
    {"error", required_argument, nullptr, 'e'},
    {"input", required_argument, nullptr, 'i'},
    {"open-mode", required_argument, nullptr, kOpenMode},
    {"kill-on-bad-exit", optional_argument, nullptr, 'K'},
    {"wait", required_argument, nullptr, 'W'},
    {"unbuffered", no_argument, nullptr, 'u'},
    {"pty", no_argument, nullptr, kPty},
    {"mem", required_argument, nullptr, kMem},
    {"mem-per-cpu", required_argument, nullptr, kMemPerCpu},
    {"gres", required_argument, nullptr, kGres},
    {"gpus", required_argument, nullptr, 'G'},
    {"cpu-bind", required_argument, nullptr, kCpuBind},
    {"gpus-per-node", required_argument, nullptr, kGpusPerNode},
    {nullptr, 0, nullptr, 0},
};

Status Error(const std::string& message) { return InvalidArgument("srun: error: " + message); }

// "4", and for -N "2-4" (the minimum counts here).
Result<uint32_t> Count(std::string_view what, std::string_view value, bool range) {
  std::string_view first = value;
  if (range) first = value.substr(0, value.find('-'));
  std::optional<uint64_t> n = ParseUint(Trim(first));
  if (!n || *n == 0 || *n > 1'000'000) {
    return Error(fmt::format("Invalid numeric value \"{}\" for {}.", value, what));
  }
  return static_cast<uint32_t>(*n);
}

// "1", "a100:1": the count after an optional type.
Result<uint32_t> GpuCount(std::string_view what, std::string_view value) {
  size_t colon = value.rfind(':');
  return Count(what, colon == std::string_view::npos ? value : value.substr(colon + 1), false);
}

// -K's optional value: none or non-zero sets it, 0 clears it.
bool KillOnBadExit(std::string_view value) {
  return value.empty() || ParseUint(Trim(value)).value_or(1) != 0;
}

}  // namespace

int StepExitCode(const std::map<uint32_t, uint32_t>& wait_statuses) {
  int code = 0;
  int signal_code = 0;
  for (const auto& [task, status] : wait_statuses) {
    if (WIFEXITED(status)) code = std::max<int>(code, WEXITSTATUS(status));
    if (WIFSIGNALED(status)) signal_code = std::max<int>(signal_code, 128 + WTERMSIG(status));
  }
  return code != 0 ? code : signal_code;
}

std::vector<std::string> TaskStatusLines(uint32_t job_id, uint32_t step_id, uint32_t num_tasks,
                                         const std::map<uint32_t, uint32_t>& wait_statuses) {
  const std::string prefix = fmt::format("srun: StepId={}.{} ", job_id, step_id);
  // Tasks in the same state, as ranges: "tasks 0-2,5".
  // In the order of each state's first task.
  std::vector<std::pair<std::string, std::vector<uint32_t>>> by_state;
  for (uint32_t t = 0; t < num_tasks; ++t) {
    auto it = wait_statuses.find(t);
    std::string state = "running";
    if (it != wait_statuses.end()) {
      const uint32_t status = it->second;
      state = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
              : WEXITSTATUS(status) != 0
                  ? fmt::format("exited with exit code {}", WEXITSTATUS(status))
                  : "exited";
    }
    auto same = std::find_if(by_state.begin(), by_state.end(),
                             [&](const auto& entry) { return entry.first == state; });
    if (same == by_state.end()) same = by_state.insert(by_state.end(), {state, {}});
    same->second.push_back(t);
  }
  std::vector<std::string> lines;
  for (const auto& [state, tasks] : by_state) {
    std::string ranges;
    for (size_t i = 0; i < tasks.size();) {
      size_t j = i;
      while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
      if (!ranges.empty()) ranges += ',';
      ranges += j == i ? std::to_string(tasks[i]) : fmt::format("{}-{}", tasks[i], tasks[j]);
      i = j + 1;
    }
    lines.push_back(prefix + (tasks.size() == 1 ? "task " : "tasks ") + ranges + ": " + state);
  }
  return lines;
}

std::optional<std::string> StepNodeCountError(const SrunOptions& options, const Environment& env) {
  auto value = [&](const char* name) -> std::optional<uint64_t> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return ParseUint(Trim(it->second));
  };
  std::optional<uint64_t> job = value("SLURM_JOB_ID");
  std::optional<uint64_t> nodes = value("SLURM_JOB_NUM_NODES");
  if (!job || *job != options.job_id || !nodes || options.num_nodes <= *nodes) return std::nullopt;
  return fmt::format("srun: error: Only allocated {} nodes asked for {}", *nodes,
                     options.num_nodes);
}

StepIoOption ParseStepIoOption(std::string_view value, bool input) {
  StepIoOption o;
  if (value == "all") {
    o.kind = input ? StepIoOption::kAll : StepIoOption::kStream;
  } else if (value == "none") {
    o.kind = StepIoOption::kNone;
  } else if (std::optional<uint64_t> task = ParseUint(value); task && *task <= UINT32_MAX) {
    o.kind = input ? StepIoOption::kStream : StepIoOption::kOneTask;
    o.task = static_cast<uint32_t>(*task);
  } else {
    o.kind = StepIoOption::kFile;
    o.pattern = std::string(value);
  }
  return o;
}

namespace {

// -m arbitrary: the tasks' nodes from SLURM_HOSTFILE (`path`); the step takes
// exactly those nodes, however many -N, --ntasks-per-node or -w said.
Status TakeHostfile(const std::string& path, SrunOptions& o) {
  if (path.empty()) {
    return Error("-m arbitrary needs SLURM_HOSTFILE, the file naming each task's node");
  }
  Result<Hostfile> hosts = ReadHostfile(path, o.num_tasks);
  if (!hosts.ok()) return Error(hosts.status().message());
  o.task_hosts = std::move(hosts->task_hosts);
  o.num_tasks = static_cast<uint32_t>(o.task_hosts.size());
  o.num_nodes = static_cast<uint32_t>(hosts->nodes.size());
  o.ntasks_per_node = 0;
  o.nodelist = Join(hosts->nodes, ",");
  return Status::Ok();
}

}  // namespace

Result<SrunOptions> ParseSrunOptions(const std::vector<std::string>& args, const Environment& env) {
  SrunOptions o;
  // Input environment first; the command line overrides it.
  auto from_env = [&](const char* name) -> std::string {
    auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  };
  struct EnvCount {
    const char* name;
    uint32_t* target;
    bool range;
  };
  for (const EnvCount& e :
       {EnvCount{"SLURM_NTASKS", &o.num_tasks, false}, EnvCount{"SLURM_NNODES", &o.num_nodes, true},
        EnvCount{"SLURM_NTASKS_PER_NODE", &o.ntasks_per_node, false},
        EnvCount{"SLURM_CPUS_PER_TASK", &o.cpus_per_task, false},
        EnvCount{"SLURM_NTASKS_PER_CORE", &o.ntasks_per_core, false}}) {
    std::string v = from_env(e.name);
    if (v.empty()) continue;
    Result<uint32_t> n = Count(e.name, v, e.range);
    if (n.ok()) *e.target = *n;
  }
  // The job's GPU request (sbatch --gpus-per-task, ...): the step asks the
  // same, unless its command line asks for GPUs itself (below).
  struct EnvGpus {
    const char* name;
    uint32_t* target;
  };
  for (const EnvGpus& e :
       {EnvGpus{"SLURM_GPUS_PER_TASK", &o.gpus_per_task},
        EnvGpus{"SLURM_GPUS_PER_NODE", &o.gpus_per_node}, EnvGpus{"SLURM_GPUS", &o.gpus}}) {
    std::string v = from_env(e.name);
    if (v.empty()) continue;
    if (Result<uint32_t> n = GpuCount(e.name, v); n.ok()) *e.target = *n;
  }
  o.gpu_bind = from_env("SLURM_GPU_BIND");
  // What srun sets in its tasks' environment ("quiet,mask_cpu:...") is not a
  // default for a step started from one of them; a user's setting is.
  if (std::string v = from_env("SLURM_CPU_BIND");
      !v.empty() && from_env("SLURM_CPU_BIND_TYPE").empty() && ParseCpuBindSpec(v).ok()) {
    o.cpu_bind = v;
  }
  if (std::string v = from_env("SLURM_HINT"); !v.empty() && CheckHint(v).ok()) o.hint = v;
  // As SLURM_CPU_BIND: what srun sets in its tasks is not a default for a
  // step started from one of them.
  if (std::string v = from_env("SLURM_MEM_BIND");
      !v.empty() && from_env("SLURM_MEM_BIND_TYPE").empty() && ParseMemBindSpec(v).ok()) {
    o.mem_bind = v;
  }
  if (!from_env("SLURM_OVERLAP").empty()) o.overlap = true;
  if (!from_env("SLURM_OVERCOMMIT").empty()) o.overcommit = true;
  o.distribution = from_env("SLURM_DISTRIBUTION");
  if (std::string v = from_env("SLURM_MPI_TYPE"); !v.empty()) {
    if (Result<std::string> mpi = CheckMpiType(v); mpi.ok() && *mpi != "list") o.mpi = *mpi;
  }
  if (std::string v = from_env("SLURM_KILL_BAD_EXIT"); !v.empty())
    o.kill_on_bad_exit = KillOnBadExit(v);
  if (std::string v = from_env("SLURM_WAIT"); !v.empty()) {
    o.wait_seconds = static_cast<uint32_t>(ParseUint(v).value_or(0));
  }
  if (std::string v = from_env("SLURM_JOB_ID"); !v.empty()) {
    o.job_id = static_cast<uint32_t>(ParseUint(v).value_or(0));
  }
  // An explicit -n without -N must not be held to the allocation's node count.
  bool nodes_given = false;
  bool tasks_given = false;
  bool error_given = false;
  bool io_given = false;    // -o, -e or -i
  bool gpus_given = false;  // --gpus-per-task, --gpus-per-node, --gres=gpu, -G
  bool container_given = false;

  std::vector<std::string> storage = {"srun"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  optind = 0;  // Full reset: other parses may have run in this process.
  opterr = 0;
  const int argc = static_cast<int>(storage.size());
  // The allocation's options (sbatch's table) are let through: srun outside
  // an allocation parses them again for its request (srun_main.cc).
  std::vector<option> longopts;
  std::string optstring = "+n:N:c:J:lhVvo:e:i:K::W:uG:O";
  const size_t own_letters = optstring.size();
  for (const option* o = kOptions; o->name != nullptr; ++o) longopts.push_back(*o);
  const std::span<const JobOption> table = JobOptionTable();
  for (size_t i = 0; i < table.size(); ++i) {
    const JobOption& j = table[i];
    if (!(j.commands & CommandBit(Command::kSrun))) continue;
    bool known = false;
    for (const option& o : longopts) known = known || j.name == o.name;
    if (known) continue;
    const int has_arg = j.arg == ArgKind::kNone       ? no_argument
                        : j.arg == ArgKind::kRequired ? required_argument
                                                      : optional_argument;
    longopts.push_back(
        option{j.name.data(), has_arg, nullptr, kAllocationOnly + static_cast<int>(i)});
    if (j.short_name != 0 && optstring.find(j.short_name) >= own_letters) {
      optstring += j.short_name;
      if (j.arg == ArgKind::kRequired) optstring += ':';
      if (j.arg == ArgKind::kOptional) optstring += "::";
    }
  }
  longopts.push_back(option{nullptr, 0, nullptr, 0});
  int c;
  while ((c = getopt_long(argc, argv.data(), optstring.c_str(), longopts.data(), nullptr)) != -1) {
    std::string_view value = optarg != nullptr ? optarg : "";
    Result<uint32_t> n = 0u;
    switch (c) {
      case 'n':
        n = Count("--ntasks", value, false);
        if (n.ok()) o.num_tasks = *n;
        tasks_given = true;
        break;
      case 'N':
        n = Count("--nodes", value, true);
        if (n.ok()) o.num_nodes = *n;
        nodes_given = true;
        break;
      case kNtasksPerNode:
        n = Count("--ntasks-per-node", value, false);
        if (n.ok()) o.ntasks_per_node = *n;
        break;
      case 'c':
        n = Count("--cpus-per-task", value, false);
        if (n.ok()) o.cpus_per_task = *n;
        break;
      case kGpusPerTask:
        if (!gpus_given) o.gpus_per_node = o.gpus = 0;
        gpus_given = true;
        n = GpuCount("--gpus-per-task", value);
        if (n.ok()) o.gpus_per_task = *n;
        break;
      case kGpusPerNode:
        if (!gpus_given) o.gpus_per_task = o.gpus = 0;
        gpus_given = true;
        n = GpuCount("--gpus-per-node", value);
        if (n.ok()) o.gpus_per_node = *n;
        break;
      case kGpuBind:
        o.gpu_bind = value;
        break;
      case 'J':
        o.job_name = value;
        break;
      case kJobId:
        n = Count("--jobid", value, false);
        if (n.ok()) o.job_id = *n;
        break;
      case 'l':
        o.label = true;
        break;
      case 'h':
        o.help = true;
        break;
      case kUsage:
        o.usage = true;
        break;
      case 'V':
        o.version = true;
        break;
      case 'v':
        ++o.verbose;
        break;
      case kMpi: {
        Result<std::string> mpi = CheckMpiType(value);
        if (!mpi.ok()) return mpi.status();
        o.mpi = *mpi;
        break;
      }
      case 'o':
        o.output = ParseStepIoOption(value, false);
        io_given = true;
        break;
      case 'e':
        o.error = ParseStepIoOption(value, false);
        error_given = true;
        io_given = true;
        break;
      case 'i':
        o.input = ParseStepIoOption(value, true);
        io_given = true;
        break;
      case kOpenMode:
        if (value != "append" && value != "truncate") {
          return Error(fmt::format("Invalid --open-mode argument: {}. Ignored", value));
        }
        o.append = value == "append";
        break;
      case 'K':
        o.kill_on_bad_exit = KillOnBadExit(value);
        break;
      case 'W': {
        std::optional<uint64_t> secs = ParseUint(Trim(value));
        if (!secs || *secs > UINT32_MAX) {
          return Error(fmt::format("Invalid numeric value \"{}\" for --wait.", value));
        }
        o.wait_seconds = static_cast<uint32_t>(*secs);
        break;
      }
      case 'u':
        break;  // Output is never buffered on its way to srun.
      case kPty:
        o.pty = true;
        break;
      case 'O':
      case kOvercommit:
        o.overcommit = true;
        break;
      case kOverlap:
        o.overlap = true;
        break;
      case kExclusive:
        // Slurm 22.05: steps hold their resources apart by default.
        break;
      case kMem:
      case kMemPerCpu: {
        Result<MemoryMb> mb = ParseMemoryOption(Trim(value));
        if (!mb.ok()) {
          return Error(fmt::format("invalid memory constraint: {}", value));
        }
        (c == kMem ? o.mem_per_node_mb : o.mem_per_cpu_mb) = *mb;
        (c == kMem ? o.mem_per_cpu_mb : o.mem_per_node_mb) = 0;
        break;
      }
      case kGres: {
        Result<std::vector<GresSpec>> list = ParseGresList(value);
        if (!list.ok()) return Error("Invalid generic resource (gres) specification");
        uint32_t gres_gpus = 0;
        bool names_gpus = false;
        for (const GresSpec& g : *list) {
          if (g.name != "gpu") continue;
          gres_gpus += static_cast<uint32_t>(g.count);
          names_gpus = true;
        }
        if (!names_gpus) break;  // --gres=nic:1 leaves the GPU request as it is.
        if (!gpus_given) o.gpus_per_task = o.gpus = 0;
        gpus_given = true;
        o.gpus_per_node = gres_gpus;
        break;
      }
      case 'G':
        if (!gpus_given) o.gpus_per_task = o.gpus_per_node = 0;
        gpus_given = true;
        n = GpuCount("--gpus", value);
        if (n.ok()) o.gpus = *n;
        break;
      case kCpuBind:
        if (Result<CpuBindSpec> bind = ParseCpuBindSpec(value); !bind.ok()) {
          return Error(bind.status().message());
        }
        o.cpu_bind = value;
        break;
      case '?': {
        std::string bad = optind - 1 < argc ? storage[optind - 1] : "";
        if (optopt != 0) return Error(fmt::format("invalid option -- '{}'", char(optopt)));
        return Error(fmt::format("unrecognized option '{}'", bad));
      }
      default: {
        const std::string_view long_name =
            c >= kAllocationOnly ? table[static_cast<size_t>(c - kAllocationOnly)].name : "";
        // Which of the job's nodes the step takes; the allocation reads them too.
        if (c == 'w' || long_name == "nodelist") o.nodelist = std::string(value);
        if (c == 'x' || long_name == "exclude") o.exclude = std::string(value);
        const bool distribution =
            c == 'm' || (c >= kAllocationOnly &&
                         table[static_cast<size_t>(c - kAllocationOnly)].name == "distribution");
        if (distribution) {  // Where the step's tasks go, inside an allocation too
          if (Result<model::TaskDistribution> d = model::ParseTaskDistribution(value); !d.ok()) {
            return Error(d.status().message());
          }
          o.distribution = std::string(value);
          break;
        }
        if (c >= kAllocationOnly) {  // For the allocation only, but --propagate
          const std::string_view name = table[static_cast<size_t>(c - kAllocationOnly)].name;
          if (IsContainerOption(name)) {  // The step's container, on every node
            if (Status applied = ApplyContainerOption(name, value, o.container); !applied.ok()) {
              return Error("--" + std::string(name) + ": " + applied.message());
            }
            container_given = true;
            break;
          }
          if (name == "hint") {  // How the step's tasks are bound, inside an allocation too
            if (Status hint = CheckHint(value); !hint.ok()) {
              return Error(std::string(hint.message()));
            }
            o.hint = std::string(value);
          }
          if (name == "mem-bind") {
            if (Result<MemBindSpec> m = ParseMemBindSpec(value); !m.ok()) {
              return Error(std::string(m.status().message()));
            }
            o.mem_bind = std::string(value);
          }
          if (name == "ntasks-per-core") {
            Result<uint32_t> n = Count("--ntasks-per-core", value, false);
            if (!n.ok()) return n.status();
            o.ntasks_per_core = *n;
          }
          if (table[static_cast<size_t>(c - kAllocationOnly)].name == "multi-prog") {
            o.multi_prog = true;
          } else if (table[static_cast<size_t>(c - kAllocationOnly)].name == "propagate") {
            Result<std::vector<std::string>> names = ParsePropagateOption(value, optarg != nullptr);
            if (!names.ok()) return Error(names.status().message());
            o.propagate = std::move(*names);
          }
          break;
        }
        if (c < 128) {
          // A letter of the allocation's table (-p, -t, ...).
          bool allocation_letter = false;
          for (const JobOption& j : table) {
            allocation_letter = allocation_letter ||
                                (j.short_name == c && (j.commands & CommandBit(Command::kSrun)));
          }
          if (allocation_letter) break;
        }
        std::string bad = optind - 1 < argc ? storage[optind - 1] : "";
        if (optopt != 0) return Error(fmt::format("invalid option -- '{}'", char(optopt)));
        return Error(fmt::format("unrecognized option '{}'", bad));
      }
    }
    if (!n.ok()) return n.status();
  }
  if ((tasks_given || !o.nodelist.empty()) && !nodes_given && o.num_nodes > 0) {
    // The inherited node count only caps the step: it takes as many as it
    // needs, or with -w the nodes named.
    o.num_nodes = 0;
  }
  if (o.pty) {
    if (io_given) return Error("--error/--input/--output are incompatible with --pty");
    // Only task 0 talks to srun: it has the terminal; the others' output is dropped.
    o.output = StepIoOption{StepIoOption::kOneTask, "", 0};
    o.error = o.output;
    o.input = StepIoOption{StepIoOption::kStream, "", 0};
  } else if (!error_given) {
    o.error = o.output;  // stderr follows stdout unless -e says otherwise.
  }
  if (!container_given) {
    // salloc's container options, exported to its allocation as pyxis'
    // spank variables (container_options.h): its steps run in it.
    Result<wire::ContainerSpec> inherited = ContainerSpecFromSpankEnvironment(env);
    if (!inherited.ok()) return Error(inherited.status().message());
    o.container = std::move(*inherited);
  }
  if (!o.container.bundle().empty() && o.container.bundle()[0] != '/') {
    std::error_code ec;
    o.container.set_bundle((std::filesystem::current_path(ec) / o.container.bundle()).string());
  }
  if (!o.container.bundle().empty() && !o.container.image().empty()) {
    return Error("--container and --container-image cannot be given together");
  }
  if (o.container.image().starts_with('.')) {
    // The node daemon has its own working directory: a relative image is srun's.
    std::error_code ec;
    o.container.set_image((std::filesystem::current_path(ec) / o.container.image()).string());
  }
  if (!o.container.save().empty() && o.container.image().empty()) {
    return Error("--container-save needs --container-image");
  }
  if (model::ParseTaskDistribution(o.distribution).value_or(model::TaskDistribution()).kind ==
      model::TaskDistribution::kArbitrary) {
    if (Status s = TakeHostfile(from_env("SLURM_HOSTFILE"), o); !s.ok()) return s;
  }
  for (int i = optind; i < argc; ++i) o.command.push_back(storage[i]);
  return o;
}

}  // namespace rota::cli
