// The accounting policy in the controller (accounting_policy.h); the rules
// themselves are in sched/policy_table.cc and sched/limit_check.cc.
#include "ctld/core/accounting_policy.h"

#include <algorithm>
#include <map>

#include "common/strings.h"
#include "ctld/core/accounting_records.h"
#include "model/index_set.h"
#include "sched/limit_check.h"

namespace rota::ctld {
namespace {

constexpr char kInvalidAccount[] = "Invalid account or account/partition combination specified";
constexpr char kInvalidQos[] = "Invalid qos specification";
constexpr char kGroupNotPermitted[] = "User's group not permitted to use this partition";
// Slurm's QoS for jobs that name none.
constexpr char kDefaultQos[] = "normal";

// The policy's content in a fixed order (map fields are unordered on the
// wire), to tell whether a fetch changed anything.
std::string Canonical(const wire::PolicyState& state) {
  std::string out;
  for (const wire::PolicyEntity& e : state.entities()) {
    out += e.kind() + '\0' + e.name() + '\0';
    std::map<std::string, std::string> fields(e.fields().begin(), e.fields().end());
    for (const auto& [k, v] : fields) out += k + '=' + v + '\0';
    out += '\n';
  }
  return out;
}

bool Listed(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

bool Holds(wire::JobState s) {
  return s == wire::JOB_STATE_RUNNING || s == wire::JOB_STATE_SUSPENDED;
}

bool Active(wire::JobState s) {
  return Holds(s) || s == wire::JOB_STATE_PENDING || s == wire::JOB_STATE_COMPLETING;
}

sched::JobDemand DemandOf(const conf::ClusterConfig& config, const wire::JobRecord& job) {
  sched::JobDemand d;
  d.user = job.spec().user();
  d.account = job.spec().account();
  d.qos = JobQos(job.spec());
  d.tres = job.nodes().empty() ? RequestedTresCounts(config, job)
                               : TrackedTresCounts(config, job.alloc_tres());
  d.time_limit_s = job.time_limit_s();
  return d;
}

// How many jobs a record stands for: an array's pending tasks, or one.
uint32_t JobCount(const wire::JobRecord& job) {
  if (!job.array_meta()) return 1;
  return static_cast<uint32_t>(model::IndexSet::Parse(job.array_pending()).value_or({}).size());
}

}  // namespace

AccountingPolicy::AccountingPolicy(std::shared_ptr<const conf::ClusterConfig> config,
                                   const JobTable& jobs)
    : jobs_(jobs) {
  Reconfigure(std::move(config));
}

void AccountingPolicy::Reconfigure(std::shared_ptr<const conf::ClusterConfig> config) {
  config_ = std::move(config);
  enforcement_ = Enforcement::FromSettings(config_->settings.accounting_storage_enforce);
}

void AccountingPolicy::Restore(const wire::PolicyState& state) {
  table_ = PolicyTable::FromState(state);
}

bool AccountingPolicy::Set(wire::PolicyState state, Effects& effects) {
  if (table_ && Canonical(table_->state()) == Canonical(state)) return false;
  *effects.records.emplace_back().mutable_policy() = state;
  table_ = PolicyTable::FromState(std::move(state));
  return true;
}

Caller AccountingPolicy::WithAdminLevel(const Caller& caller) const {
  if (caller.privileged || table_ == nullptr) return caller;
  const UserPolicy* user = table_->FindUser(caller.user);
  if (user == nullptr || user->admin_level == AdminLevel::kNone) return caller;
  Caller elevated = caller;
  elevated.privileged = true;
  return elevated;
}

std::optional<uint32_t> AccountingPolicy::JobsVisibleOnlyTo(const Caller& caller) const {
  const std::vector<std::string>& hidden = config_->settings.private_data;
  if (std::find(hidden.begin(), hidden.end(), "jobs") == hidden.end()) return std::nullopt;
  if (WithAdminLevel(caller).privileged) return std::nullopt;
  return caller.uid;
}

Status AccountingPolicy::CheckAtSubmit(wire::JobSpec& spec, const conf::PartitionConfig& partition,
                                       const Caller& caller) const {
  const bool enforce = table_ != nullptr && enforcement_.associations;
  if (enforce) {
    if (spec.account().empty()) {
      const UserPolicy* user = table_->FindUser(spec.user());
      if (user != nullptr) spec.set_account(user->default_account);
    }
    if (!table_->HasAssociation(spec.user(), spec.account())) {
      return InvalidArgument(kInvalidAccount);
    }
    if (!spec.qos().empty() && table_->FindQos(spec.qos()) == nullptr) {
      return InvalidArgument(kInvalidQos);
    }
    if (spec.qos().empty()) {
      // The association's DefaultQOS; "normal" stays implicit, as before.
      std::string def = table_->DefaultQos(spec.user(), spec.account());
      if (def != kDefaultQos && table_->FindQos(def) == nullptr) {
        return InvalidArgument(kInvalidQos);
      }
      if (def != kDefaultQos) spec.set_qos(def);
    }
    if (enforcement_.qos) {
      // The QoS must be in the association's list (when any sets one).
      std::optional<std::vector<std::string>> allowed =
          table_->AllowedQos(spec.user(), spec.account());
      if (allowed && !Listed(*allowed, JobQos(spec))) {
        return InvalidArgument(kInvalidQos);
      }
    }
  }
  // The partition's access lists are slurm.conf's: they hold whatever
  // accounting enforces. Only the primary group is known here.
  if (!partition.allow_groups.empty() && !caller.privileged &&
      !Listed(partition.allow_groups, caller.group)) {
    return Status(StatusCode::kPermissionDenied, kGroupNotPermitted);
  }
  if ((!partition.allow_accounts.empty() && !Listed(partition.allow_accounts, spec.account())) ||
      Listed(partition.deny_accounts, spec.account())) {
    return InvalidArgument(kInvalidAccount);
  }
  const std::string& qos = JobQos(spec);
  if ((!partition.allow_qos.empty() && !Listed(partition.allow_qos, qos)) ||
      Listed(partition.deny_qos, qos)) {
    return InvalidArgument(kInvalidQos);
  }
  return Status::Ok();
}

Status AccountingPolicy::CheckLimitsAtSubmit(const wire::JobRecord& job, uint32_t jobs) const {
  if (table_ == nullptr || !enforcement_.limits) return Status::Ok();
  sched::JobDemand demand = DemandOf(*config_, job);
  const QosPolicy* qos = table_->FindQos(demand.qos);
  if (!sched::HasSubmitLimits(*table_, demand) && (qos == nullptr || !qos->deny_on_limit)) {
    return Status::Ok();
  }
  sched::LimitUsage active(table_);
  for (const auto& [id, live] : jobs_.live()) {
    const JobTable::Ptr& other = *live;
    if (Active(other->state()) && other->spec().user() == demand.user) {
      active.Add(DemandOf(*config_, *other), JobCount(*other));
    } else if (Active(other->state())) {
      // Group limits count everyone's jobs; only their counts matter here.
      sched::JobDemand d;
      d.user = other->spec().user();
      d.account = other->spec().account();
      d.qos = JobQos(other->spec());
      active.Add(d, JobCount(*other));
    }
  }
  return sched::CheckSubmitLimits(active, demand, jobs);
}

std::unique_ptr<sched::LimitUsage> AccountingPolicy::RunningUsage(const sched::UsageLedger& ledger,
                                                                  int64_t now) const {
  if (table_ == nullptr || !enforcement_.limits || !table_->has_start_limits()) return nullptr;
  auto usage = std::make_unique<sched::LimitUsage>(table_);
  if (table_->has_tres_mins_limits()) usage->SetTresMinutes(&ledger, enforcement_.safe);
  for (const auto& [id, live] : jobs_.live()) {
    const JobTable::Ptr& job = *live;
    if (!Holds(job->state())) continue;
    sched::JobDemand d = DemandOf(*config_, *job);
    // What is left of its time limit (GrpTRESRunMins); none set: unbounded.
    if (job->end_time() > 0) d.remaining_s = std::max<int64_t>(job->end_time() - now, 0);
    usage->Add(d);
  }
  return usage;
}

model::PendingReason AccountingPolicy::LimitReason(const sched::LimitUsage* usage,
                                                   const wire::JobRecord& job) const {
  if (usage == nullptr) return "";
  return sched::StartLimitReason(*usage, DemandOf(*config_, job));
}

std::optional<sched::LimitHit> AccountingPolicy::LimitHitOf(const sched::LimitUsage& usage,
                                                            const wire::JobRecord& job) const {
  return sched::StartLimitHit(usage, DemandOf(*config_, job));
}

void AccountingPolicy::CountStarted(sched::LimitUsage* usage, const wire::JobRecord& job) const {
  if (usage != nullptr) usage->Add(DemandOf(*config_, job));
}

Status AccountingPolicy::CheckQosKnown(const wire::JobSpec& spec) const {
  if (spec.qos().empty() || (table_ != nullptr && enforcement_.any())) return Status::Ok();
  // Unless accounting's policy defines QoS, "normal" and those partitions name are known.
  bool known = spec.qos() == kDefaultQos;
  for (const conf::PartitionConfig& p : config_->partitions) known |= p.qos == spec.qos();
  return known ? Status::Ok() : InvalidArgument(kInvalidQos);
}

}  // namespace rota::ctld
