// Commands that change jobs and nodes on a user's or a node daemon's request.
#include "ctld/core/job_control.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <csignal>
#include <set>

#include "common/duration.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "ctld/core/accounting_records.h"
#include "ctld/core/allocation_record.h"
#include "ctld/core/job_mail.h"
#include "ctld/core/job_script_env.h"
#include "ctld/core/job_shape.h"
#include "ctld/core/prepared_nodes.h"
#include "model/dependency.h"
#include "model/index_set.h"
#include "model/job_state.h"
#include "model/pending_reason.h"

namespace rota::ctld {
namespace {

constexpr char kInvalidJobId[] = "Invalid job id specified";
constexpr char kPermissionDenied[] = "Access/permission denied";
constexpr char kDependencyProblem[] = "Job dependency problem";
constexpr char kAlreadyDone[] = "Job/step already completing or completed";
constexpr char kNotPending[] = "Job is no longer pending execution";
constexpr char kPendingExecution[] = "Job is pending execution";

bool MayControl(const Caller& caller, const wire::JobRecord& job) {
  return caller.privileged || caller.uid == job.spec().uid();
}

bool Running(const wire::JobRecord& job) {
  return job.state() == wire::JOB_STATE_RUNNING || job.state() == wire::JOB_STATE_SUSPENDED;
}

bool Completing(const wire::JobRecord& job) { return job.state() == wire::JOB_STATE_COMPLETING; }

// Ended or ending: no more signals, cancels or requeues (Slurm's "already
// completing or completed").
bool Done(const wire::JobRecord& job) { return model::IsFinished(job.state()) || Completing(job); }

bool AwaitsCleanupFrom(const wire::JobRecord& job, const std::string& node) {
  return node.empty() || std::find(job.completing_nodes().begin(), job.completing_nodes().end(),
                                   node) != job.completing_nodes().end();
}

// --signal=[{R|B}:]SIG[@secs], as sbatch checked it at submission.
struct WarnSignal {
  int signal = 0;
  int64_t secs = 60;  // Slurm's default
  bool batch_only = false;
};

std::optional<int> SignalNumber(std::string_view name) {
  static constexpr std::pair<std::string_view, int> kNames[] = {
      {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"ABRT", SIGABRT},
      {"KILL", SIGKILL}, {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"USR1", SIGUSR1},
      {"USR2", SIGUSR2}, {"CONT", SIGCONT}, {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
      {"URG", SIGURG},   {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ}, {"PROF", SIGPROF},
  };
  if (std::optional<uint64_t> n = ParseUint(name)) {
    if (*n >= 1 && *n < 65) return static_cast<int>(*n);
    return std::nullopt;
  }
  if (StartsWithIgnoreCase(name, "SIG")) name.remove_prefix(3);
  for (const auto& [text, number] : kNames) {
    if (EqualsIgnoreCase(name, text)) return number;
  }
  return std::nullopt;
}

std::optional<WarnSignal> ParseWarnSignal(std::string_view text) {
  WarnSignal w;
  if (size_t colon = text.find(':'); colon != std::string_view::npos) {
    for (char flag : text.substr(0, colon)) w.batch_only |= flag == 'B' || flag == 'b';
    text.remove_prefix(colon + 1);
  }
  if (size_t at = text.find('@'); at != std::string_view::npos) {
    std::optional<uint64_t> secs = ParseUint(text.substr(at + 1));
    if (!secs || *secs > 0xffff) return std::nullopt;
    w.secs = static_cast<int64_t>(*secs);
    text = text.substr(0, at);
  }
  std::optional<int> number = SignalNumber(text);
  if (!number) return std::nullopt;
  w.signal = *number;
  return w;
}

}  // namespace

void JobControl::Persist(const wire::JobRecord& job, Effects& effects) {
  *effects.records.emplace_back().mutable_job_upsert() = job;
  const size_t accounted = effects.accounting.size();
  AccountJobChange(*config_, job, effects);
  if (effects.accounting.size() > accounted) {
    wire::AccountingJob& record = effects.accounting.back();
    AttachSteps(job, record);
    if (CarriesJobTexts(*config_, record)) {
      if (std::shared_ptr<const wire::JobPayload> payload = jobs_.FindPayload(job)) {
        AttachJobTexts(*config_, *payload, record);
      }
    }
  }
  if (job.state() == wire::JOB_STATE_PENDING || model::IsFinished(job.state())) {
    EndAttemptSteps(job, effects);
  }
}

void JobControl::PersistNode(const NodeRuntime& node, int64_t now, Effects& effects) {
  *effects.records.emplace_back().mutable_node_upsert() = nodes_.ToRecord(node);
  node_events_.Observe(*config_, node, now, effects);
}

void JobControl::FinishJob(wire::JobRecord& job, wire::JobState state, int64_t now,
                           Effects& effects) {
  EndGpuIdle(job, now, effects);
  const bool completing = Completing(job);
  if (Running(job)) EndOnOtherNodes(*config_, job, effects);  // Completing: done already
  if (Running(job) || completing) nodes_.Release(job);
  if (completing) {
    nodes_.MarkCompleting(job, -1);
    job.clear_completing_nodes();
    job.clear_final_state();
  } else {
    job.set_end_time(now);  // A COMPLETING job ended when it began completing.
    forecasts_.RunEnded(job, state);
  }
  job.set_state(state);
  stats_.JobEnded(state);
  NoteWake(job.end_time() + config_->settings.min_job_age);
  if (job.start_time() == 0) job.set_start_time(now);  // Slurm shows the end as the start.
  if (std::optional<model::MailEvent> mail = EndMailEvent(job, state)) {
    AddJobMail(job, *mail, now, config_->settings.cluster_name, effects);
  }
  AddEpilogSlurmctld(job, config_->settings, effects);
  Persist(job, effects);
}

void JobControl::BeginCompleting(wire::JobRecord& job, wire::JobState final_state, int64_t now,
                                 Effects& effects) {
  EndGpuIdle(job, now, effects);
  if (job.nodes().empty()) {
    FinishJob(job, final_state, now, effects);
    return;
  }
  job.set_state(wire::JOB_STATE_COMPLETING);
  job.set_final_state(final_state);
  job.set_end_time(now);
  forecasts_.RunEnded(job, final_state);
  // Only the first node runs anything of a job (its batch script) until job
  // steps exist, so only its node daemon has processes to kill and an Epilog
  // to run; the job's other nodes have nothing to report.
  job.clear_completing_nodes();
  job.add_completing_nodes(job.nodes(0));
  nodes_.MarkCompleting(job, +1);
  EndOnOtherNodes(*config_, job, effects);  // Their cages (PrologFlags=Alloc/Contain)
  Persist(job, effects);
}

void JobControl::NodeCleanedUp(wire::JobRecord& job, const std::string& node, int64_t now,
                               Effects& effects) {
  auto* awaited = job.mutable_completing_nodes();
  if (node.empty()) {
    awaited->Clear();
  } else {
    awaited->erase(std::remove(awaited->begin(), awaited->end(), node), awaited->end());
  }
  if (awaited->empty() && job.final_state() == wire::JOB_STATE_REQUEUED) {
    // scontrol requeue of a running job (or its preemption, or a Prolog that
    // failed on another node): the old run is gone.
    const bool failed_launch = job.reason() == model::reason::kLaunchFailedRequeuedHeld;
    ReturnToQueue(job,
                  job.preempted_by() != 0 ? wire::JOB_STATE_PREEMPTED : wire::JOB_STATE_REQUEUED,
                  now, effects);
    SetHeldReason(job);
    if (failed_launch && job.priority() == 0) {
      job.set_reason(std::string(model::reason::kLaunchFailedRequeuedHeld));
    }
    Persist(job, effects);
    jobs_.Touch();
  } else if (awaited->empty()) {
    FinishJob(job, job.final_state(), now, effects);
  } else {
    Persist(job, effects);
  }
}

// "123", "123_4", "123_[1-3]". An array's id names its meta record and every task.
std::vector<uint32_t> JobControl::ResolveJobIds(const std::string& text, std::string* error) {
  std::vector<uint32_t> ids;
  std::string_view t = Trim(text);
  size_t under = t.find('_');
  std::optional<uint64_t> base = ParseUint(t.substr(0, under));
  if (!base || *base == 0 || *base > UINT32_MAX) {
    *error = kInvalidJobId;
    return ids;
  }
  uint32_t job_id = static_cast<uint32_t>(*base);
  std::optional<model::IndexSet> tasks;
  if (under != std::string_view::npos) {
    std::string_view spec = t.substr(under + 1);
    if (spec.size() >= 2 && spec.front() == '[' && spec.back() == ']')
      spec = spec.substr(1, spec.size() - 2);
    Result<model::IndexSet> parsed = model::IndexSet::Parse(spec);
    if (!parsed.ok()) {
      *error = kInvalidJobId;
      return ids;
    }
    tasks = std::move(parsed).value();
  }
  for (const auto& [id, job] : jobs_) {
    bool in_array = job->array_job_id() == job_id;
    if (id != job_id && !in_array) continue;
    if (tasks && !job->array_meta() && !(in_array && tasks->Contains(job->array_task_id())))
      continue;
    ids.push_back(id);
  }
  if (ids.empty()) *error = kInvalidJobId;
  return ids;
}

wire::SignalJobsResponse JobControl::SignalJobs(const wire::SignalJobsRequest& request,
                                                const Caller& requester, int64_t now,
                                                Effects& effects) {
  const Caller caller = accounting_.WithAdminLevel(requester);
  wire::SignalJobsResponse response;
  auto matches_filters = [&](const wire::JobRecord& j) {
    if (!request.user().empty() && j.spec().user() != request.user()) return false;
    if (!request.partition().empty() && j.spec().partition() != request.partition()) return false;
    if (!request.name().empty() && j.spec().name() != request.name()) return false;
    if (!request.state().empty()) {
      wire::JobState s;
      if (!model::ParseJobState(request.state(), &s) || s != j.state()) return false;
    }
    return true;
  };

  // (label for errors, job id) pairs, in request order.
  std::vector<std::pair<std::string, uint32_t>> targets;
  std::vector<std::pair<std::string, std::optional<model::IndexSet>>> task_filters;
  if (request.job_ids().empty()) {
    // "-u OTHER" names another user's jobs outright: each one the caller may
    // see but not control is refused by name, as in Slurm. Other filters
    // ("-p batch") only pick from the caller's own.
    const std::optional<uint32_t> visible_only_to = accounting_.JobsVisibleOnlyTo(caller);
    for (const auto& [id, job] : jobs_) {
      if (Done(*job) || !matches_filters(*job)) continue;
      const bool named =
          !request.user().empty() && (!visible_only_to || *visible_only_to == job->spec().uid());
      if (MayControl(caller, *job) || named) targets.push_back({std::to_string(id), id});
    }
  }
  for (const std::string& text : request.job_ids()) {
    std::string error;
    std::vector<uint32_t> ids = ResolveJobIds(text, &error);
    if (!error.empty()) {
      response.add_errors(fmt::format("{}: {}", text, error));
      continue;
    }
    // Pending tasks named one by one leave the array's meta record ("123_4").
    size_t under = text.find('_');
    for (uint32_t id : ids) {
      const wire::JobRecord& job = *jobs_.at(id);
      if (job.array_meta() && under != std::string::npos) {
        std::string spec = text.substr(under + 1);
        if (!spec.empty() && spec.front() == '[') spec = spec.substr(1, spec.size() - 2);
        model::IndexSet wanted = model::IndexSet::Parse(spec).value_or({});
        model::IndexSet pending = model::IndexSet::Parse(job.array_pending()).value_or({});
        if (!MayControl(caller, job)) {
          response.add_errors(fmt::format("{}: {}", text, kPermissionDenied));
          continue;
        }
        if (request.signal() != 0 && request.signal() != SIGKILL) {
          response.add_errors(fmt::format("{}: {}", text, kPendingExecution));
          continue;
        }
        bool touched = false;
        while (std::optional<uint32_t> t = wanted.PopFirst()) touched |= pending.Erase(*t);
        if (!touched) continue;
        wire::JobRecord& meta = Mutable(id);
        if (pending.empty()) {
          meta.set_array_pending("");
          FinishJob(meta, wire::JOB_STATE_CANCELLED, now, effects);
        } else {
          meta.set_array_pending(pending.ToString());
          Persist(meta, effects);
        }
        response.set_affected(response.affected() + 1);
        continue;
      }
      // Naming a whole array skips its tasks that already ended.
      if (ids.size() > 1 && Done(job)) continue;
      if (matches_filters(job)) targets.push_back({text, id});
    }
  }

  for (const auto& [label, id] : targets) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) continue;
    const wire::JobRecord& job = *it->second;
    if (!MayControl(caller, job)) {
      response.add_errors(fmt::format("{}: {}", label, kPermissionDenied));
      continue;
    }
    if (Done(job)) {
      if (request.job_ids_size() > 0)
        response.add_errors(fmt::format("{}: {}", label, kAlreadyDone));
      continue;
    }
    bool cancel = request.signal() == 0 || request.signal() == SIGKILL;
    if (job.state() == wire::JOB_STATE_PENDING) {
      if (!cancel) {
        response.add_errors(fmt::format("{}: {}", label, kPendingExecution));
        continue;
      }
      wire::JobRecord& j = Mutable(id);
      j.set_array_pending(j.array_meta() ? "" : j.array_pending());
      NoteCancelledBy(j, caller.uid);
      FinishJob(j, wire::JOB_STATE_CANCELLED, now, effects);
    } else if (cancel) {
      // As Slurm's node daemon does: SIGTERM, SIGKILL after KillWait. The job
      // is COMPLETING until its node reports that it is gone.
      wire::JobRecord& j = Mutable(id);
      effects.signals.push_back(
          {id, {j.nodes().begin(), j.nodes().end()}, SIGTERM, false, /*terminate=*/true});
      j.set_cancel_requested(true);
      NoteCancelledBy(j, caller.uid);
      BeginCompleting(j, wire::JOB_STATE_CANCELLED, now, effects);
    } else {
      // As Slurm's: a signal other than SIGKILL reaches the steps only, unless
      // the batch script (-b) or the whole job (-f) is asked for.
      const bool steps_only =
          !request.batch_only() && !request.full() && request.signal() != SIGKILL;
      effects.signals.push_back({id,
                                 {job.nodes().begin(), job.nodes().end()},
                                 request.signal(),
                                 request.batch_only(),
                                 /*terminate=*/false,
                                 steps_only});
    }
    response.set_affected(response.affected() + 1);
  }
  return response;
}

