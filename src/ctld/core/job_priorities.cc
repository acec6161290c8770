// JobPriorities (job_priorities.h): a job's priority, their periodic
// recomputation, and the breakdown that sprio shows.

#include "ctld/core/job_priorities.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/strings.h"
#include "ctld/core/multifactor.h"

namespace rota::ctld {
namespace {

bool Listed(const auto& list, const auto& value) {
  return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

std::string FormatFactorTres(const std::vector<std::pair<std::string, double>>& tres) {
  std::string out;
  for (const auto& [key, value] : tres) {
    if (value == 0) continue;
    if (!out.empty()) out += ',';
    out += fmt::format("{}={:.2f}", key, value);
  }
  return out;
}

// priority/basic: earlier submissions first. Leaves room below for --nice.
constexpr int64_t kBasicPriorityTop = 100000000;

}  // namespace

uint32_t JobPriorities::Base(const wire::JobRecord& job) const {
  if (IsMultifactor(*config_)) {
    int64_t now = std::max(clock_.last(), job.submit_time());
    return sched::ComputePriority(Inputs(job), Totals(), MakePrioritySettings(*config_), now)
        .priority;
  }
  uint32_t order = job.array_job_id() != 0 ? job.array_job_id() : job.job_id();
  int64_t p = kBasicPriorityTop - order - job.spec().nice();
  return static_cast<uint32_t>(std::clamp<int64_t>(p, 1, UINT32_MAX));
}

void JobPriorities::ApplyUsageResetNow() {
  if (!EqualsIgnoreCase(config_->settings.priority_usage_reset_period, "NOW")) return;
  fairshare_.ClearNow();
}

std::optional<int64_t> JobPriorities::Recompute(int64_t now, Effects& effects) {
  if (!IsMultifactor(*config_)) return std::nullopt;
  if (int64_t next = 0; !clock_.Due(*config_, now, &next)) return next;
  const int64_t next = clock_.Ran(*config_, now);
  fairshare_.Update(FairshareInputs(), now, effects);
  const sched::PriorityCluster& cluster = Totals();
  const sched::PrioritySettings settings = MakePrioritySettings(*config_);
  for (const auto& [id, job] : jobs_) {
    // Held jobs keep priority 0; an administrator's value stays as set.
    if (job->state() != wire::JOB_STATE_PENDING || job->priority() == 0) continue;
    if (job->priority_fixed()) continue;
    uint32_t p = sched::ComputePriority(Inputs(*job), cluster, settings, now).priority;
    // Only changed records are touched, so readers' views stay shared.
    if (p != job->priority()) jobs_.Mutable(id).set_priority(p);
  }
  return next;
}

wire::PriorityResponse JobPriorities::Describe(const wire::PriorityRequest& request,
                                               int64_t now) const {
  wire::PriorityResponse out;
  out.set_priority_type(config_->settings.priority_type);
  const sched::PrioritySettings settings = MakePrioritySettings(*config_);
  const conf::PriorityWeights& w = settings.weights;
  wire::PriorityWeightsInfo* weights = out.mutable_weights();
  weights->set_site(1);
  weights->set_age(w.age);
  weights->set_assoc(w.assoc);
  weights->set_fairshare(w.fairshare);
  weights->set_job_size(w.job_size);
  weights->set_partition(w.partition);
  weights->set_qos(w.qos);
  weights->set_tres(sched::FormatWeightedTres({w.tres.begin(), w.tres.end()}));
  if (!IsMultifactor(*config_)) return out;
  const sched::PriorityCluster& cluster = Totals();
  for (const auto& [id, job] : jobs_) {
    if (job->state() != wire::JOB_STATE_PENDING) continue;
    if (!Listed(request.job_ids(), id) &&
        !(job->array_job_id() != 0 && Listed(request.job_ids(), job->array_job_id()))) {
      continue;
    }
    if (!Listed(request.users(), job->spec().user())) continue;
    if (!Listed(request.partitions(), job->spec().partition())) continue;
    sched::PriorityBreakdown b = sched::ComputePriority(Inputs(*job), cluster, settings, now);
    wire::PriorityRow* row = out.add_rows();
    row->set_job_id(id);
    row->set_partition(job->spec().partition());
    row->set_user(job->spec().user());
    row->set_priority(job->priority());
    wire::PriorityFactors* wf = row->mutable_weighted();
    wf->set_age(b.weighted_age);
    wf->set_assoc(b.weighted_assoc);
    wf->set_fairshare(b.weighted_fairshare);
    wf->set_job_size(b.weighted_job_size);
    wf->set_partition(b.weighted_partition);
    wf->set_qos(b.weighted_qos);
    wf->set_nice(b.nice);
    wf->set_tres(sched::FormatWeightedTres(b.weighted_tres));
    wire::PriorityFactors* nf = row->mutable_normalized();
    nf->set_age(b.age);
    nf->set_assoc(b.assoc);
    nf->set_fairshare(b.fairshare);
    nf->set_job_size(b.job_size);
    nf->set_partition(b.partition);
    nf->set_qos(b.qos);
    nf->set_nice(b.nice);
    nf->set_tres(FormatFactorTres(b.tres));
  }
  return out;
}

// What the factors read of `job`, its QoS's and association's priority included.
sched::PriorityJob JobPriorities::Inputs(const wire::JobRecord& job) const {
  sched::PriorityJob p = MakePriorityJob(job, *config_);
  if (const PolicyTable* policy = accounting_.table()) {
    const QosPolicy* qos = policy->FindQos(JobQos(job.spec()));
    if (qos != nullptr) p.qos_priority = qos->priority;
    p.assoc_priority = policy->AssocPriority(job.spec().user(), FairshareAccount(job.spec()));
  }
  if (std::optional<double> factor =
          fairshare_.Factor(FairshareAccount(job.spec()), job.spec().user())) {
    p.fairshare = *factor;
  }
  return p;
}

}  // namespace rota::ctld
