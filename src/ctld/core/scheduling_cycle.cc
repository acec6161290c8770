// The main pass of SchedulingCycle (scheduling_cycle.h).
#include "ctld/core/scheduling_cycle.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "common/hostlist.h"
#include "ctld/core/dependency_check.h"
#include "ctld/core/job_mail.h"
#include "ctld/core/job_shape.h"
#include "ctld/core/license_pool.h"
#include "ctld/core/partition_cpu_cap.h"
#include "ctld/core/queue_order.h"
#include "model/job_state.h"
#include "sched/limit_check.h"
#include "sched/main_pass.h"
#include "sched/select.h"

namespace rota::ctld {

void SchedulingCycle::Run(int64_t now, Effects& effects) {
  MainPass(now, effects);
  BackfillPass(now, effects);
}

bool SchedulingCycle::KilledForInvalidDependency(const wire::JobRecord& job,
                                                 const model::PendingReason& reason) const {
  if (reason.code() != model::reason::kDependencyNeverSatisfied) return false;
  const int32_t asked = job.spec().kill_on_invalid_dep();  // 0: the cluster decides
  return asked == 1 || (asked == 0 && config().settings.scheduler.kill_invalid_depend);
}

uint32_t SchedulingCycle::RunningArrayTasks(uint32_t array_job_id) const {
  uint32_t n = 0;
  for (const auto& [id, live] : p_.jobs.live()) {
    const JobTable::Ptr& job = *live;
    if (job->array_job_id() == array_job_id && !job->array_meta() &&
        (job->state() == wire::JOB_STATE_RUNNING || job->state() == wire::JOB_STATE_SUSPENDED)) {
      ++n;
    }
  }
  return n;
}

bool SchedulingCycle::TryStart(uint32_t job_id, int64_t now, Effects& effects,
                               const std::vector<bool>* kept_off, model::PendingReason* reason) {
  const wire::JobRecord& pending = *p_.jobs.at(job_id);
  const conf::PartitionConfig* partition = config().FindPartition(pending.spec().partition());
  Result<JobShape> shape = p_.jobs.ShapeOf(pending, *partition, config(), p_.nodes.model());
  if (!shape.ok()) {
    *reason = model::reason::kPartitionConfig;
    return false;
  }
  sched::Request& req = shape->request;
  // --switches=N@T: after T pending, take what the topology offers.
  req.switches_wait_over =
      shape->switches_wait_s >= 0 && now - pending.eligible_time() >= shape->switches_wait_s;
  NodeTable::Candidates c = p_.nodes.CandidatesIn(*partition);
  const bool any_usable = !c.usable.empty();  // Before the pass's own exclusions
  if (kept_off != nullptr) std::erase_if(c.usable, [&](uint32_t n) { return (*kept_off)[n]; });
  p_.preemption.DropHeld(job_id, c.usable);
  const bool maint = p_.reservations.FilterReserved(pending, now, c.usable);
  if (sched::gang::RowsOf(config(), *partition) > 0) {  // Time-sliced: shares cores with other rows
    if (p_.gang.TryStart(config(), job_id, req, c.usable, now, effects)) return true;
    *reason = maint ? model::reason::kReservedForMaintenance : model::reason::kResources;
    return false;
  }
  // MaxCPUsPerNode: what the partition's jobs hold now, this pass's starts included.
  PartitionCpuCap cap(*partition, p_.nodes.model());
  if (cap.capped()) {
    for (const auto& [id, job] : p_.jobs) cap.Count(*job);
  }
  sched::Selection selection =
      cap.capped() ? SelectWithinCap(p_.nodes.model(), p_.nodes.usage(), c.usable, req, cap)
                   : sched::Select(p_.nodes.model(), p_.nodes.usage(), c.usable, req);
  if (!selection.allocation) {
    if (maint) {
      *reason = model::reason::kReservedForMaintenance;
      return false;
    }
    bool required_down = std::any_of(req.required_nodes.begin(), req.required_nodes.end(),
                                     [&](uint32_t n) { return !p_.nodes.nodes()[n].Usable(); });
    bool blocked_by_down = !c.unavailable.empty() && (!any_usable || required_down);
    *reason = blocked_by_down ? model::PendingReason::WithDetail(
                                    model::reason::kReqNodeNotAvail,
                                    "UnavailableNodes:" + CompressHostlist(c.unavailable))
                              : model::PendingReason(model::reason::kResources);
    return false;
  }

  p_.lifecycle.StartOn(job_id, *selection.allocation, now, effects, /*launch=*/true);
  return true;
}

// The facts and acts of the main pass (sched/main_pass.h) over the tables.
class SchedulingCycle::MainPassOverTables final : public sched::MainPassActions {
 public:
  MainPassOverTables(SchedulingCycle& cycle, int64_t now, Effects& effects)
      : c_(cycle),
        p_(cycle.p_),
        now_(now),
        effects_(effects),
        usage_(p_.accounting.RunningUsage(p_.ledger, now)),
        licenses_(LicensesInUse(cycle.config(), p_.jobs)) {}