void JobControl::HoldAfterFailedLaunch(wire::JobRecord& job) {
  job.set_priority(0);
  job.set_held_by_admin(false);  // Its user may release it, as in Slurm
  job.set_reason(std::string(model::reason::kLaunchFailedRequeuedHeld));
}

void JobControl::SetHeldReason(wire::JobRecord& job) {
  if (job.priority() != 0) {
    job.set_reason(std::string(model::reason::kNone));
  } else {
    job.set_reason(std::string(job.held_by_admin() ? model::reason::kJobHeldAdmin
                                                   : model::reason::kJobHeldUser));
  }
}

void JobControl::ReturnToQueue(wire::JobRecord& job, wire::JobState attempt_state, int64_t now,
                               Effects& effects) {
  EndGpuIdle(job, now, effects);
  // Told while the run's times and nodes are still there.
  AddJobMail(job, model::kMailRequeue, now, config_->settings.cluster_name, effects);
  AddEpilogSlurmctld(job, config_->settings, effects);
  const size_t accounted = effects.accounting.size();
  AccountAttemptEnd(*config_, job, attempt_state, now, effects);
  if (effects.accounting.size() > accounted) AttachSteps(job, effects.accounting.back());
  if (Running(job)) EndOnOtherNodes(*config_, job, effects);
  if (Running(job) || Completing(job)) nodes_.Release(job);
  if (Completing(job)) nodes_.MarkCompleting(job, -1);
  job.clear_completing_nodes();
  job.clear_final_state();
  job.set_state(wire::JOB_STATE_PENDING);
  job.set_restart_count(job.restart_count() + 1);
  job.clear_preempted_by();
  job.clear_preempt_kill_time();
  job.clear_suspend_time();
  job.clear_suspended_s();
  job.clear_suspended_allocs();
  job.clear_nodes();
  job.clear_mem_by_node_mb();
  job.set_start_time(0);
  job.set_end_time(0);
  job.set_exit_code(0);
  job.clear_batch_usage();
  job.set_timed_out(false);
  job.set_warned(false);
  job.set_cancel_requested(false);
  job.set_cancelled(false);
  job.set_reason(std::string(model::reason::kNone));
}

