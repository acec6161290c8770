#include "rest/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <map>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/methods.h"
#include "cli/format/sinfo_fields.h"
#include "common/gres_spec.h"
#include "common/strings.h"
#include "model/index_set.h"
#include "model/job_state.h"
#include "rest/rest_json.h"

namespace rota::rest {
namespace {

namespace ns = cli::format::node_state;
using wire::JobRecord;
using wire::NodeInfo;

constexpr uint64_t kBytesPerMb = uint64_t{1} << 20;  // Slurm's MB are MiB.
constexpr double kMicrosPerSecond = 1e6;

using Label = std::pair<std::string_view, std::string_view>;

// The OpenMetrics text format, written into one buffer: a family's metadata,
// then its samples.
class Exposition {
 public:
  explicit Exposition(std::string& out) : out_(out) {}

  // `type`: "gauge" or "counter". `unit`: empty, or the suffix `name` ends with.
  void Family(std::string_view name, std::string_view type, std::string_view unit,
              std::string_view help) {
    Append({"# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n"});
    if (!unit.empty()) Append({"# UNIT ", name, " ", unit, "\n"});
  }

  // `name` + `suffix` ("_total", "_created" or "") {labels} value.
  template <typename Value>
  void Sample(std::string_view name, std::string_view suffix, std::initializer_list<Label> labels,
              Value value) {
    out_ += name;
    out_ += suffix;
    if (labels.size() > 0) {
      char sep = '{';
      for (const auto& [label, text] : labels) {
        out_ += sep;
        sep = ',';
        out_ += label;
        out_ += "=\"";
        AppendEscaped(text);
        out_ += '"';
      }
      out_ += '}';
    }
    out_ += ' ';
    AppendValue(value);
    out_ += '\n';
  }

  // A family of one unlabelled gauge.
  template <typename Value>
  void Gauge(std::string_view name, std::string_view unit, std::string_view help, Value value) {
    Family(name, "gauge", unit, help);
    Sample(name, "", {}, value);
  }

  // A family of one unlabelled counter; `created` (Unix seconds) is when it
  // last started from zero, 0 when unknown.
  template <typename Value>
  void Counter(std::string_view name, std::string_view unit, std::string_view help, Value value,
               int64_t created) {
    Family(name, "counter", unit, help);
    Sample(name, "_total", {}, value);
    if (created > 0) Sample(name, "_created", {}, created);
  }

  void End() { out_ += "# EOF\n"; }

 private:
  void Append(std::initializer_list<std::string_view> parts) {
    for (std::string_view p : parts) out_ += p;
  }

  // OpenMetrics label values escape backslash, double quote and line feed.
  void AppendEscaped(std::string_view text) {
    for (char c : text) {
      switch (c) {
        case '\\':
          out_ += "\\\\";
          break;
        case '"':
          out_ += "\\\"";
          break;
        case '\n':
          out_ += "\\n";
          break;
        default:
          out_ += c;
      }
    }
  }

  template <typename Value>
  void AppendValue(Value value) {
    if constexpr (std::is_floating_point_v<Value>) {
      if (std::isnan(value)) {
        out_ += "NaN";
        return;
      }
      if (std::isinf(value)) {
        out_ += value > 0 ? "+Inf" : "-Inf";
        return;
      }
    }
    fmt::format_to(std::back_inserter(out_), "{}", value);
  }

  std::string& out_;
};

double Seconds(uint64_t micros) { return static_cast<double>(micros) / kMicrosPerSecond; }

// ---------------------------------------------------------------- nodes ----

// A resource of a set of nodes as sinfo's CPUS(A/I/O/T) splits it: what jobs
// hold, and the rest as idle, or as down on drained, failed or down nodes.
struct ResourceSplit {
  uint64_t allocated = 0;
  uint64_t idle = 0;
  uint64_t down = 0;