  // Pending jobs (held ones, priority 0, keep their reason and need no place
  // in the order) in queue order; also notes the nodes held for preemptors.
  void BuildQueue() {
    for (const auto& [id, live] : p_.jobs.live()) {
      const JobTable::Ptr& job = *live;
      if (job->state() == wire::JOB_STATE_PENDING && job->priority() != 0) {
        records_.push_back(job.get());
        if (job->preempt_nodes_size() > 0) p_.preemption.NoteHold(*job);
      }
    }
    SortQueue(records_, c_.config());
    // Partitions by name, looked up once per run of equal names (the queue is
    // mostly one partition).
    const std::vector<conf::PartitionConfig>& partitions = c_.config().partitions;
    const conf::PartitionConfig* last = nullptr;
    std::unordered_map<std::string_view, uint32_t> reservations;  // Name to a small id
    for (const wire::JobRecord* job : records_) {
      const conf::PartitionConfig* partition = last;
      if (partition == nullptr || partition->name != job->spec().partition()) {
        partition = c_.config().FindPartition(job->spec().partition());
        if (partition != nullptr) last = partition;
      }
      partitions_.push_back(partition);
      sched::MainPassJob& q = queue_.emplace_back();
      q.id = job->job_id();
      // An unknown partition is held (PartitionConfig) before it could block.
      q.partition = static_cast<uint32_t>(partition != nullptr ? partition - partitions.data()
                                                               : partitions.size());
      q.array = job->array_meta();
      q.holds_nodes = job->preempt_nodes_size() > 0;
      q.in_reservation = !job->spec().reservation().empty();
      if (q.in_reservation) {
        q.reservation =
            reservations
                .try_emplace(job->spec().reservation(), static_cast<uint32_t>(reservations.size()))
                .first->second;
      }
      q.may_reserve = sched::MayReserve(p_.policy, now_ - job->eligible_time(), job->priority());
    }
  }
  const std::vector<sched::MainPassJob>& queue() const { return queue_; }

  model::PendingReason Hold(const sched::MainPassJob& q, bool* gone) override {
    // Records in the queue stay alive for the pass (a published view or the
    // table holds them). Only the job being decided changes, and what is read
    // of it after a change (limits, node counts, array fields) is not what
    // changed; so the pass reads the record it queued.
    const wire::JobRecord& job = Record(q);
    const uint32_t id = q.id;
    if (job.state() != wire::JOB_STATE_PENDING) {
      *gone = true;
      return {};
    }
    const wire::JobSpec& spec = job.spec();
    if (spec.deadline() > 0 && now_ > spec.deadline()) {
      wire::JobRecord& j = p_.jobs.Mutable(id);
      j.set_reason(std::string(model::reason::kDeadline));
      j.set_state(wire::JOB_STATE_DEADLINE);
      j.set_end_time(now_);
      p_.lifecycle.Persist(j, effects_);
      *gone = true;
      return {};
    }
    if (spec.begin_time() > now_) return model::reason::kBeginTime;
    if (!spec.reservation().empty()) {
      if (model::PendingReason wait = p_.reservations.WaitReason(job, now_)) return wait;
    }
    if (model::PendingReason dep = DependencyReasonOf(p_.jobs, job, now_)) {
      if (c_.KilledForInvalidDependency(job, dep)) {
        // Slurm's kill_invalid_depend: the job ends CANCELLED, keeping the
        // reason that says why.
        const std::string& cluster = c_.config().settings.cluster_name;
        wire::JobRecord& j = p_.jobs.Mutable(id);
        j.set_reason(std::string(model::reason::kDependencyNeverSatisfied));
        j.set_state(wire::JOB_STATE_CANCELLED);
        j.set_end_time(now_);
        AddJobMail(j, model::kMailInvalidDepend, now_, cluster, effects_);
        if (std::optional<model::MailEvent> mail = EndMailEvent(j, j.state())) {
          AddJobMail(j, *mail, now_, cluster, effects_);
        }
        p_.lifecycle.Persist(j, effects_);
        *gone = true;
        return {};
      }
      return dep;
    }
    if (!job.dependency_state().empty()) {
      wire::JobRecord& j = p_.jobs.Mutable(id);
      j.clear_dependency_state();
      p_.lifecycle.Persist(j, effects_);
    }
    const conf::PartitionConfig* partition = Partition(q);
    if (partition == nullptr) return model::reason::kPartitionConfig;
    if (partition->state == "DOWN" || partition->state == "DRAIN") {
      return model::reason::kPartitionDown;
    }
    if (partition->state == "INACTIVE") return model::reason::kPartitionInactive;
    bool over_time = partition->max_time != kInfiniteDuration &&
                     (job.time_limit_s() < 0 || job.time_limit_s() > partition->max_time);
    if (over_time) return model::reason::kPartitionTimeLimit;
    if (partition->max_nodes != conf::kUnlimitedCount && job.req_nodes() > partition->max_nodes) {
      return model::reason::kPartitionNodeLimit;
    }
    if (job.req_nodes() > partition->nodes.size()) return model::reason::kPartitionConfig;
    // A job held by a limit, or waiting for licenses, holds back no one (as in Slurm).
    if (model::PendingReason held = p_.accounting.LimitReason(usage_.get(), job)) return held;
    if (!licenses_.Available(spec)) return model::reason::kLicenses;
    return {};
  }