Status JobControl::ReportExit(const wire::JobExitedRequest& report, int64_t now, Effects& effects) {
  if (report.run_known()) {
    // The end of a run the job has since left behind (requeued): not this run's.
    auto it = jobs_.find(report.job_id());
    if (it != jobs_.end() && it->second->restart_count() != report.run()) return Status::Ok();
  }
  NoteBatchUsage(report);
  if (report.cleanup_follows() && !report.prolog_failed()) {
    return ScriptEnded(report, now, effects);
  }
  if (!report.prolog_failed()) {
    return JobExited(report.job_id(), report.wait_status(), now, effects, report.node(),
                     report.out_of_memory(), report.gpu_failed());
  }
  // The node could not prepare for the job: the job goes back to the queue,
  // held ("launch failed requeued held") unless nohold_on_prolog_fail, and
  // the node is drained until an administrator has looked, as in Slurm. A job
  // that may not be requeued (--no-requeue, JobRequeue=0, salloc's) is
  // cancelled instead, as Slurm cancels it.
  auto it = jobs_.find(report.job_id());
  if (it == jobs_.end()) return NotFound(kInvalidJobId);
  const auto& on = it->second->nodes();
  const bool requeue = it->second->requeue() && !it->second->spec().interactive();
  const bool hold = !config_->settings.scheduler.nohold_on_prolog_fail;
  if (Running(*it->second) && !on.empty() &&
      (report.node().empty() || it->second->nodes(0) == report.node())) {
    wire::JobRecord& job = Mutable(report.job_id());
    if (requeue) {
      ReturnToQueue(job, wire::JOB_STATE_REQUEUED, now, effects);
      if (hold) HoldAfterFailedLaunch(job);
      Persist(job, effects);
    } else {
      job.set_cancel_requested(true);
      FinishJob(job, wire::JOB_STATE_CANCELLED, now, effects);
    }
  } else if (Running(*it->second) && std::find(on.begin(), on.end(), report.node()) != on.end()) {
    // Another node's Prolog (PrologFlags=Alloc/Contain): the batch script may
    // run already, so the run ends as a requeue (or a cancel) does. The hold's
    // reason waits on the record for the run's end (NodeCleanedUp).
    wire::JobRecord& job = Mutable(report.job_id());
    effects.signals.push_back(
        {job.job_id(), {job.nodes().begin(), job.nodes().end()}, SIGKILL, false, true});
    if (requeue && hold) HoldAfterFailedLaunch(job);
    if (!requeue) job.set_cancel_requested(true);
    BeginCompleting(job, requeue ? wire::JOB_STATE_REQUEUED : wire::JOB_STATE_CANCELLED, now,
                    effects);
  }
  if (NodeRuntime* node = nodes_.Find(report.node())) {
    node->drain = true;
    node->reason = "Prolog error: " + report.failure_reason();
    node->reason_time = now;
    node->reason_uid = 0;
    PersistNode(*node, now, effects);
    jobs_.Touch();
  }
  return Status::Ok();
}

