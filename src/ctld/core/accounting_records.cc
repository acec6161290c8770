#include "ctld/core/accounting_records.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/hostlist.h"
#include "common/strings.h"
#include "common/tres.h"
#include "ctld/core/job_defaults.h"
#include "model/index_set.h"
#include "model/job_state.h"
#include "model/task_distribution.h"

namespace rota::ctld {
namespace {

bool Listed(const conf::ClusterConfig& config, const std::string& key) {
  const auto& tracked = config.settings.accounting_storage_tres;
  return std::any_of(tracked.begin(), tracked.end(),
                     [&](const std::string& t) { return ToLower(t) == ToLower(key); });
}

// "gpu:a100:2" or "2" or "a100:2" -> 2; 0 when it does not parse.
uint64_t TrailingCount(const std::string& text) {
  if (text.empty()) return 0;
  size_t colon = text.rfind(':');
  std::string tail = colon == std::string::npos ? text : text.substr(colon + 1);
  std::optional<uint64_t> n = ParseUint(tail);
  if (n) return *n;
  return colon == std::string::npos ? 0 : 1;  // "gpu:a100": one
}

uint64_t RequestedGpus(const wire::JobRecord& job, uint32_t nodes, uint32_t tasks) {
  const wire::JobSpec& s = job.spec();
  if (!s.gpus().empty()) return TrailingCount(s.gpus());
  if (!s.gpus_per_node().empty()) return TrailingCount(s.gpus_per_node()) * nodes;
  if (!s.gpus_per_task().empty()) return TrailingCount(s.gpus_per_task()) * tasks;
  uint64_t total = 0;
  for (std::string_view piece : Split(s.gres(), ',')) {
    const std::string item(piece);
    if (item.rfind("gpu", 0) == 0) total += (item == "gpu" ? 1 : TrailingCount(item)) * nodes;
  }
  return total;
}

uint64_t RequestedMemMb(const conf::ClusterConfig& config, const wire::JobRecord& job,
                        uint32_t nodes, uint32_t cpus, uint64_t gpus) {
  const wire::JobSpec& s = job.spec();
  if (s.mem_per_node_mb() > 0) return s.mem_per_node_mb() * nodes;
  if (s.mem_per_cpu_mb() > 0) return s.mem_per_cpu_mb() * cpus;
  if (s.mem_per_gpu_mb() > 0) return s.mem_per_gpu_mb() * gpus;
  std::optional<MemoryMb> per_cpu = config.settings.def_mem_per_cpu;
  if (const conf::PartitionConfig* p = config.FindPartition(s.partition())) {
    // DefMemPerGPU, as the selection applies it (job_defaults.h).
    if (MemoryMb per_gpu = GpuDefaultsFor(s, *p, config).mem_per_gpu; per_gpu > 0 && gpus > 0) {
      return per_gpu * gpus;
    }
    if (p->def_mem_per_cpu) per_cpu = p->def_mem_per_cpu;
  }
  return per_cpu ? *per_cpu * cpus : 0;
}

}  // namespace

bool ContainsExternStep(const conf::ClusterConfig& config) {
  const auto& flags = config.settings.prolog_flags;
  return std::find(flags.begin(), flags.end(), "Contain") != flags.end();
}

bool AccountingEnabled(const conf::ClusterConfig& config) {
  return config.settings.accounting_storage_type == "accounting_storage/slurmdbd";
}

std::string TrackedTres(const conf::ClusterConfig& config, const std::string& tres) {
  Result<TresCounts> counts = TresCounts::Parse(tres);
  if (!counts.ok()) return tres;
  TresCounts kept;
  for (const auto& [key, value] : counts->counts()) {
    if (key.find('/') == std::string::npos || Listed(config, key)) kept.Set(key, value);
  }
  return kept.ToString();
}

std::string RequestedTres(const conf::ClusterConfig& config, const wire::JobRecord& job) {
  const wire::JobSpec& s = job.spec();
  uint32_t nodes = std::max<uint32_t>({job.req_nodes(), s.min_nodes(), 1});
  uint32_t tasks = std::max<uint32_t>(s.num_tasks(), 1);
  uint32_t cpus = job.alloc_cpus();
  if (cpus == 0) cpus = tasks * std::max<uint32_t>(s.cpus_per_task(), 1);
  uint64_t gpus = RequestedGpus(job, nodes, tasks);
  std::string out =
      fmt::format("cpu={},mem={},node={},billing={}", cpus,
                  FormatMemoryMb(RequestedMemMb(config, job, nodes, cpus, gpus)), nodes, cpus);
  if (gpus > 0) out += fmt::format(",gres/gpu={}", gpus);
  return TrackedTres(config, out);
}

TresCounts RequestedTresCounts(const conf::ClusterConfig& config, const wire::JobRecord& job) {
  const wire::JobSpec& s = job.spec();
  uint32_t nodes = std::max<uint32_t>({job.req_nodes(), s.min_nodes(), 1});
  uint32_t tasks = std::max<uint32_t>(s.num_tasks(), 1);
  uint32_t cpus = job.alloc_cpus();
  if (cpus == 0) cpus = tasks * std::max<uint32_t>(s.cpus_per_task(), 1);
  uint64_t gpus = RequestedGpus(job, nodes, tasks);
  TresCounts out;
  out.Set("cpu", cpus);
  out.Set("mem", RequestedMemMb(config, job, nodes, cpus, gpus));
  out.Set("node", nodes);
  out.Set("billing", cpus);
  if (gpus > 0 && Listed(config, "gres/gpu")) out.Set("gres/gpu", gpus);
  return out;
}

TresCounts TrackedTresCounts(const conf::ClusterConfig& config, const std::string& tres) {
  Result<TresCounts> counts = TresCounts::Parse(tres);
  if (!counts.ok()) return {};
  TresCounts kept;
  for (const auto& [key, value] : counts->counts()) {
    if (key.find('/') == std::string::npos || Listed(config, key)) kept.Set(key, value);
  }
  return kept;
}

wire::AccountingJob MakeAccountingJob(const conf::ClusterConfig& config, const wire::JobRecord& job,
                                      wire::JobState state) {
  wire::AccountingJob a;
  const wire::JobSpec& s = job.spec();
  a.set_cluster(config.settings.cluster_name);
  a.set_job_id(job.job_id());
  a.set_restarts(job.restart_count());
  a.set_array_job_id(job.array_job_id());
  a.set_array_task_id(job.array_task_id());
  a.set_name(s.name());
  a.set_user(s.user());
  a.set_uid(s.uid());
  a.set_gid(s.gid());
  a.set_account(s.account());
  a.set_partition(s.partition());
  a.set_qos(s.qos());
  a.set_state(state);
  a.set_ended(model::IsFinished(state));
  a.set_exit_code(job.exit_code());
  a.set_submit_time(job.submit_time());
  a.set_eligible_time(job.eligible_time());
  a.set_time_limit_s(job.time_limit_s());
  a.set_reason(job.reason().empty() ? "None" : job.reason());
  a.set_work_dir(s.work_dir());
  a.set_wckey(s.wckey());
  // Slurm keeps the comment only when asked to (AccountingStoreFlags=job_comment).
  if (config.settings.StoresInAccounting("job_comment")) a.set_comment(s.comment());
  a.set_constraints(s.constraint());
  a.set_reservation(s.reservation());
  a.set_priority(job.priority());
  a.set_req_nodes(std::max<uint32_t>({job.req_nodes(), s.min_nodes(), 1}));
  a.set_submit_line(s.submit_line());
  a.set_container(!s.container().bundle().empty() ? s.container().bundle() : s.container().image());
  a.set_cancelled(job.cancelled());
  a.set_cancelled_by_uid(job.cancelled_by_uid());
  const bool allocated = !job.nodes().empty();
  if (allocated) {
    a.set_start_time(job.start_time());
    a.set_nodelist(CompressHostlist({job.nodes().begin(), job.nodes().end()}));
    a.set_alloc_cpus(job.alloc_cpus());
    a.set_alloc_nodes(static_cast<uint32_t>(job.nodes_size()));
    a.set_alloc_tres(TrackedTres(config, job.alloc_tres()));
    a.set_batch(!s.interactive());
    if (a.batch() && job.allocs_size() > 0) {
      // The batch script runs on the first node, with that node's share.
      const wire::NodeAlloc& first = job.allocs(0);
      TresCounts share;
      share.Set("cpu", first.cpus());
      if (first.mem_mb() > 0) share.Set("mem", first.mem_mb());
      share.Set("node", 1);
      const uint64_t gpus =
          model::IndexSet::Parse(first.gpu_ids()).value_or(model::IndexSet{}).size();
      if (gpus > 0 && Listed(config, "gres/gpu")) share.Set("gres/gpu", gpus);
      a.set_batch_cpus(first.cpus());
      a.set_batch_tres(share.ToString());
    }
    if (a.batch() && job.has_batch_usage()) *a.mutable_batch_usage() = job.batch_usage();
    a.set_extern_step(ContainsExternStep(config));
  } else {
    // Never ran: Slurm shows the end as its start, and no allocation.
    a.set_start_time(a.ended() ? job.start_time() : 0);
  }
  a.set_end_time(a.ended() ? job.end_time() : 0);
  // A suspension still going on when the record is written counts up to
  // the end (or, on a start record, is none yet).
  int64_t suspended = job.suspended_s();
  if (a.ended() && job.suspend_time() > 0 && job.end_time() > job.suspend_time()) {
    suspended += job.end_time() - job.suspend_time();
  }
  a.set_suspended_s(suspended);
  a.set_req_tres(RequestedTres(config, job));
  Result<TresCounts> req = TresCounts::Parse(a.req_tres());
  if (req.ok()) a.set_req_mem_mb(req->Get("mem"));
  return a;
}

wire::AccountingStep MakeAccountingStep(const conf::ClusterConfig& config,
                                        const wire::JobStepRecord& step) {
  wire::AccountingStep a;
  a.set_step_id(step.step_id());
  a.set_name(step.name());
  a.set_state(step.state());
  a.set_exit_code(step.exit_code());
  a.set_start_time(step.start_time());
  a.set_end_time(step.end_time());
  a.set_nodelist(CompressHostlist({step.nodes().begin(), step.nodes().end()}));
  a.set_ntasks(step.num_tasks());
  // The CPUs the step held where the record says (an -O step holds fewer
  // than its tasks times -c), else its tasks times -c.
  uint64_t cpus = uint64_t{step.num_tasks()} * std::max<uint32_t>(1, step.cpus_per_task());
  if (step.cpu_ids_size() == step.nodes_size() && step.nodes_size() > 0) {
    uint64_t held = 0;
    for (const std::string& ids : step.cpu_ids()) {
      held += model::IndexSet::Parse(ids).value_or(model::IndexSet{}).size();
    }
    if (held > 0) cpus = std::min(cpus, held);
  }
  a.set_alloc_cpus(static_cast<uint32_t>(cpus));
  a.set_alloc_nodes(static_cast<uint32_t>(step.nodes_size()));
  TresCounts tres;
  tres.Set("cpu", a.alloc_cpus());
  tres.Set("node", a.alloc_nodes());
  const uint64_t gpus = uint64_t{step.gpus_per_task()} * step.num_tasks();
  if (gpus > 0 && Listed(config, "gres/gpu")) tres.Set("gres/gpu", gpus);
  a.set_alloc_tres(tres.ToString());
  if (step.has_usage()) *a.mutable_usage() = step.usage();
  a.set_layout(std::string(model::LayoutName(
      model::ParseTaskDistribution(step.distribution()).value_or(model::TaskDistribution()))));
  return a;
}

void AccountJobChange(const conf::ClusterConfig& config, const wire::JobRecord& job,
                      Effects& effects) {
  if (!AccountingEnabled(config) || job.array_meta()) return;
  const wire::JobState state = job.state();
  if (state == wire::JOB_STATE_RUNNING || model::IsFinished(state)) {
    effects.accounting.push_back(MakeAccountingJob(config, job, state));
  }
}

bool CarriesJobTexts(const conf::ClusterConfig& config, const wire::AccountingJob& record) {
  return record.batch() && record.state() == wire::JOB_STATE_RUNNING && !record.ended() &&
         (config.settings.StoresInAccounting("job_script") ||
          config.settings.StoresInAccounting("job_env"));
}

void AttachJobTexts(const conf::ClusterConfig& config, const wire::JobPayload& payload,
                    wire::AccountingJob& record) {
  // A record travels to rotadbd in one message (64 MiB at most): a script or
  // environment bigger than this (MaxScriptSize raised far past Slurm's 4 MB
  // default) is not kept, rather than holding up every record behind it.
  constexpr size_t kMaxTextBytes = 24u << 20;
  if (config.settings.StoresInAccounting("job_script") &&
      payload.script().size() <= kMaxTextBytes) {
    record.set_script(payload.script());
  }
  if (config.settings.StoresInAccounting("job_env")) {
    std::string lines;
    for (const std::string& variable : payload.environment()) {
      lines += variable;
      lines += '\n';
    }
    if (lines.size() <= kMaxTextBytes) record.set_environment(std::move(lines));
  }
}

void AccountAttemptEnd(const conf::ClusterConfig& config, const wire::JobRecord& job,
                       wire::JobState state, int64_t now, Effects& effects) {
  if (!AccountingEnabled(config) || job.array_meta() || job.nodes().empty()) return;
  wire::AccountingJob a = MakeAccountingJob(config, job, state);
  a.set_ended(true);
  // A run that was COMPLETING (requeued while running) ended when it began to.
  const bool completing = job.state() == wire::JOB_STATE_COMPLETING && job.end_time() > 0;
  a.set_end_time(completing ? job.end_time() : now);
  effects.accounting.push_back(std::move(a));
}

}  // namespace rota::ctld