  sched::NextStart Next(const sched::MainPassJob& q, uint32_t started,
                        model::PendingReason* reason) override {
    auto it = p_.jobs.find(q.id);
    next_ = it;  // TryStart's, when it follows
    if (it == p_.jobs.end() || it->second->state() != wire::JOB_STATE_PENDING) {
      return sched::NextStart::kDone;
    }
    if (q.array && !it->second->array_meta()) return sched::NextStart::kDone;
    if (started == 0) running_tasks_ = q.array ? c_.RunningArrayTasks(q.id) : 0;
    const uint32_t limit = Record(q).array_max_running();
    if (q.array && limit > 0 && running_tasks_ >= limit) {
      *reason = model::reason::kJobArrayTaskLimit;
      return sched::NextStart::kHeld;
    }
    if (started > 0) {  // The array's next task, after the ones started in this pass
      if (model::PendingReason held = p_.accounting.LimitReason(usage_.get(), *it->second)) {
        *reason = std::move(held);
        return sched::NextStart::kHeld;
      }
      if (!licenses_.Available(Record(q).spec())) {
        *reason = model::reason::kLicenses;
        return sched::NextStart::kHeld;
      }
    }
    return sched::NextStart::kTry;
  }

  bool TryStart(const sched::MainPassJob& q, bool keep_off, model::PendingReason* reason) override {
    if (!c_.TryStart(q.id, now_, effects_, keep_off ? &kept_off_ : nullptr, reason)) return false;
    ++running_tasks_;
    licenses_.Take(Record(q).spec());
    // The map's entry found by Next (a std::map: a start that splits an
    // array task off inserts without moving it).
    p_.accounting.CountStarted(usage_.get(), *next_->second);
    return true;
  }

  bool Pinned(const sched::MainPassJob& q) override { return !PinnedNodes(q).empty(); }

  void KeepOff(const sched::MainPassJob& q, bool pinned) override {
    const conf::PartitionConfig* partition = Partition(q);
    if (partition == nullptr) return;
    if (kept_off_.empty()) kept_off_.resize(p_.nodes.nodes().size(), false);
    for (uint32_t n :
         pinned ? PinnedNodes(q) : PartitionNodeIndices(*partition, p_.nodes.model())) {
      kept_off_[n] = true;
    }
  }

  // Under preemption it waits (Resources) while displaced jobs leave.
  void NoFit(const sched::MainPassJob& q) override {
    p_.preemption.TryPreempt(q.id, now_, effects_);
  }

  void Wait(const sched::MainPassJob& q, const model::PendingReason& reason) override {
    if (Record(q).reason() != reason.text()) p_.jobs.Mutable(q.id).set_reason(reason.text());
  }

 private:
  size_t Index(const sched::MainPassJob& q) const {
    return static_cast<size_t>(&q - queue_.data());
  }
  const wire::JobRecord& Record(const sched::MainPassJob& q) const { return *records_[Index(q)]; }
  const conf::PartitionConfig* Partition(const sched::MainPassJob& q) const {
    return partitions_[Index(q)];
  }
  std::vector<uint32_t> PinnedNodes(const sched::MainPassJob& q) const {
    const conf::PartitionConfig* partition = Partition(q);
    if (partition == nullptr) return {};
    return p_.jobs.PinnedNodes(Record(q), *partition, c_.config(), p_.nodes.model());
  }

  SchedulingCycle& c_;
  Parts& p_;
  const int64_t now_;
  Effects& effects_;
  // QoS and association limits (null unless enforced): running jobs, and
  // those started in this pass; licenses likewise.
  std::unique_ptr<sched::LimitUsage> usage_;
  LicensePool licenses_;
  std::vector<const wire::JobRecord*> records_;           // In queue order
  std::vector<const conf::PartitionConfig*> partitions_;  // Each job's; null: unknown
  std::vector<sched::MainPassJob> queue_;
  std::vector<bool> kept_off_;  // By node index: a held-back partition's or -w job's (KeepOff)
  uint32_t running_tasks_ = 0;  // Of the array being decided, this pass's starts included
  JobTable::Map::const_iterator next_;  // The job Next last looked up
};

void SchedulingCycle::MainPass(int64_t now, Effects& effects) {
  const int64_t pass_began = p_.stats.Now();
  p_.preemption.ClearHolds();
  MainPassOverTables pass(*this, now, effects);
  pass.BuildQueue();
  sched::RunMainPass(pass.queue(), pass, p_.policy.main);
  p_.stats.RecordMainCycle(p_.stats.Since(pass_began), pass.queue().size(), pass.queue().size());
}

}  // namespace rota::ctld