wire::JobState JobControl::EndState(const wire::JobRecord& job, uint32_t wait_status,
                                    bool out_of_memory) {
  int status = static_cast<int>(wait_status);
  if (job.cancel_requested()) return wire::JOB_STATE_CANCELLED;
  if (job.timed_out()) return wire::JOB_STATE_TIMEOUT;
  if (out_of_memory) return wire::JOB_STATE_OUT_OF_MEMORY;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return wire::JOB_STATE_COMPLETED;
  return wire::JOB_STATE_FAILED;
}

Status JobControl::ScriptEnded(const wire::JobExitedRequest& report, int64_t now,
                               Effects& effects) {
  auto it = jobs_.find(report.job_id());
  if (it == jobs_.end()) return NotFound(kInvalidJobId);
  const wire::JobRecord& current = *it->second;
  const std::string& node = report.node();
  if (Completing(current)) {
    // Cancelled or timed out before the script ended: only the exit code is news.
    if (!AwaitsCleanupFrom(current, node)) return Status::Ok();
    wire::JobRecord& job = Mutable(report.job_id());
    job.set_exit_code(report.wait_status());
    Persist(job, effects);
    return Status::Ok();
  }
  if (!Running(current)) return Status::Ok();
  if (!node.empty() && (current.nodes().empty() || current.nodes(0) != node)) {
    return Status::Ok();  // A stale report from where an earlier run of the job was.
  }
  wire::JobRecord& job = Mutable(report.job_id());
  job.set_exit_code(report.wait_status());
  if (job.preempt_kill_time() > 0) {  // Ended in its GraceTime: still preempted
    preemption_.StopDisplaced(job, now, effects);
    return Status::Ok();
  }
  BeginCompleting(job, EndState(job, report.wait_status(), report.out_of_memory()), now, effects);
  return Status::Ok();
}

