// `rota why` (proto/why.proto): every cause that holds a pending job, with
// its numbers. Read only. It asks the questions the scheduling pass asks, but
// all of them rather than stopping at the first that holds, so that a user
// sees what would still hold the job once the reported reason is gone.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <set>

#include "common/duration.h"
#include "common/hostlist.h"
#include "common/memory_size.h"
#include "common/strings.h"
#include "ctld/core/backfill_inputs.h"
#include "ctld/core/controller_core.h"
#include "ctld/core/dependency_check.h"
#include "ctld/core/job_shape.h"
#include "ctld/core/queue_order.h"
#include "model/job_state.h"
#include "model/start_forecast.h"
#include "sched/limit_check.h"
#include "sched/scheduling_policy.h"
#include "sched/select.h"

namespace rota::ctld {
namespace {

// How many of the jobs ahead are listed (the nearest ones).
constexpr size_t kMaxAhead = 5;
// How many running jobs whose ends the planned start waits for are named.
constexpr size_t kMaxReleases = 4;

// Whether a pending job competes for nodes, as the main pass decides
// (sched/main_pass.cc): the last pass tried to place it and found no room
// (Resources, ReqNodeNotAvail), or it waits behind one that did (Priority),
// or the pass has not looked at it yet. One held by its own cause (a
// dependency, a begin time, a limit) holds back no one, so it is not "ahead".
bool CompetesForNodes(const wire::JobRecord& j) {
  const model::PendingReason reason(j.reason());
  const std::string_view code = reason.code();
  return code.empty() || code == model::reason::kNone || code == model::reason::kResources ||
         code == model::reason::kPriority || code == model::reason::kReqNodeNotAvail;
}

std::string Count(uint64_t n, std::string_view one) {
  return fmt::format("{} {}{}", n, one, n == 1 ? "" : "s");
}

// "in 25 min", "in 3 h 5 min": relative, so the words do not depend on the
// controller's time zone.
std::string Until(int64_t t, int64_t now) {
  if (t <= now) return "now";
  const int64_t minutes = (t - now + 59) / 60;
  if (minutes < 60) return fmt::format("in {} min", minutes);
  if (minutes < 48 * 60) return fmt::format("in {} h {} min", minutes / 60, minutes % 60);
  return fmt::format("in {} days", minutes / (24 * 60));
}

// 64 rather than 64.000000; two decimals at most.
std::string Number(double v) {
  std::string s = fmt::format("{:.2f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// The job's shape in words: "2 nodes, 8 tasks of 4 CPUs, 4 GPUs of type a100
// per node, 16G memory per node".
std::string DescribeRequest(const JobShape& shape, const sched::ClusterModel& model) {
  const sched::Request& r = shape.request;
  std::vector<std::string> parts;
  parts.push_back(Count(shape.nodes, "node"));
  parts.push_back(fmt::format("{} of {}", Count(r.tasks, "task"), Count(r.cpus_per_task, "CPU")));
  const std::string type = r.gpu_type >= 0 ? " of type " + model.gpu_types.Name(r.gpu_type) : "";
  if (r.gpus_per_node > 0) parts.push_back(Count(r.gpus_per_node, "GPU") + type + " per node");
  if (r.gpus_per_job > 0) parts.push_back(Count(r.gpus_per_job, "GPU") + type + " in all");
  if (r.gpus_per_task > 0) parts.push_back(Count(r.gpus_per_task, "GPU") + type + " per task");
  switch (r.memory) {
    case sched::MemoryRule::kPerNode:
      parts.push_back(FormatMemoryMb(r.mem_mb) + " memory per node");
      break;
    case sched::MemoryRule::kPerCpu:
      parts.push_back(FormatMemoryMb(r.mem_mb) + " memory per CPU");
      break;
    case sched::MemoryRule::kPerGpu:
      parts.push_back(FormatMemoryMb(r.mem_mb) + " memory per GPU");
      break;
    case sched::MemoryRule::kWholeNode:
      parts.push_back("all of each node's memory");
      break;
    case sched::MemoryRule::kNone:
      break;
  }
  if (r.exclusive) parts.push_back("whole nodes (--exclusive)");
  return Join(parts, ", ");
}

// What the job needs of one node: its tasks and GPUs spread over its nodes.
// A node that has this free could be one of the job's nodes now.
sched::Request OneNodeShare(const sched::Request& r, uint32_t nodes) {
  sched::Request share = r;
  nodes = std::max<uint32_t>(nodes, 1);
  share.nodes = 1;
  share.nodes_fixed = true;
  share.max_nodes = 0;
  share.tasks = r.tasks_per_node > 0 ? r.tasks_per_node : (r.tasks + nodes - 1) / nodes;
  if (r.gpus_per_job > 0) {
    share.gpus_per_node = std::max(share.gpus_per_node, (r.gpus_per_job + nodes - 1) / nodes);
    share.gpus_per_job = 0;
  }
  share.required_nodes.clear();
  share.max_leaf_switches = 0;
  return share;
}

// The weighted factors that are not zero: "age=120 fairshare=400 qos=1000".
std::string FormatFactors(const wire::PriorityFactors& w) {
  std::vector<std::string> parts;
  auto add = [&](std::string_view name, double v) {
    std::string text = Number(v);
    if (text != "0") parts.push_back(fmt::format("{}={}", name, text));
  };
  add("site", w.site());
  add("age", w.age());
  add("assoc", w.assoc());
  add("fairshare", w.fairshare());
  add("jobsize", w.job_size());
  add("partition", w.partition());
  add("qos", w.qos());
  if (!w.tres().empty()) parts.push_back("tres=" + w.tres());
  if (w.nice() != 0) parts.push_back(fmt::format("nice={}", w.nice()));
  return Join(parts, " ");
}

// One term as the user wrote it: "afterok:12", "afterok:12_3", "after:12+10".
std::string TermText(const model::DependencyTerm& term) {
  std::string text(model::DependencyTypeName(term.type));
  if (term.type == model::DependencyType::kSingleton) return text;
  text += fmt::format(":{}", term.job_id);
  if (term.array_task_id) text += fmt::format("_{}", *term.array_task_id);
  if (term.delay_secs > 0) text += fmt::format("+{}", term.delay_secs / 60);
  return text;
}

std::string DescribeLimit(const sched::LimitHit& hit) {
  if (hit.limit == "MaxWall") {
    return fmt::format("its time limit ({}) is over the MaxWall of {} ({} min)",
                       hit.asked < 0 ? "UNLIMITED" : Number(hit.asked) + " min", hit.holder,
                       Number(hit.max));
  }
  std::string what = hit.tres.empty() ? hit.limit : fmt::format("{}={}", hit.limit, hit.tres);
  std::string unit = hit.tres.empty() ? " jobs" : hit.limit.ends_with("Mins") ? " TRES-min" : "";
  return fmt::format("{} of {}: running jobs hold {}{}, this job adds {}, the limit is {}", what,
                     hit.holder, Number(hit.used), unit, Number(hit.asked), Number(hit.max));
}

// Why a job that fits on what is free now did not start: the last backfill
// pass holds some of those nodes for jobs ahead of it (`ahead`, farthest
// first), planned to start before its own planned run would end. "" when no
// plan of a job ahead explains it.
std::string HeldForJobsAhead(const wire::JobRecord& job,
                             const std::vector<const wire::JobRecord*>& ahead,
                             const std::set<std::string>& fit_now_nodes, bool predictions,
                             int64_t now) {
  const int64_t duration = PlannedDuration(job, predictions);
  std::vector<std::string> holds;
  for (auto it = ahead.rbegin(); it != ahead.rend() && holds.size() < kMaxReleases; ++it) {
    const wire::JobRecord& a = **it;
    const int64_t start = a.sched_start_time();
    if (start <= 0 || (duration >= 0 && now + duration <= start)) continue;
    Result<std::vector<std::string>> planned = ExpandHostlist(a.sched_nodes());
    if (!planned.ok()) continue;
    std::vector<std::string> held;
    for (const std::string& node : *planned) {
      if (fit_now_nodes.count(node) > 0) held.push_back(node);
    }
    if (held.empty()) continue;
    const std::string other_partition = a.spec().partition() == job.spec().partition()
                                            ? ""
                                            : fmt::format(" (partition {})", a.spec().partition());
    holds.push_back(fmt::format("{} for job {}{}, planned to start {}", CompressHostlist(held),
                                a.job_id(), other_partition, Until(start, now)));
  }
  if (holds.empty()) return "";
  const std::string run = duration < 0 ? "its unlimited time limit"
                          : duration != job.time_limit_s()
                              ? "its predicted run of " + FormatDurationScontrol(duration)
                              : "its time limit of " + FormatDurationScontrol(duration);
  return fmt::format(
      "; it fits on what is free now ({}), but the last backfill pass holds {}, and {} would "
      "run past that",
      CompressHostlist(std::vector<std::string>(fit_now_nodes.begin(), fit_now_nodes.end())),
      Join(holds, "; "), run);
}

}  // namespace

Result<wire::WhyResponse> ControllerCore::ExplainJob(uint32_t job_id, int64_t now) const {
  const wire::JobRecord* job = jobs_.Find(job_id);
  if (job == nullptr) return NotFound("Invalid job id specified");
  const wire::JobSpec& spec = job->spec();
  wire::WhyResponse out;
  out.set_job_id(job_id);
  out.set_state(std::string(model::JobStateName(job->state())));
  out.set_reason(job->reason());
  out.set_partition(spec.partition());
  out.set_priority(job->priority());
  if (job->state() != wire::JOB_STATE_PENDING) return out;
  out.set_restarts(job->restart_count());
  out.set_last_preempted(job->preempt_time());

  const model::PendingReason last(job->reason());
  const std::string_view reported = last.code();
  auto add = [&](std::string_view code, std::string text) {
    wire::WhyCause* c = out.add_causes();
    c->set_code(std::string(code));
    c->set_text(std::move(text));
    c->set_reported(code == reported);
  };

  if (job->priority() == 0 && job->reason() == model::reason::kLaunchFailedRequeuedHeld) {
    add(model::reason::kLaunchFailedRequeuedHeld,
        fmt::format("a node's Prolog failed when it was launched (the node is drained: `sinfo "
                    "-R`), so it was requeued held (priority 0); `scontrol release {}` lets it "
                    "be scheduled",
                    job_id));
  } else if (job->priority() == 0) {
    std::string_view code = job->reason() == model::reason::kJobHeldAdmin
                                ? model::reason::kJobHeldAdmin
                                : model::reason::kJobHeldUser;
    add(code, fmt::format("held (priority 0); `scontrol release {}` lets it be scheduled", job_id));
  }
  if (spec.begin_time() > now) {
    add(model::reason::kBeginTime,
        fmt::format("may not start before its begin time, {}", Until(spec.begin_time(), now)));
  }
  if (!spec.reservation().empty()) {
    if (model::PendingReason wait = reservations_.WaitReason(*job, now)) {
      const wire::ReservationRecord* r = reservations().Find(spec.reservation());
      add(wait.code(), r == nullptr
                           ? fmt::format("its reservation {} no longer exists", spec.reservation())
                           : fmt::format("its reservation {} starts {}", spec.reservation(),
                                         Until(r->start_time(), now)));
    }
  }

  // Dependencies, each term with the state of the jobs it names.
  if (!job->dependency_state().empty()) {
    if (Result<model::Dependency> dep = model::ParseDependency(job->dependency_state()); dep.ok()) {
      std::vector<std::string> open;
      for (const model::DependencyTerm& term : dep->terms) {
        std::vector<const wire::JobRecord*> named;
        DependencyTermState state = EvaluateDependencyTerm(jobs_, *job, term, now, &named);
        wire::WhyDependency* d = out.add_dependencies();
        d->set_term(TermText(term));
        d->set_state(state == DependencyTermState::kSatisfied ? "satisfied"
                     : state == DependencyTermState::kNever   ? "never"
                                                              : "waiting");
        for (const wire::JobRecord* other : named) {
          std::string line =
              fmt::format("{} {}", other->job_id(), model::JobStateName(other->state()));
          if (model::IsFinished(other->state())) {
            line += fmt::format(" (exit {})", other->exit_code());
          }
          d->add_jobs(std::move(line));
        }
        if (state != DependencyTermState::kSatisfied) {
          open.push_back(fmt::format("{} ({})", d->term(), d->state()));
        }
      }
      if (model::PendingReason r = DependencyReasonOf(jobs_, *job, now)) {
        add(r.code(), fmt::format("its dependency {} is not satisfied: {}", job->dependency_state(),
                                  Join(open, ", ")));
      }
    } else {
      add(model::reason::kDependencyNeverSatisfied,
          fmt::format("its dependency {} cannot be read", job->dependency_state()));
    }
  }

  const conf::PartitionConfig* partition = config_->FindPartition(spec.partition());
  if (partition == nullptr) {
    add(model::reason::kPartitionConfig,
        fmt::format("its partition {} is not configured", spec.partition()));
  } else {
    if (partition->state == "DOWN" || partition->state == "DRAIN") {
      add(model::reason::kPartitionDown,
          fmt::format("partition {} is {}", partition->name, partition->state));
    } else if (partition->state == "INACTIVE") {
      add(model::reason::kPartitionInactive,
          fmt::format("partition {} is INACTIVE", partition->name));
    }
    if (partition->max_time != kInfiniteDuration &&
        (job->time_limit_s() < 0 || job->time_limit_s() > partition->max_time)) {
      add(model::reason::kPartitionTimeLimit,
          fmt::format("its time limit {} is over partition {}'s MaxTime {}",
                      FormatDurationScontrol(job->time_limit_s()), partition->name,
                      FormatDurationScontrol(partition->max_time)));
    }
    if (partition->max_nodes != conf::kUnlimitedCount && job->req_nodes() > partition->max_nodes) {
      add(model::reason::kPartitionNodeLimit,
          fmt::format("it needs {}; partition {}'s MaxNodes is {}", Count(job->req_nodes(), "node"),
                      partition->name, partition->max_nodes));
    }
  }

  // QoS and association limits, with what running jobs hold.
  if (std::unique_ptr<sched::LimitUsage> usage = accounting_.RunningUsage(usage_ledger(), now)) {
    if (std::optional<sched::LimitHit> hit = accounting_.LimitHitOf(*usage, *job)) {
      wire::WhyLimit* l = out.add_limits();
      l->set_reason(hit->reason.text());
      l->set_holder(hit->holder);
      l->set_limit(hit->limit);
      l->set_tres(hit->tres);
      l->set_used(hit->used);
      l->set_asked(hit->asked);
      l->set_max(hit->max);
      add(hit->reason.code(), DescribeLimit(*hit));
    }
  }
  if (!spec.licenses().empty() && !LicensesInUse(*config_, jobs_).Available(spec)) {
    add(model::reason::kLicenses,
        fmt::format("it needs licenses {}; not all of them are free now", spec.licenses()));
  }

  // Resources: its share of one node against every node of the partition.
  bool fits_now = false;                // The whole request fits on free resources now
  std::set<std::string> fit_now_nodes;  // Where its share of one node is free now
  if (partition != nullptr) {
    Result<JobShape> shape = jobs_.ShapeOf(*job, *partition, *config_, nodes_.model());
    if (shape.ok()) {
      const sched::ClusterModel& model = nodes_.model();
      out.set_request(DescribeRequest(*shape, model));
      out.set_nodes_needed(shape->nodes);
      const sched::Request share = OneNodeShare(shape->request, shape->nodes);
      // -w: the nodes it must include. When they are all the nodes it needs,
      // no other node can hold any of it.
      const std::vector<uint32_t>& required = shape->request.required_nodes;
      const bool only_required = NamesAllItsNodes(*shape);
      std::vector<std::string> required_names;
      uint32_t fit_now = 0;
      uint32_t fit_idle = 0;
      std::vector<std::string> unusable;
      std::vector<uint32_t> usable;
      const std::vector<uint32_t> members = PartitionNodeIndices(*partition, model);
      for (uint32_t i : members) {
        const NodeRuntime& n = nodes_.nodes()[i];
        const sched::NodeUsage& u = nodes_.usage()[i];
        wire::WhyNode* w = out.add_nodes();
        w->set_name(n.config->name);
        w->set_usable(n.Usable());
        w->set_state(n.StateName());
        w->set_free_cpus(u.free_count * model.nodes[i].cpus_per_slot());
        w->set_free_gpus(static_cast<uint32_t>(std::popcount(u.free_gpus)));
        w->set_free_mem_mb(u.free_mem_mb);
        const bool is_required = std::find(required.begin(), required.end(), i) != required.end();
        if (is_required) required_names.push_back(n.config->name);
        const bool allowed = is_required || !only_required;
        w->set_fits_when_idle(
            allowed && sched::Select(model, model.empty_usage, {i}, share).allocation.has_value());
        w->set_fits_now(allowed && n.Usable() &&
                        sched::Select(model, nodes_.usage(), {i}, share).allocation.has_value());
        fit_now += w->fits_now();
        if (w->fits_now()) fit_now_nodes.insert(n.config->name);
        fit_idle += w->fits_when_idle();
        if (n.Usable()) {
          usable.push_back(i);
        } else {
          unusable.push_back(n.config->name);
        }
      }
      fits_now =
          sched::Select(model, nodes_.usage(), usable, shape->request).allocation.has_value();
      if (!fits_now) {
        std::string text = fmt::format(
            "it needs {}; {} of the {} nodes of partition {} {} its share of one node free now",
            out.request(), fit_now, members.size(), partition->name, fit_now == 1 ? "has" : "have");
        // Which of them are down or drained, the list of unusable nodes below says.
        if (!required.empty()) {
          text += fmt::format("; it must run on {} (--nodelist)", CompressHostlist(required_names));
        }
        if (fit_idle < shape->nodes) {
          text += fmt::format("; only {} could ever hold it as configured", fit_idle);
        }
        if (!unusable.empty()) {
          text +=
              fmt::format("; {} not usable: {}",
                          unusable.size() == 1 ? "1 is" : fmt::format("{} are", unusable.size()),
                          CompressHostlist(unusable));
        }
        std::string_view code = reported == model::reason::kReqNodeNotAvail ||
                                        reported == model::reason::kReservedForMaintenance
                                    ? reported
                                    : model::reason::kResources;
        add(code, std::move(text));
      }
    }
  }

  if (scheduling_policy_.predict_runtime) {
    out.set_predicted_run_s(job->spec().expected_run_s());
  }
  // The plan of the last backfill pass, and the running jobs whose ends it awaits.
  if (job->sched_start_time() > 0) {
    out.set_planned_start(job->sched_start_time());
    out.set_planned_nodes(job->sched_nodes());
    if (std::optional<model::StartRange> range =
            model::ForecastRange(job->sched_start_time(), now, forecasts_.Ratios())) {
      out.set_start_p50(range->p50);
      out.set_start_p90(range->p90);
    }
    std::vector<std::string> planned = ExpandHostlist(job->sched_nodes()).value_or({});
    std::vector<std::string> words;
    for (const auto& [id, other] : jobs_) {
      if (other->state() != wire::JOB_STATE_RUNNING &&
          other->state() != wire::JOB_STATE_COMPLETING) {
        continue;
      }
      // As the backfill pass planned it: at its limit, or at its predicted end.
      const int64_t ends = PlannedEnd(*other, now, scheduling_policy_.predict_runtime);
      if (ends > job->sched_start_time()) continue;
      const bool predicted = ends < other->end_time();
      for (const std::string& node : other->nodes()) {
        if (std::find(planned.begin(), planned.end(), node) == planned.end()) continue;
        wire::WhyRelease* r = out.add_releases();
        r->set_node(node);
        r->set_job_id(id);
        r->set_time(ends);
        r->set_user(other->spec().user());
        r->set_predicted(predicted);
        if (words.size() < kMaxReleases) {
          words.push_back(
              fmt::format("{} frees {} when job {} {}", node, Until(ends, now), id,
                          predicted ? "is predicted to end" : "reaches its time limit"));
        }
      }
    }
    std::string text = fmt::format("the last backfill pass plans it to start {} on {}",
                                   Until(job->sched_start_time(), now), job->sched_nodes());
    if (!words.empty()) text += ": " + Join(words, "; ");
    for (wire::WhyCause& c : *out.mutable_causes()) {
      if (c.code() == model::reason::kResources) c.set_text(c.text() + "; " + text);
    }
  }

  // The jobs ahead of it that compete for nodes, in the order both passes use
  // (every partition's: a higher tier's jobs are served first). A job too
  // young or of too low a priority to reserve (bf_min_age_reserve,
  // bf_min_prio_reserve) holds back no one. Its rank is among the jobs whose
  // misfit holds it back in the main pass (sched/main_pass.h): its
  // reservation's, else its partition's outside reservations. Any of them
  // may hold the nodes it fits on.
  if (job->priority() != 0) {
    std::vector<const wire::JobRecord*> everyone;
    for (const auto& [id, other] : jobs_) {
      if (other->state() == wire::JOB_STATE_PENDING && other->priority() != 0 &&
          (other.get() == job ||
           (CompetesForNodes(*other) &&
            sched::MayReserve(scheduling_policy_, now - other->eligible_time(),
                              other->priority())))) {
        everyone.push_back(other.get());
      }
    }
    SortQueue(everyone, *config_);
    const auto at = std::find(everyone.begin(), everyone.end(), job);
    const std::vector<const wire::JobRecord*> ahead_anywhere(everyone.begin(), at);
    // A job that named every node it needs holds back no one in the main
    // pass (only its nodes are kept off): not ahead in the queue.
    auto names_its_nodes = [&](const wire::JobRecord& other) {
      const conf::PartitionConfig* p = config_->FindPartition(other.spec().partition());
      return p != nullptr && !jobs_.PinnedNodes(other, *p, *config_, nodes_.model()).empty();
    };
    const std::string& reservation = spec.reservation();
    std::vector<const wire::JobRecord*> queue;  // Its partition's, or its reservation's
    for (const wire::JobRecord* other : everyone) {
      const bool same = reservation.empty() ? other->spec().reservation().empty() &&
                                                  other->spec().partition() == spec.partition()
                                            : other->spec().reservation() == reservation;
      if (same && (other == job || !names_its_nodes(*other))) queue.push_back(other);
    }
    const std::string queue_name =
        reservation.empty() ? "partition " + spec.partition() : "reservation " + reservation;
    const size_t rank =
        static_cast<size_t>(std::find(queue.begin(), queue.end(), job) - queue.begin());
    out.set_rank(static_cast<uint32_t>(rank + 1));
    out.set_queued(static_cast<uint32_t>(queue.size()));
    wire::PriorityRequest ask;
    ask.add_job_ids(job_id);
    for (size_t k = rank; k > 0 && rank - k < kMaxAhead; --k) {
      const wire::JobRecord* ahead = queue[k - 1];
      wire::WhyJobAhead* a = out.add_ahead();
      a->set_job_id(ahead->job_id());
      a->set_user(ahead->spec().user());
      a->set_priority(ahead->priority());
      ask.add_job_ids(ahead->job_id());
    }
    if (config_->settings.priority_type == "priority/multifactor") {
      wire::PriorityResponse factors = DescribePriorities(ask, now);
      for (const wire::PriorityRow& row : factors.rows()) {
        std::string text = FormatFactors(row.weighted());
        if (row.job_id() == job_id) out.set_factors(text);
        for (wire::WhyJobAhead& a : *out.mutable_ahead()) {
          if (a.job_id() == row.job_id()) a.set_factors(text);
        }
      }
    }
    const std::string held = fits_now ? HeldForJobsAhead(*job, ahead_anywhere, fit_now_nodes,
                                                         scheduling_policy_.predict_runtime, now)
                                      : "";
    if (rank > 0) {
      const wire::WhyJobAhead& next = out.ahead(0);
      add(model::reason::kPriority,
          fmt::format("{} of {} {} ahead of it (it is {} of {}); the nearest is job "
                      "{} of {} with priority {}{}",
                      Count(rank, "pending job"), queue_name, rank == 1 ? "is" : "are", rank + 1,
                      queue.size(), next.job_id(), next.user(), next.priority(), held));
    } else if (!held.empty()) {
      // First of its partition, behind a job of an overlapping one.
      add(model::reason::kPriority,
          fmt::format("it is first of {}'s {}, but jobs of other partitions sharing "
                      "its nodes come before it{}",
                      queue_name, Count(queue.size(), "pending job"), held));
    }
  }

  AddWhatIf(*job, now, out);

  // The reason the scheduler reported is always among the causes.
  const bool covered = std::any_of(out.causes().begin(), out.causes().end(),
                                   [](const wire::WhyCause& c) { return c.reported(); });
  if (!covered && !reported.empty() && reported != model::reason::kNone) {
    add(reported, fmt::format("the last scheduling pass reported {}", job->reason()));
  }
  return out;
}

}  // namespace rota::ctld