  void Add(uint64_t total, uint64_t used, bool unusable) {
    allocated += used;
    (unusable ? down : idle) += total > used ? total - used : 0;
  }
};

struct PartitionTotals {
  std::string_view name;
  ResourceSplit cpus;
  ResourceSplit memory_mb;
  std::map<std::string, ResourceSplit, std::less<>> gpus;  // By GPU type; "" untyped.
};

// One GPU type of one node.
struct NodeGpus {
  std::string type;
  uint64_t total = 0;
  uint64_t used = 0;
};

// Splits a GRES list on commas outside parentheses: a node's Gres may carry
// socket bindings, "gpu:a100:4(S:0,1),gpu:h100:2".
template <typename Fn>
void ForEachGresItem(std::string_view list, Fn&& fn) {
  if (list.empty() || list == "(null)") return;
  ForEachOutside(list, ',', '(', ')', [&](std::string_view item) {
    item = item.substr(0, item.find('('));
    if (!item.empty()) fn(item);
  });
}

// Adds the GPUs of a GRES list ("gpu:a100:4,gpu:2,nic:1") to `gpus`, as
// totals or as used. Items that do not parse are left out.
void AddGpus(std::string_view list, bool used, std::vector<NodeGpus>& gpus) {
  ForEachGresItem(list, [&](std::string_view item) {
    Result<GresSpec> spec = ParseGresSpec(item);
    if (!spec.ok() || spec->name != "gpu") return;
    NodeGpus* slot = nullptr;
    for (NodeGpus& g : gpus) {
      if (g.type == spec->type) slot = &g;
    }
    if (slot == nullptr) slot = &gpus.emplace_back(NodeGpus{std::move(spec->type), 0, 0});
    (used ? slot->used : slot->total) += spec->count;
  });
}

bool Unusable(uint32_t bits) {
  return (bits & (ns::kDrain | ns::kFail)) || (bits & ns::kBaseMask) == ns::kDown;
}

struct NodeTotals {
  std::map<uint32_t, uint64_t> by_state_bits;
  std::vector<PartitionTotals> partitions;  // Configured order, then others as met.
};

NodeTotals CountNodes(const wire::ListNodesResponse& nodes, const conf::ClusterConfig& config) {
  NodeTotals t;
  std::map<std::string_view, size_t> index;
  auto partition = [&](std::string_view name) -> PartitionTotals& {
    auto [it, added] = index.emplace(name, t.partitions.size());
    if (added) t.partitions.push_back(PartitionTotals{name, {}, {}, {}});
    return t.partitions[it->second];
  };
  for (const conf::PartitionConfig& p : config.partitions) partition(p.name);

  std::vector<NodeGpus> gpus;  // Reused from node to node.
  for (const NodeInfo& n : nodes.nodes()) {
    const uint32_t bits = cli::format::NodeStateBits(n);
    ++t.by_state_bits[bits];
    const bool unusable = Unusable(bits);
    gpus.clear();
    AddGpus(n.gres(), /*used=*/false, gpus);
    AddGpus(n.gres_used(), /*used=*/true, gpus);
    for (const std::string& name : n.partitions()) {
      PartitionTotals& p = partition(name);
      p.cpus.Add(n.cpus(), n.alloc_cpus(), unusable);
      p.memory_mb.Add(n.real_memory_mb(), n.alloc_mem_mb(), unusable);
      for (const NodeGpus& g : gpus) {
        auto it = p.gpus.find(g.type);
        if (it == p.gpus.end()) it = p.gpus.emplace(g.type, ResourceSplit{}).first;
        it->second.Add(g.total, g.used, unusable);
      }
    }
  }
  return t;
}

void WriteNodes(const NodeTotals& t, Exposition& w) {
  // Distinct bits can print alike ("drained" with or without MAINT): one
  // sample per text.
  std::map<std::string, uint64_t> by_state;
  for (const auto& [bits, count] : t.by_state_bits) {
    by_state[cli::format::NodeStateLongText(bits)] += count;
  }
  w.Family("rota_nodes", "gauge", "", "Nodes by state, as sinfo -o %T prints it.");
  for (const auto& [state, count] : by_state) w.Sample("rota_nodes", "", {{"state", state}}, count);

  // `type`: null for resources without one.
  auto split = [&w](std::string_view name, std::string_view partition, const std::string* type,
                    const ResourceSplit& s, uint64_t scale) {
    const std::pair<std::string_view, uint64_t> parts[] = {
        {"allocated", s.allocated}, {"idle", s.idle}, {"down", s.down}};
    for (const auto& [state, value] : parts) {
      if (type == nullptr) {
        w.Sample(name, "", {{"partition", partition}, {"state", state}}, value * scale);
      } else {
        w.Sample(name, "", {{"partition", partition}, {"type", *type}, {"state", state}},
                 value * scale);
      }
    }
  };
  w.Family("rota_partition_cpus", "gauge", "",
           "CPUs of a partition's nodes: allocated, idle, or down (of drained, failed or down "
           "nodes).");
  for (const PartitionTotals& p : t.partitions)
    split("rota_partition_cpus", p.name, nullptr, p.cpus, 1);
  w.Family("rota_partition_memory_bytes", "gauge", "bytes",
           "Memory of a partition's nodes: allocated, idle, or down.");
  for (const PartitionTotals& p : t.partitions) {
    split("rota_partition_memory_bytes", p.name, nullptr, p.memory_mb, kBytesPerMb);
  }
  w.Family("rota_partition_gpus", "gauge", "",
           "GPUs of a partition's nodes by GPU type: allocated, idle, or down.");
  for (const PartitionTotals& p : t.partitions) {
    for (const auto& [type, s] : p.gpus) {
      split("rota_partition_gpus", p.name, &type, s, 1);
    }
  }
}

// ----------------------------------------------------------------- jobs ----

// Jobs of one account or one user.
struct HolderTotals {
  uint64_t running_jobs = 0;
  uint64_t running_gpus = 0;
  uint64_t pending_jobs = 0;
};

constexpr size_t kStateSlots = wire::JobState_ARRAYSIZE + 1;  // The last: states unknown here.

// Hashed, not ordered: three lookups per job, and an ordered map's string
// compares were most of a scrape. Written out sorted.
template <typename Value>
using ByName = std::unordered_map<std::string_view, Value>;

// The entries of `map` in name order, for a deterministic exposition.
template <typename Value>
std::vector<std::pair<std::string_view, const Value*>> Sorted(const ByName<Value>& map) {
  std::vector<std::pair<std::string_view, const Value*>> out;
  out.reserve(map.size());
  for (const auto& [name, value] : map) out.emplace_back(name, &value);
  std::sort(out.begin(), out.end());
  return out;
}

struct JobTotals {
  std::array<uint64_t, kStateSlots> by_state{};
  ByName<uint64_t> pending_by_reason;
  ByName<HolderTotals> by_account;
  ByName<HolderTotals> by_user;
  uint64_t idle_jobs = 0;
  uint64_t idle_gpus = 0;
  double idle_util_pct_sum = 0;
  uint64_t idle_action_jobs = 0;
};

// The "gres/gpu=N" of a TRES string: the job's GPUs of every type.
uint64_t TresGpus(std::string_view tres) {
  constexpr std::string_view kKey = "gres/gpu=";
  for (size_t pos = tres.find(kKey); pos != std::string_view::npos;
       pos = tres.find(kKey, pos + 1)) {
    if (pos != 0 && tres[pos - 1] != ',') continue;
    const char* begin = tres.data() + pos + kKey.size();
    uint64_t value = 0;
    std::from_chars(begin, tres.data() + tres.size(), value);
    return value;
  }
  return 0;
}

uint64_t JobGpus(const JobRecord& job) {
  return job.alloc_gpus() != 0 ? job.alloc_gpus() : TresGpus(job.alloc_tres());
}

// How many jobs a record stands for: an array's meta record stands for its
// pending tasks.
uint64_t JobCount(const JobRecord& job) {
  if (!job.array_meta()) return 1;
  Result<model::IndexSet> tasks = model::IndexSet::Parse(job.array_pending());
  return tasks.ok() && !tasks->empty() ? tasks->size() : 1;
}

JobTotals CountJobs(const wire::ListJobsResponse& jobs) {
  JobTotals t;
  for (const JobRecord& job : jobs.jobs()) {
    const uint64_t count = JobCount(job);
    const int state = job.state();
    t.by_state[state >= 0 && state < wire::JobState_ARRAYSIZE ? static_cast<size_t>(state)
                                                              : kStateSlots - 1] += count;
    HolderTotals& account = t.by_account[job.spec().account()];
    HolderTotals& user = t.by_user[job.spec().user()];
    if (job.state() == wire::JOB_STATE_PENDING) {
      t.pending_by_reason[job.reason().empty() ? std::string_view("None") : job.reason()] += count;
      account.pending_jobs += count;
      user.pending_jobs += count;
    } else if (job.state() == wire::JOB_STATE_RUNNING) {
      const uint64_t gpus = JobGpus(job);
      account.running_jobs += count;
      account.running_gpus += gpus;
      user.running_jobs += count;
      user.running_gpus += gpus;
      if (job.gpu_idle_since() != 0) {
        ++t.idle_jobs;
        t.idle_gpus += gpus;
        t.idle_util_pct_sum += job.gpu_idle_util();
        if (job.gpu_idle_action_at() != 0) ++t.idle_action_jobs;
      }
    }
  }
  return t;
}

void WriteHolders(const ByName<HolderTotals>& by_name, std::string_view kind,
                  std::string_view label, Exposition& w) {
  const auto holders = Sorted(by_name);
  const std::string running_jobs = fmt::format("rota_{}_running_jobs", kind);
  const std::string running_gpus = fmt::format("rota_{}_running_gpus", kind);
  const std::string pending_jobs = fmt::format("rota_{}_pending_jobs", kind);
  w.Family(running_jobs, "gauge", "", fmt::format("Running jobs by {}.", label));
  for (const auto& [name, h] : holders)
    w.Sample(running_jobs, "", {{label, name}}, h->running_jobs);
  w.Family(running_gpus, "gauge", "", fmt::format("GPUs allocated to running jobs by {}.", label));
  for (const auto& [name, h] : holders)
    w.Sample(running_gpus, "", {{label, name}}, h->running_gpus);
  w.Family(pending_jobs, "gauge", "", fmt::format("Pending jobs by {}.", label));
  for (const auto& [name, h] : holders)
    w.Sample(pending_jobs, "", {{label, name}}, h->pending_jobs);
}

void WriteJobs(const JobTotals& t, Exposition& w) {
  w.Family("rota_jobs", "gauge", "", "Unfinished jobs by state (array tasks counted one by one).");
  for (size_t s = 0; s < kStateSlots; ++s) {
    const bool known = s + 1 < kStateSlots;
    const auto state = static_cast<wire::JobState>(s);
    // Unfinished states always, so that their series never vanish.
    if (t.by_state[s] == 0 && (!known || model::IsFinished(state))) continue;
    const std::string_view name = known ? model::JobStateName(state) : "UNKNOWN";
    w.Sample("rota_jobs", "", {{"state", name}}, t.by_state[s]);
  }
  w.Family("rota_pending_jobs", "gauge", "", "Pending jobs by pending reason.");
  for (const auto& [reason, count] : Sorted(t.pending_by_reason)) {
    w.Sample("rota_pending_jobs", "", {{"reason", reason}}, *count);
  }
  WriteHolders(t.by_account, "account", "account", w);
  WriteHolders(t.by_user, "user", "user", w);

  w.Gauge("rota_gpu_idle_jobs", "", "Running jobs whose GPUs are flagged idle by GpuIdlePolicy.",
          t.idle_jobs);
  w.Gauge("rota_gpu_idle_gpus", "", "GPUs allocated to running jobs flagged idle.", t.idle_gpus);
  w.Gauge("rota_gpu_idle_action_jobs", "",
          "Jobs flagged idle whose cancel or requeue by GpuIdlePolicy is scheduled.",
          t.idle_action_jobs);
  if (t.idle_jobs > 0) {
    w.Gauge("rota_gpu_idle_utilization_ratio", "ratio",
            "Mean over the jobs flagged idle of their GPUs' mean utilisation since flagged.",
            t.idle_util_pct_sum / 100.0 / static_cast<double>(t.idle_jobs));
  }
}

// ------------------------------------------------------------ scheduler ----

struct RpcTotals {
  uint64_t count = 0;
  uint64_t time_us = 0;
};

// Merged by name, so that no label set repeats; a nameless entry goes by its id.
std::map<std::string, RpcTotals> MergeRpcs(
    const google::protobuf::RepeatedPtrField<wire::RpcCount>& rpcs) {
  std::map<std::string, RpcTotals> out;
  for (const wire::RpcCount& c : rpcs) {
    RpcTotals& r = out[c.name().empty() ? std::to_string(c.id()) : c.name()];
    r.count += c.count();
    r.time_us += c.total_time_us();
  }
  return out;
}

void WriteRpcs(const google::protobuf::RepeatedPtrField<wire::RpcCount>& rpcs,
               std::string_view kind, std::string_view label, std::string_view what,
               int64_t created, Exposition& w) {
  const std::map<std::string, RpcTotals> merged = MergeRpcs(rpcs);
  const std::string calls = fmt::format("rota_rpc_{}_calls", kind);
  const std::string time = fmt::format("rota_rpc_{}_time_seconds", kind);
  w.Family(calls, "counter", "", fmt::format("Controller RPCs by {}.", what));
  for (const auto& [name, r] : merged) {
    w.Sample(calls, "_total", {{label, name}}, r.count);
    if (created > 0) w.Sample(calls, "_created", {{label, name}}, created);
  }
  w.Family(time, "counter", "seconds",
           fmt::format("Time the controller spent serving RPCs by {}.", what));
  for (const auto& [name, r] : merged) {
    w.Sample(time, "_total", {{label, name}}, Seconds(r.time_us));
    if (created > 0) w.Sample(time, "_created", {{label, name}}, created);
  }
}

void WriteDiag(const wire::DiagResponse& d, Exposition& w) {
  // sdiag --reset zeroes these; data_since is when.
  const int64_t since = d.data_since();
  w.Gauge("rota_controller_server_threads", "", "Controller threads serving RPCs.",
          d.server_thread_count());
  w.Gauge("rota_controller_agent_queue_size", "", "Messages queued to node daemons.",
          d.agent_queue_size());
  w.Gauge("rota_controller_dbd_agent_queue_size", "", "Messages queued to rotadbd.",
          d.dbd_agent_queue_size());
  w.Gauge("rota_controller_refusing_changes", "",
          "1 while the controller refuses changes because it cannot save its state.",
          d.refusing_changes().empty() ? 0 : 1);
  w.Counter("rota_controller_jobs_submitted", "", "Jobs submitted.", d.jobs_submitted(), since);
  w.Counter("rota_controller_jobs_started", "", "Jobs started.", d.jobs_started(), since);
  w.Counter("rota_controller_jobs_completed", "", "Jobs completed.", d.jobs_completed(), since);
  w.Counter("rota_controller_jobs_canceled", "", "Jobs cancelled.", d.jobs_canceled(), since);
  w.Counter("rota_controller_jobs_failed", "", "Jobs failed.", d.jobs_failed(), since);

  w.Gauge("rota_scheduler_main_cycle_last_seconds", "seconds", "Last main scheduling cycle.",
          Seconds(d.schedule_cycle_last()));
  w.Gauge("rota_scheduler_main_cycle_max_seconds", "seconds", "Longest main scheduling cycle.",
          Seconds(d.schedule_cycle_max()));
  w.Gauge("rota_scheduler_main_cycle_mean_seconds", "seconds", "Mean main scheduling cycle.",
          Seconds(d.schedule_cycle_mean()));
  w.Counter("rota_scheduler_main_cycles", "", "Main scheduling cycles.", d.schedule_cycle_counter(),
            since);
  w.Gauge("rota_scheduler_main_mean_depth", "", "Mean jobs tried per main scheduling cycle.",
          d.schedule_cycle_mean_depth());
  w.Gauge("rota_scheduler_main_queue_length", "", "Pending jobs in the last main cycle's queue.",
          d.schedule_queue_len());

  w.Gauge("rota_scheduler_backfill_enabled", "", "1 when SchedulerType is sched/backfill.",
          d.backfill_enabled() ? 1 : 0);
  w.Gauge("rota_scheduler_backfill_cycle_last_seconds", "seconds", "Last backfill cycle.",
          Seconds(d.bf_cycle_last()));
  w.Gauge("rota_scheduler_backfill_cycle_max_seconds", "seconds", "Longest backfill cycle.",
          Seconds(d.bf_cycle_max()));
  w.Gauge("rota_scheduler_backfill_cycle_mean_seconds", "seconds", "Mean backfill cycle.",
          Seconds(d.bf_cycle_mean()));
  w.Counter("rota_scheduler_backfill_cycles", "", "Backfill cycles.", d.bf_cycle_counter(), since);
  if (d.bf_when_last_cycle() > 0) {
    w.Gauge("rota_scheduler_backfill_last_cycle_timestamp_seconds", "seconds",
            "When the last backfill cycle ran (Unix time).", d.bf_when_last_cycle());
  }
  // Not zeroed by sdiag --reset.
  w.Counter("rota_scheduler_backfilled_jobs", "", "Jobs started by backfill since the start.",
            d.bf_backfilled_jobs(), 0);
  w.Gauge("rota_scheduler_backfill_last_depth", "", "Jobs considered in the last backfill cycle.",
          d.bf_last_depth());
  w.Gauge("rota_scheduler_backfill_last_depth_try", "",
          "Jobs tried for a start in the last backfill cycle.", d.bf_last_depth_try());
  w.Gauge("rota_scheduler_backfill_mean_depth", "", "Mean jobs considered per backfill cycle.",
          d.bf_depth_mean());
  w.Gauge("rota_scheduler_backfill_mean_depth_try", "", "Mean jobs tried per backfill cycle.",
          d.bf_depth_mean_try());
  w.Gauge("rota_scheduler_backfill_queue_length", "",
          "Pending jobs in the last backfill cycle's queue.", d.bf_queue_len());
  w.Gauge("rota_scheduler_backfill_queue_length_mean", "",
          "Mean pending jobs in a backfill cycle's queue.", d.bf_queue_len_mean());
  w.Gauge("rota_scheduler_backfill_table_size", "",
          "Time slots in the last backfill cycle's availability table.", d.bf_table_size());
  w.Gauge("rota_scheduler_backfill_table_size_mean", "",
          "Mean time slots in a backfill cycle's availability table.", d.bf_table_size_mean());

  WriteRpcs(d.rpc_types(), "type", "rpc", "message type", since, w);
  WriteRpcs(d.rpc_users(), "user", "user", "calling user", since, w);
}

}  // namespace

model::JobFieldSet MetricsJobFields() {
  model::JobFieldSet fields;
  fields.AddRecord({JobRecord::kSpecFieldNumber, JobRecord::kArrayPendingFieldNumber,
                    JobRecord::kArrayMetaFieldNumber, JobRecord::kStateFieldNumber,
                    JobRecord::kReasonFieldNumber, JobRecord::kAllocGpusFieldNumber,
                    JobRecord::kAllocTresFieldNumber, JobRecord::kGpuIdleSinceFieldNumber,
                    JobRecord::kGpuIdleUtilFieldNumber, JobRecord::kGpuIdleActionAtFieldNumber});
  fields.AddSpec({wire::JobSpec::kAccountFieldNumber, wire::JobSpec::kUserFieldNumber});
  return fields;
}

std::string RenderOpenMetrics(const MetricsInputs& in) {
  const NodeTotals nodes = CountNodes(in.nodes, in.config);
  const JobTotals jobs = CountJobs(in.jobs);
  std::string out;
  out.reserve(16384 + 160 * (jobs.by_account.size() + jobs.by_user.size()) +
              400 * nodes.partitions.size());
  Exposition w(out);
  WriteNodes(nodes, w);
  WriteJobs(jobs, w);
  WriteDiag(in.diag, w);
  w.End();
  return out;
}

void AddMetricsRoute(Router& router) {
  router.Add("GET", "/metrics", [](const HttpRequest&, const PathParams&, Backend& backend) {
    wire::ListJobsRequest jobs_request;  // include_finished stays false
    MetricsJobFields().ToRequest(jobs_request);
    Result<wire::ListJobsResponse> jobs =
        ParseAnswer<wire::ListJobsResponse>(backend.CallController(api::kListJobs, jobs_request));
    if (!jobs.ok()) return StatusAnswer(ApiFlavor::kRota, jobs.status());
    Result<wire::ListNodesResponse> nodes = ParseAnswer<wire::ListNodesResponse>(
        backend.CallController(api::kListNodes, wire::Empty()));
    if (!nodes.ok()) return StatusAnswer(ApiFlavor::kRota, nodes.status());
    Result<wire::DiagResponse> diag =
        ParseAnswer<wire::DiagResponse>(backend.CallController(api::kDiag, wire::DiagRequest()));
    if (!diag.ok()) return StatusAnswer(ApiFlavor::kRota, diag.status());

    HttpResponse response;
    response.content_type = std::string(kOpenMetricsContentType);
    response.body = RenderOpenMetrics({*jobs, *nodes, *diag, backend.config()});
    return response;
  });
}

}  // namespace rota::rest