Status JobControl::JobExited(uint32_t job_id, uint32_t wait_status, int64_t now, Effects& effects,
                             const std::string& node, bool out_of_memory, bool gpu_failed) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return NotFound(kInvalidJobId);
  // A job that failed on a GPU that failed goes back to the queue when it may,
  // as after a node failure; the node drained itself for the GPU.
  auto gpu_requeue = [&](const wire::JobRecord& job, wire::JobState state) {
    return gpu_failed && state == wire::JOB_STATE_FAILED && job.requeue() &&
           !job.spec().interactive();
  };
  if (Completing(*it->second)) {
    if (!AwaitsCleanupFrom(*it->second, node)) return Status::Ok();
    wire::JobRecord& job = Mutable(job_id);
    job.set_exit_code(wait_status);
    if (gpu_requeue(job, job.final_state())) job.set_final_state(wire::JOB_STATE_REQUEUED);
    // The cage's memory-limit kills are counted up to its removal.
    if (out_of_memory && (job.final_state() == wire::JOB_STATE_COMPLETED ||
                          job.final_state() == wire::JOB_STATE_FAILED)) {
      job.set_final_state(wire::JOB_STATE_OUT_OF_MEMORY);
    }
    NodeCleanedUp(job, node, now, effects);
    return Status::Ok();
  }
  if (!Running(*it->second)) return Status::Ok();  // Already ended: nothing to do.
  if (!node.empty() && (it->second->nodes().empty() || it->second->nodes(0) != node)) {
    return Status::Ok();  // A stale report from where an earlier run of the job was.
  }
  wire::JobRecord& job = Mutable(job_id);
  job.set_exit_code(wait_status);
  if (job.preempt_kill_time() > 0) {  // Ended in its GraceTime: still preempted
    preemption_.StopDisplaced(job, now, effects);
    NodeCleanedUp(job, "", now, effects);
    return Status::Ok();
  }
  const wire::JobState state = EndState(job, wait_status, out_of_memory);
  if (gpu_requeue(job, state)) {
    ReturnToQueue(job, wire::JOB_STATE_NODE_FAIL, now, effects);
    Persist(job, effects);
    jobs_.Touch();
    return Status::Ok();
  }
  FinishJob(job, state, now, effects);
  return Status::Ok();
}

void JobControl::PrologSlurmctldDone(uint32_t job_id, uint32_t run, bool ok, int64_t now,
                                     Effects& effects) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end() || it->second->restart_count() != run) return;
  prologs_in_flight_.erase(job_id);
  if (!it->second->prolog_slurmctld_running()) return;
  wire::JobRecord& job = Mutable(job_id);
  job.set_prolog_slurmctld_running(false);
  if (Completing(job)) {
    // Cancelled while the prolog ran: no node ever had anything of it.
    NodeCleanedUp(job, "", now, effects);
    return;
  }
  if (!Running(job)) {
    Persist(job, effects);
    return;
  }
  if (ok) {
    Persist(job, effects);
    effects.launches.push_back({jobs_.at(job_id), jobs_.FindPayload(job)});
    return;
  }
  if (job.requeue() && !job.spec().interactive()) {
    ReturnToQueue(job, wire::JOB_STATE_REQUEUED, now, effects);
    Persist(job, effects);
    jobs_.Touch();
    return;
  }
  // It may not run again: killed, as Slurm kills it.
  job.set_cancel_requested(true);
  FinishJob(job, wire::JOB_STATE_CANCELLED, now, effects);
  jobs_.Touch();
}

std::optional<int64_t> JobControl::WarnTime(const wire::JobRecord& job) const {
  if (job.spec().signal().empty() || job.time_limit_s() < 0 || job.warned() || job.timed_out())
    return std::nullopt;
  std::optional<WarnSignal> w = ParseWarnSignal(job.spec().signal());
  if (!w) return std::nullopt;
  return job.end_time() - w->secs;
}

