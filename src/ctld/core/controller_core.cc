#include "ctld/core/controller_core.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/strings.h"
#include "ctld/core/accounting_records.h"
#include "ctld/core/allocation_record.h"
#include "ctld/core/job_defaults.h"
#include "ctld/core/job_shape.h"
#include "ctld/core/license_pool.h"
#include "ctld/core/multifactor.h"
#include "ctld/core/partition_cpu_cap.h"
#include "ctld/core/submit_checks.h"
#include "ctld/core/usage_ledger_state.h"
#include "model/dependency.h"
#include "model/index_set.h"
#include "model/job_payload.h"
#include "model/job_state.h"
#include "model/pending_reason.h"
#include "model/wire_encoding.h"
#include "sched/earliest_start.h"
#include "sched/select.h"

namespace rota::ctld {
namespace {}  // namespace

ControllerCore::ControllerCore(std::shared_ptr<const conf::ClusterConfig> config)
    : config_(std::move(config)), nodes_(*config_), jobs_(config_->settings.first_job_id) {}

// ---------------------------------------------------------------- recovery

void ControllerCore::Restore(const wire::StateSnapshot* snapshot,
                             const std::vector<wire::StateRecord>& records) {
  jobs_.Clear();
  nodes_ = NodeTable(*config_);
  if (snapshot != nullptr) {
    jobs_.RaiseNextId(snapshot->next_job_id());
    for (const wire::JobPayload& p : snapshot->payloads()) jobs_.StorePayload(p);
    for (const wire::JobRecord& j : snapshot->jobs()) jobs_.Insert(j);
    for (const wire::NodeRecord& n : snapshot->nodes()) nodes_.ApplyRecord(n);
    if (snapshot->has_policy()) accounting_.Restore(snapshot->policy());
    for (const wire::JobStepsState& steps : snapshot->job_steps())
      control_.restored_steps().Apply(steps);
    reservations_.Restore(snapshot->reservations());
    if (snapshot->has_fairshare_usage()) priorities_.RestoreUsage(snapshot->fairshare_usage());
  }
  for (const wire::StateRecord& r : records) {
    switch (r.change_case()) {
      case wire::StateRecord::kJobUpsert:
        jobs_.Insert(r.job_upsert());
        break;
      case wire::StateRecord::kJobPurge:
        jobs_.Erase(r.job_purge());
        break;
      case wire::StateRecord::kJobPayload:
        jobs_.StorePayload(r.job_payload());
        break;
      case wire::StateRecord::kNextJobId:
        jobs_.RaiseNextId(r.next_job_id());
        break;
      case wire::StateRecord::kNodeUpsert:
        nodes_.ApplyRecord(r.node_upsert());
        break;
      case wire::StateRecord::kPolicy:
        accounting_.Restore(r.policy());
        break;
      case wire::StateRecord::kJobSteps:
        control_.restored_steps().Apply(r.job_steps());
        break;
      case wire::StateRecord::kReservation:
        reservations_.Apply(r.reservation());
        break;
      case wire::StateRecord::kFairshareUsage:
        priorities_.RestoreUsage(r.fairshare_usage());
        break;
      case wire::StateRecord::CHANGE_NOT_SET:
        break;
    }
  }
  PruneSteps();
  LearnFromEndedJobs();
  priorities_.ApplyUsageResetNow();
  node_events_.Restore(*config_, nodes_);
  control_.ForgetWake();
  reservations_.Recovered();
  for (const auto& [id, job] : jobs_) {
    if (job->state() == wire::JOB_STATE_COMPLETING) {
      // Still waiting for its node's cleanup report: the allocation stays taken.
      nodes_.Allocate(*job);
      nodes_.MarkCompleting(*job, +1);
    } else if (job->state() == wire::JOB_STATE_RUNNING ||
               job->state() == wire::JOB_STATE_SUSPENDED) {
      if (job->allocs_size() != job->nodes_size()) {
        // Recorded before allocations were exact: placed again from its counts.
        std::vector<wire::NodeAlloc> allocs = nodes_.LegacyAllocs(*job);
        Mutable(id).mutable_allocs()->Assign(allocs.begin(), allocs.end());
      }
      nodes_.Allocate(*jobs_.at(id));
      if (job->time_limit_s() >= 0) control_.NoteWake(job->end_time());
    } else if (job->state() == wire::JOB_STATE_PENDING) {
      control_.NoteWake(job->spec().begin_time());
    } else if (model::IsFinished(job->state())) {
      control_.NoteWake(job->end_time() + config_->settings.min_job_age);
    }
  }
  jobs_.Touch();
}

wire::StateSnapshot ControllerCore::Snapshot() const {
  wire::StateSnapshot s;
  s.set_next_job_id(jobs_.next_id());
  for (const auto& [id, job] : jobs_) *s.add_jobs() = *job;
  for (const auto& [id, packed] : jobs_.payloads()) {
    wire::JobPayload* p = s.add_payloads();
    p->set_job_id(id);
    p->set_packed(*packed);
  }
  for (const NodeRuntime& n : nodes_.nodes()) {
    if (n.drain || n.admin_down || !n.reason.empty()) *s.add_nodes() = nodes_.ToRecord(n);
  }
  if (policy() != nullptr) *s.mutable_policy() = policy()->state();
  for (wire::JobStepsState& steps : control_.steps().States())
    *s.add_job_steps() = std::move(steps);
  if (!reservations().empty()) *s.mutable_reservations() = reservations().State();
  if (usage_ledger().updated() != 0) *s.mutable_fairshare_usage() = LedgerToState(usage_ledger());
  return s;
}

std::string ControllerCore::SerializeSnapshot() const { return TakeSnapshotView().Serialize(); }

ControllerCore::SnapshotView ControllerCore::TakeSnapshotView() const {
  SnapshotView v;
  v.next_job_id = jobs_.next_id();
  v.jobs.reserve(jobs_.size());
  for (const auto& [id, job] : jobs_) v.jobs.push_back(job);
  for (const NodeRuntime& n : nodes_.nodes()) {
    if (n.drain || n.admin_down || !n.reason.empty()) v.nodes.push_back(nodes_.ToRecord(n));
  }
  v.payloads.assign(jobs_.payloads().begin(), jobs_.payloads().end());
  v.policy = accounting_.shared_table();
  v.steps = control_.steps().States();
  if (!reservations().empty()) v.reservations = reservations().State();
  if (usage_ledger().updated() != 0) {
    v.usage = std::make_shared<const wire::UsageLedgerState>(LedgerToState(usage_ledger()));
  }
  return v;
}

std::string ControllerCore::SnapshotView::Serialize() const {
  std::string out;
  model::AppendVarintField(out, wire::StateSnapshot::kNextJobIdFieldNumber, next_job_id);
  for (const auto& job : jobs) {
    model::AppendMessageField(out, wire::StateSnapshot::kJobsFieldNumber, *job);
  }
  for (const wire::NodeRecord& n : nodes) {
    model::AppendMessageField(out, wire::StateSnapshot::kNodesFieldNumber, n);
  }
  wire::JobPayload payload;
  for (const auto& [id, packed] : payloads) {
    payload.set_job_id(id);
    payload.set_packed(*packed);
    model::AppendMessageField(out, wire::StateSnapshot::kPayloadsFieldNumber, payload);
  }
  if (policy)
    model::AppendMessageField(out, wire::StateSnapshot::kPolicyFieldNumber, policy->state());
  for (const wire::JobStepsState& s : steps) {
    model::AppendMessageField(out, wire::StateSnapshot::kJobStepsFieldNumber, s);
  }
  if (reservations) {
    model::AppendMessageField(out, wire::StateSnapshot::kReservationsFieldNumber, *reservations);
  }
  if (usage)
    model::AppendMessageField(out, wire::StateSnapshot::kFairshareUsageFieldNumber, *usage);
  return out;
}

void ControllerCore::LearnFromEndedJobs(const wire::QueryJobsResponse* history) {
  std::vector<RuntimeForecasts::EndedRun> runs;
  for (const auto& [id, job] : jobs_) {
    if (auto run = RuntimeForecasts::TellingRun(job->spec().uid(), job->start_time(),
                                                job->end_time(), job->state())) {
      runs.push_back(*run);
    }
  }
  if (history != nullptr) {
    for (const wire::AccountingJob& a : history->jobs()) {
      // A run the table still holds was counted above.
      if (!a.ended() || jobs_.Find(a.job_id()) != nullptr) continue;
      if (auto run =
              RuntimeForecasts::TellingRun(a.uid(), a.start_time(), a.end_time(), a.state())) {
        runs.push_back(*run);
      }
    }
  }
  forecasts_.Relearn(std::move(runs));
}

void ControllerCore::Reconfigure(std::shared_ptr<const conf::ClusterConfig> config) {
  NodeTable fresh(*config);
  for (NodeRuntime& n : fresh.nodes()) {
    if (const NodeRuntime* old = nodes_.Find(n.config->name)) {
      const conf::NodeConfig* keep = n.config;
      n = *old;
      n.config = keep;
      n.alloc_cpus = 0;
      n.alloc_mem_mb = 0;
      n.alloc_gpus.clear();
      n.running_jobs = 0;
      n.gpu_share_jobs = 0;
      n.completing_jobs = 0;
    }
  }
  config_ = std::move(config);
  scheduling_policy_ = sched::PolicyOf(*config_);
  accounting_.Reconfigure(config_);
  nodes_ = std::move(fresh);
  jobs_.ForgetShapes();  // Made for the old partitions and node model
  priorities_.ApplyUsageResetNow();
  reservations_.NodesChanged();
  for (const auto& [id, job] : jobs_) {
    if (job->state() == wire::JOB_STATE_RUNNING || job->state() == wire::JOB_STATE_SUSPENDED ||
        job->state() == wire::JOB_STATE_COMPLETING) {
      nodes_.Allocate(*job);
    }
    if (job->state() == wire::JOB_STATE_COMPLETING) nodes_.MarkCompleting(*job, +1);
  }
  jobs_.Touch();
}

// ---------------------------------------------------------------- helpers

// ---------------------------------------------------------------- commands

void ControllerCore::Tick(int64_t now, Effects& effects) {
  control_.SweepTimers(now, effects);
  if (std::optional<int64_t> next = priorities_.Recompute(now, effects)) control_.NoteWake(*next);
  control_.CheckNodeLiveness(now, effects);
  preemption_.ResumeDisplaced(now, effects);  // Before anything else may take their resources
  gang_.Tick(*config_, now, effects);
  reservations_.Expire(now, effects);
  cycle_.Run(now, effects);
}

Status ControllerCore::NodeRegistered(const std::string& node, int64_t boot_time, int64_t now,
                                      Effects& effects) {
  wire::NodeRegisterRequest request;
  request.set_node(node);
  request.set_boot_time(boot_time);
  return NodeRegistered(request, now, effects);
}

// ---------------------------------------------------------------- submit

Result<wire::SubmitJobResponse> ControllerCore::Submit(const wire::SubmitJobRequest& request,
                                                       const Caller& caller, int64_t now,
                                                       Effects& effects) {
  wire::JobSpec spec = request.spec();
  spec.set_uid(caller.uid);
  spec.set_gid(caller.gid);
  spec.set_user(caller.user);
  spec.set_group(caller.group);
  // --mail-type without --mail-user mails the submitting user, as in Slurm.
  if (spec.mail_type() != 0 && spec.mail_user().empty()) spec.set_mail_user(caller.user);
  // Without TrackWCKey a job's --wckey is ignored, as slurm.conf's man page says.
  if (!config_->settings.track_wckey) spec.clear_wckey();
  ROTA_RETURN_IF_ERROR(CheckSubmitFields(spec, accounting_.WithAdminLevel(caller).privileged, now));
  // A packed payload's sizes come with the request (the server measured
  // them before packing).
  const bool packed = !request.packed_payload().empty();
  ROTA_RETURN_IF_ERROR(
      CheckSubmitSizes(packed ? request.script_bytes() : spec.script().size(),
                       packed ? request.environment_bytes() : EnvironmentBytes(spec),
                       config_->settings.scheduler.max_script_size));

  const conf::PartitionConfig* partition = nullptr;
  if (spec.partition().empty()) {
    partition = config_->DefaultPartition();
    if (partition == nullptr) {
      return InvalidArgument("No partition specified or system default partition");
    }
    spec.set_partition(partition->name);
  } else {
    // "-p a,b" lets Slurm pick; Rota takes the first partition for now.
    std::string first(Split(spec.partition(), ',').front());
    partition = config_->FindPartition(first);
    if (partition == nullptr) return InvalidArgument("Invalid partition name specified");
    spec.set_partition(first);
  }

  ROTA_RETURN_IF_ERROR(accounting_.CheckAtSubmit(spec, *partition, caller));
  ROTA_RETURN_IF_ERROR(reservations_.CheckAtSubmit(spec, accounting_.WithAdminLevel(caller)));
  ROTA_RETURN_IF_ERROR(accounting_.CheckQosKnown(spec));

  if (!spec.licenses().empty()) {
    Result<std::string> licenses = CheckLicenseRequest(config_->settings.licenses, spec.licenses());
    if (!licenses.ok()) return licenses.status();
    spec.set_licenses(*licenses);
  }
  ApplyMaxMemPerCpu(*partition, *config_, spec);
  Result<JobShape> shape = ShapeJob(spec, *partition, *config_, nodes_.model());
  if (!shape.ok()) return shape.status();
  ROTA_RETURN_IF_ERROR(CheckCanEverRun(*shape, *partition, nodes_.model()));
  ROTA_RETURN_IF_ERROR(EnforcePartitionLimits(*config_, shape->partition_reason));
  if (PartitionCpuCap cap(*partition, nodes_.model()); cap.capped()) {
    // MaxCPUsPerNode below what the job needs on a node: it could never start.
    if (!SelectWithinCap(nodes_.model(), nodes_.model().empty_usage,
                         PartitionNodeIndices(*partition, nodes_.model()), shape->request, cap)
             .allocation) {
      return InvalidArgument(kNodeConfigNotAvailable);
    }
  }

  std::optional<model::ArraySpec> array;
  if (!spec.array().empty()) {
    Result<model::ArraySpec> parsed = model::ParseArraySpec(spec.array());
    const uint32_t max_tasks = config_->settings.scheduler.max_array_tasks;
    if (!parsed.ok() || *parsed->tasks.last() >= config_->settings.max_array_size ||
        (max_tasks > 0 && parsed->tasks.size() > max_tasks)) {
      return InvalidArgument("Invalid job array specification");
    }
    array = std::move(parsed).value();
  }

  if (!spec.dependency().empty()) {
    Result<model::Dependency> dep = model::ParseDependency(spec.dependency());
    if (!dep.ok()) return InvalidArgument("Job dependency problem");
    for (const model::DependencyTerm& t : dep->terms) {
      if (t.type != model::DependencyType::kSingleton && !jobs_.contains(t.job_id)) {
        return InvalidArgument("Job dependency problem");
      }
    }
  }

  if (jobs_.size() >= config_->settings.max_job_count) {
    return Status(StatusCode::kUnavailable, "Slurm temporary failure, try again later");
  }

  wire::SubmitJobResponse response;
  response.set_cluster(config_->settings.cluster_name);
  response.set_partition(spec.partition());
  if (request.test_only()) {
    // When and where would it start, were it alone in the queue? Now, or once
    // enough running jobs reach their time limits (the same selection, asked
    // at each end time).
    response.set_job_id(jobs_.next_id());
    NodeTable::Candidates c = nodes_.CandidatesIn(*partition);
    std::vector<sched::Release> releases;
    for (const auto& [id, job] : jobs_) {
      if (job->state() != wire::JOB_STATE_RUNNING || job->end_time() <= 0) continue;
      sched::Release& r = releases.emplace_back();
      r.time = job->end_time();
      for (int i = 0; i < job->nodes_size() && i < job->allocs_size(); ++i) {
        int32_t node = nodes_.model().IndexOf(job->nodes(i));
        if (node >= 0) {
          r.allocation.nodes.push_back(
              FromRecord(nodes_.model(), static_cast<uint32_t>(node), job->allocs(i)));
        }
      }
    }
    std::optional<sched::StartEstimate> s = sched::EarliestStart(
        nodes_.model(), nodes_.usage(), c.usable, shape->request, now, std::move(releases));
    if (s) {
      response.set_test_only_start(s->time);
      uint32_t cpus = 0;
      for (const sched::NodeAllocation& a : s->allocation.nodes) {
        cpus +=
            static_cast<uint32_t>(a.slots.size()) * nodes_.model().nodes[a.node].cpus_per_slot();
        response.add_test_only_nodes(nodes_.model().nodes[a.node].name);
      }
      response.set_test_only_cpus(cpus);
    }
    return response;
  }

  wire::JobRecord job;
  *job.mutable_spec() = std::move(spec);
  job.set_time_limit_s(shape->time_limit_s);
  if (scheduling_policy_.predict_runtime && job.spec().expected_run_s() == 0) {
    job.mutable_spec()->set_expected_run_s(
        forecasts_.PlannedRuntime(job.spec().uid(), job.time_limit_s()));
  }
  job.set_alloc_cpus(shape->total_cpus);
  job.set_req_nodes(shape->nodes);
  job.set_req_tres(RequestedTres(*config_, job));
  ROTA_RETURN_IF_ERROR(
      accounting_.CheckLimitsAtSubmit(job, array ? static_cast<uint32_t>(array->tasks.size()) : 1));
  job.set_job_id(jobs_.AllocateId());
  job.set_state(wire::JOB_STATE_PENDING);
  job.set_submit_time(now);
  job.set_eligible_time(std::max(now, job.spec().begin_time()));
  // --requeue / --no-requeue, else the cluster's JobRequeue.
  job.set_requeue(job.spec().requeue() == 0 ? config_->settings.job_requeue
                                            : job.spec().requeue() == 1);
  job.set_dependency_state(job.spec().dependency());
  if (array) {
    job.set_array_job_id(job.job_id());
    job.set_array_meta(true);
    job.set_array_pending(array->tasks.ToString());
    job.set_array_max_running(array->max_running);
  }
  if (job.spec().hold()) {  // --hold is a user hold, whoever submits.
    job.set_priority(0);
    job.set_reason(std::string(model::reason::kJobHeldUser));
  } else if (job.spec().has_requested_priority()) {
    // An operator's --priority, kept as `scontrol update Priority=` keeps it;
    // 0 holds the job as the administrator's hold does.
    const uint32_t p = job.spec().requested_priority();
    job.set_priority(p);
    job.set_priority_fixed(p != 0);
    job.set_held_by_admin(p == 0);
    job.set_reason(std::string(p == 0 ? model::reason::kJobHeldAdmin : model::reason::kNone));
  } else {
    job.set_priority(priorities_.Base(job));
    job.set_reason(std::string(model::reason::kNone));
  }
  response.set_job_id(job.job_id());
  stats_.JobSubmitted();
  control_.NoteWake(job.spec().begin_time());
  // The script and environment are logged once, packed and apart from the
  // record, so that later state changes and listings never copy them. The RPC
  // threads usually packed them already.
  wire::JobPayload payload;
  payload.set_job_id(job.job_id());
  if (!request.packed_payload().empty()) {
    payload.set_packed(request.packed_payload());
  } else {
    payload.set_script(job.spec().script());
    *payload.mutable_environment() = job.spec().environment();
    payload.set_packed(model::PackPayload(payload));
    payload.clear_script();
    payload.clear_environment();
  }
  job.mutable_spec()->clear_script();
  job.mutable_spec()->clear_environment();
  *effects.records.emplace_back().mutable_job_payload() = payload;
  jobs_.StorePayload(payload);
  control_.Persist(job, effects);
  jobs_.Insert(std::move(job));
  return response;
}

}  // namespace rota::ctld