void JobControl::SendWarning(uint32_t job_id, Effects& effects) {
  wire::JobRecord& job = Mutable(job_id);
  std::optional<WarnSignal> w = ParseWarnSignal(job.spec().signal());
  if (!w) return;
  job.set_warned(true);
  // Without B: the job's steps get it, not the batch script (Slurm's rule).
  effects.signals.push_back({job_id,
                             {job.nodes().begin(), job.nodes().end()},
                             w->signal,
                             w->batch_only,
                             /*terminate=*/false,
                             /*steps_only=*/!w->batch_only && w->signal != SIGKILL});
  Persist(job, effects);
}

void JobControl::NodeLost(const std::string& node, int64_t now, Effects& effects) {
  NodeRuntime* n = nodes_.Find(node);
  if (n == nullptr) return;
  MarkNotResponding(*n, now, effects);
}

void JobControl::FailJobsOn(const std::string& node, int64_t now, Effects& effects) {
  std::vector<uint32_t> victims;
  std::vector<uint32_t> completing;
  for (const auto& [id, job] : jobs_) {
    if (Completing(*job) && AwaitsCleanupFrom(*job, node)) {
      completing.push_back(id);
    } else if (Running(*job) &&
               std::find(job->nodes().begin(), job->nodes().end(), node) != job->nodes().end()) {
      victims.push_back(id);
    }
  }
  // A DOWN node sends no cleanup report: its ending jobs end now, as in Slurm.
  for (uint32_t id : completing) NodeCleanedUp(Mutable(id), node, now, effects);
  for (uint32_t id : victims) {
    wire::JobRecord& job = Mutable(id);
    if (ExciseNode(job, node, effects)) continue;
    if (job.requeue()) {
      ReturnToQueue(job, wire::JOB_STATE_NODE_FAIL, now, effects);
      Persist(job, effects);
    } else {
      FinishJob(job, wire::JOB_STATE_NODE_FAIL, now, effects);
    }
  }
}

bool JobControl::ExciseNode(wire::JobRecord& job, const std::string& node, Effects& effects) {
  if (!job.spec().no_kill() || job.nodes_size() < 2 || job.allocs_size() != job.nodes_size()) {
    return false;
  }
  // The node that runs the batch script takes the job with it, as in Slurm.
  if (!job.spec().interactive() && job.nodes(0) == node) return false;
  sched::Allocation kept;
  for (int i = 0; i < job.nodes_size(); ++i) {
    if (job.nodes(i) == node) continue;
    const int32_t index = nodes_.model().IndexOf(job.nodes(i));
    if (index < 0) return false;  // A node gone from the configuration
    kept.nodes.push_back(FromRecord(nodes_.model(), static_cast<uint32_t>(index), job.allocs(i)));
  }
  nodes_.Release(job);
  RecordAllocation(nodes_.model(), kept, job);
  nodes_.Allocate(job);
  Persist(job, effects);
  return true;
}

std::string JobControl::DependencyProblem(uint32_t job_id, const std::string& text) const {
  Result<model::Dependency> dep = model::ParseDependency(text);
  if (!dep.ok()) return kDependencyProblem;
  // Slurm refuses a job named that does not exist, and the job itself.
  for (const model::DependencyTerm& t : dep->terms) {
    if (t.type == model::DependencyType::kSingleton) continue;
    if (t.job_id == job_id || !jobs_.contains(t.job_id)) return kDependencyProblem;
  }
  // A chain that leads back to the job would wait forever.
  std::vector<uint32_t> to_visit;
  std::set<uint32_t> seen;
  for (const model::DependencyTerm& t : dep->terms) {
    if (t.type != model::DependencyType::kSingleton) to_visit.push_back(t.job_id);
  }
  while (!to_visit.empty()) {
    const uint32_t id = to_visit.back();
    to_visit.pop_back();
    if (!seen.insert(id).second) continue;
    auto it = jobs_.find(id);
    if (it == jobs_.end() || it->second->spec().dependency().empty()) continue;
    Result<model::Dependency> next = model::ParseDependency(it->second->spec().dependency());
    if (!next.ok()) continue;
    for (const model::DependencyTerm& t : next->terms) {
      if (t.type == model::DependencyType::kSingleton) continue;
      if (t.job_id == job_id) return "Circular dependency";
      to_visit.push_back(t.job_id);
    }
  }
  return "";
}

std::string JobControl::UpdateOneJob(uint32_t job_id, const wire::UpdateJobRequest& request,
                                     const Caller& caller, int64_t now, Effects& effects) {
  const wire::JobRecord& current = *jobs_.at(job_id);
  if (!MayControl(caller, current)) return kPermissionDenied;
  const std::string& action = request.action();
  bool pending = current.state() == wire::JOB_STATE_PENDING;

  if (action == "hold" || action == "uhold") {
    if (!pending) return kNotPending;
    wire::JobRecord& j = Mutable(job_id);
    bool admin = action == "hold" && caller.privileged;
    j.set_priority(0);
    j.set_held_by_admin(admin);
    j.set_reason(std::string(admin ? model::reason::kJobHeldAdmin : model::reason::kJobHeldUser));
    Persist(j, effects);
    return "";
  }
  if (action == "release") {
    if (!pending) return kNotPending;
    if (current.priority() != 0) return "";  // Not held: nothing to release.
    if (current.held_by_admin() && !caller.privileged) return kPermissionDenied;
    wire::JobRecord& j = Mutable(job_id);
    j.set_held_by_admin(false);
    j.set_priority_fixed(false);  // Released: computed again.
    j.set_priority(priorities_.Base(j));
    j.set_reason(std::string(model::reason::kNone));
    Persist(j, effects);
    return "";
  }
  if (action == "requeue" || action == "requeuehold") {
    if (pending || current.array_meta()) return kPendingExecution;
    if (Completing(current)) return kAlreadyDone;
    if (!current.requeue()) return "Requested operation is presently disabled";
    wire::JobRecord& j = Mutable(job_id);
    if (action == "requeuehold") {
      j.set_priority(0);
      j.set_held_by_admin(caller.privileged);
    } else {
      j.set_priority(priorities_.Base(j));
    }
    if (Running(j)) {
      // As a cancel: SIGTERM, SIGKILL after KillWait. The job holds its
      // allocation while COMPLETING and is pending again only once its node
      // reports the old run gone, so the next run never meets it.
      effects.signals.push_back(
          {job_id, {j.nodes().begin(), j.nodes().end()}, SIGTERM, false, /*terminate=*/true});
      BeginCompleting(j, wire::JOB_STATE_REQUEUED, now, effects);
      return "";
    }
    ReturnToQueue(j, wire::JOB_STATE_REQUEUED, now, effects);
    SetHeldReason(j);
    Persist(j, effects);
    return "";
  }
  if (action == "suspend" || action == "resume") {
    if (!caller.privileged) return kPermissionDenied;
    return AdminSuspend(job_id, action == "suspend", now, effects);
  }
  if (!action.empty()) return fmt::format("Unknown action {}", action);

  // Field updates: check everything before changing anything.
  wire::JobRecord updated = current;
  for (const auto& [key, value] : request.fields()) {
    if (EqualsIgnoreCase(key, "TimeLimit")) {
      Result<DurationSecs> d = ParseDuration(value);
      if (!d.ok()) return "Invalid time limit specification";
      // Whole minutes, as Slurm keeps them; 0 ends a running job at once.
      int64_t limit = *d == kInfiniteDuration ? -1 : RoundUpToMinutes(*d);
      bool raising = current.time_limit_s() >= 0 && (limit < 0 || limit > current.time_limit_s());
      if (raising && !caller.privileged) return kPermissionDenied;
      updated.set_time_limit_s(limit);
      if (Running(updated)) {
        updated.set_end_time(limit >= 0 ? updated.start_time() + limit : 0);
        NoteWake(updated.end_time());
      }
    } else if (EqualsIgnoreCase(key, "Partition")) {
      if (!pending) return kNotPending;
      const conf::PartitionConfig* p = config_->FindPartition(value);
      if (p == nullptr) return "Invalid partition name specified";
      wire::JobSpec spec = updated.spec();
      spec.set_partition(value);
      Result<JobShape> shape = ShapeJob(spec, *p, *config_, nodes_.model());
      if (!shape.ok()) return shape.status().message();
      Status can_run = CheckCanEverRun(*shape, *p, nodes_.model());
      if (!can_run.ok()) return can_run.message();
      *updated.mutable_spec() = spec;
      updated.set_req_nodes(shape->nodes);
    } else if (EqualsIgnoreCase(key, "Nice")) {
      std::optional<int64_t> nice = ParseInt(value);
      if (!nice || *nice < -2147483645 || *nice > 2147483645) return "Invalid nice value";
      if (*nice < 0 && !caller.privileged) return kPermissionDenied;
      updated.mutable_spec()->set_nice(static_cast<int32_t>(*nice));
      if (updated.priority() != 0) updated.set_priority(priorities_.Base(updated));
    } else if (EqualsIgnoreCase(key, "Priority")) {
      if (!caller.privileged) return kPermissionDenied;
      std::optional<uint64_t> p = ParseUint(value);
      if (!p || *p > UINT32_MAX) return "Invalid priority";
      updated.set_priority(static_cast<uint32_t>(*p));
      updated.set_priority_fixed(*p != 0);
      if (*p == 0) {
        updated.set_held_by_admin(true);
        updated.set_reason(std::string(model::reason::kJobHeldAdmin));
      }
    } else if (EqualsIgnoreCase(key, "NumNodes")) {
      if (!pending) return kNotPending;
      std::optional<uint64_t> n = ParseUint(value.substr(0, value.find('-')));
      if (!n || *n == 0 || *n > UINT32_MAX) return "Invalid node count specified";
      updated.mutable_spec()->set_min_nodes(static_cast<uint32_t>(*n));
      updated.set_req_nodes(std::max<uint32_t>(updated.req_nodes(), static_cast<uint32_t>(*n)));
    } else if (EqualsIgnoreCase(key, "JobName") || EqualsIgnoreCase(key, "Name")) {
      updated.mutable_spec()->set_name(value);
    } else if (EqualsIgnoreCase(key, "Comment")) {
      updated.mutable_spec()->set_comment(value);
    } else if (EqualsIgnoreCase(key, "Dependency")) {
      if (!pending) return kNotPending;
      if (!value.empty()) {
        std::string problem = DependencyProblem(job_id, value);
        if (!problem.empty()) return problem;
      }
      updated.mutable_spec()->set_dependency(value);
      updated.set_dependency_state(value);
    } else if (EqualsIgnoreCase(key, "ArrayTaskThrottle")) {
      std::optional<uint64_t> n = ParseUint(value);
      if (!n || *n > UINT32_MAX) return "Invalid ArrayTaskThrottle";
      updated.set_array_max_running(static_cast<uint32_t>(*n));
    } else {
      return fmt::format("Update of {} is not supported", key);
    }
  }
  (void)now;
  if (pending) updated.set_req_tres(RequestedTres(*config_, updated));
  jobs_.Replace(job_id, updated);
  Persist(updated, effects);
  return "";
}

wire::UpdateJobResponse JobControl::UpdateJobs(const wire::UpdateJobRequest& request,
                                               const Caller& requester, int64_t now,
                                               Effects& effects) {
  const Caller caller = accounting_.WithAdminLevel(requester);
  wire::UpdateJobResponse response;
  for (const std::string& text : request.job_ids()) {
    std::string error;
    std::vector<uint32_t> ids = ResolveJobIds(text, &error);
    if (!error.empty()) {
      response.add_errors(fmt::format("{}: {}", text, error));
      continue;
    }
    for (uint32_t id : ids) {
      std::string problem = UpdateOneJob(id, request, caller, now, effects);
      if (!problem.empty()) response.add_errors(fmt::format("{}: {}", id, problem));
    }
  }
  return response;
}

Status JobControl::UpdateNodes(const wire::UpdateNodeRequest& request, const Caller& requester,
                               int64_t now, Effects& effects) {
  const Caller caller = accounting_.WithAdminLevel(requester);
  if (!caller.privileged) return Status(StatusCode::kPermissionDenied, kPermissionDenied);
  Result<std::vector<std::string>> names = ExpandHostlist(request.nodes());
  if (!names.ok()) return InvalidArgument(kInvalidNodeName);
  for (const std::string& name : *names) {
    if (nodes_.Find(name) == nullptr) return InvalidArgument(kInvalidNodeName);
  }
  std::string state = ToUpper(request.state());
  bool takes_reason = state == "DRAIN" || state == "DOWN";
  if (takes_reason && request.reason().empty()) {
    return InvalidArgument(
        "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  }
  if (!takes_reason && state != "RESUME" && state != "IDLE" && state != "UNDRAIN" &&
      !state.empty()) {
    return InvalidArgument("Invalid node state specified");
  }
  for (const std::string& name : *names) {
    NodeRuntime* n = nodes_.Find(name);
    if (state == "DRAIN") {
      n->drain = true;
    } else if (state == "DOWN") {
      n->admin_down = true;
    } else if (state == "RESUME" || state == "IDLE" || state == "UNDRAIN") {
      n->drain = false;
      if (state != "UNDRAIN") {
        n->admin_down = false;
        n->down_not_responding = false;
      }
    }
    if (takes_reason) {
      n->reason = request.reason();
      n->reason_time = now;
      n->reason_uid = caller.uid;
    } else if (!state.empty()) {
      n->reason.clear();
      n->reason_time = 0;
      // Hardware that still falls short drains the node again, as in Slurm.
      DrainForShortfall(*n, now);
    }
    PersistNode(*n, now, effects);
    if (state == "DOWN") FailJobsOn(name, now, effects);
  }
  jobs_.Touch();
  return Status::Ok();
}

void JobControl::ResumeJob(wire::JobRecord& job, int64_t now, Effects& effects) {
  effects.signals.push_back(
      {job.job_id(), {job.nodes().begin(), job.nodes().end()}, SIGCONT, false, false});
  // The time limit counts running time: the end moves by the time suspended.
  if (job.end_time() > 0 && job.suspend_time() > 0) {
    job.set_end_time(job.end_time() + (now - job.suspend_time()));
    NoteWake(job.end_time());
  }
  if (job.suspend_time() > 0) {
    job.set_suspended_s(job.suspended_s() + std::max<int64_t>(0, now - job.suspend_time()));
  }
  job.set_state(wire::JOB_STATE_RUNNING);
  job.clear_suspend_time();
  job.clear_preempted_by();
  job.set_suspended_by_admin(false);
  jobs_.Touch();
  Persist(job, effects);
}

std::string JobControl::AdminSuspend(uint32_t job_id, bool suspend, int64_t now, Effects& effects) {
  const wire::JobRecord& current = *jobs_.at(job_id);
  if (suspend) {
    if (current.state() != wire::JOB_STATE_RUNNING) return "Job is not running";
    // An administrator's suspension keeps the whole allocation: the job
    // resumes exactly where it was.
    wire::JobRecord& j = Mutable(job_id);
    effects.signals.push_back(
        {job_id, {j.nodes().begin(), j.nodes().end()}, SIGSTOP, false, false});
    j.set_state(wire::JOB_STATE_SUSPENDED);
    j.set_suspend_time(now);
    j.set_suspended_by_admin(true);
    jobs_.Touch();
    Persist(j, effects);
    return "";
  }
  if (current.state() != wire::JOB_STATE_SUSPENDED) return "Job is not suspended";
  if (!current.suspended_by_admin()) return "Job was suspended by preemption";
  ResumeJob(Mutable(job_id), now, effects);
  return "";
}

}  // namespace rota::ctld
