// rota why's what-if: the backfill planner asked, on a profile built as the
// backfill pass builds it, when a pending job would start as it is and with its request
// changed (a shorter time limit, fewer GPUs, another partition or GPU type it
// may use, no constraint). The same planner and inputs as the backfill pass
// (backfill_inputs.h), with the queue cut after the job: jobs behind it
// cannot delay it.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "common/duration.h"
#include "ctld/core/backfill_inputs.h"
#include "ctld/core/controller_core.h"
#include "ctld/core/job_shape.h"
#include "ctld/core/queue_ahead_plan.h"
#include "ctld/core/queue_order.h"

namespace rota::ctld {
namespace {

// Most changes listed.
constexpr int kMaxOptions = 8;

struct Variant {
  std::string change;  // As an option
  std::string what;    // In words
  sched::BackfillJob job;
};

// Shorter time limits worth asking about: a half and a quarter of it, an hour
// and a quarter of an hour, in whole minutes, each shorter than `limit_s`
// (-1: none; then a day, four hours and an hour).
std::vector<int64_t> ShorterLimits(int64_t limit_s) {
  std::vector<int64_t> tries = limit_s < 0
                                   ? std::vector<int64_t>{86400, 4 * 3600, 3600}
                                   : std::vector<int64_t>{limit_s / 2, limit_s / 4, 3600, 900};
  std::set<int64_t> out;
  for (int64_t t : tries) {
    t = t / 60 * 60;
    if (t >= 60 && (limit_s < 0 || t < limit_s)) out.insert(t);
  }
  return {out.rbegin(), out.rend()};
}

// "1 GPU", "4 GPUs".
std::string Gpus(uint32_t n) { return fmt::format("{} GPU{}", n, n == 1 ? "" : "s"); }

// Halving a GPU count down to one: 8 -> {4, 1}, 2 -> {1}.
std::vector<uint32_t> FewerGpus(uint32_t n) {
  std::set<uint32_t> out;
  if (n > 1) {
    out.insert(n / 2);
    out.insert(1);
  }
  return {out.rbegin(), out.rend()};
}

}  // namespace

std::optional<QueueAheadPlan> ControllerCore::PlanQueueAhead(const wire::JobRecord& job,
                                                             int64_t now) const {
  if (!scheduling_policy_.backfill || !WaitsForResources(job) ||
      !job.spec().reservation().empty()) {
    return std::nullopt;
  }
  std::optional<QueueAheadPlan> plan;
  plan.emplace(
      *config_, scheduling_policy_, nodes_.model(),
      [this](const conf::PartitionConfig& p) {
        std::vector<uint32_t> usable = nodes_.CandidatesIn(p).usable;
        preemption_.DropHeld(0, usable);  // Kept for a preemptor: never backfilled
        return usable;
      },
      [this, now] { return cycle_.BackfillProfile(now); }, now);
  if (!plan->Gather(cycle_.BackfillQueue(), job, jobs_)) return std::nullopt;
  return plan;
}

std::optional<int64_t> ControllerCore::ForecastStart(uint32_t job_id, int64_t now) const {
  const wire::JobRecord* job = jobs_.Find(job_id);
  if (job == nullptr) return std::nullopt;
  std::optional<QueueAheadPlan> plan = PlanQueueAhead(*job, now);
  if (!plan) return std::nullopt;
  return plan->StartOf(plan->own());
}

void ControllerCore::AddWhatIf(const wire::JobRecord& job, int64_t now,
                               wire::WhyResponse& out) const {
  std::optional<QueueAheadPlan> plan = PlanQueueAhead(job, now);
  if (!plan) return;
  const sched::BackfillJob& own = plan->own();
  const conf::PartitionConfig* partition = config_->FindPartition(job.spec().partition());
  const sched::ClusterModel& model = nodes_.model();

  std::vector<Variant> variants;
  for (int64_t limit : ShorterLimits(own.time_limit_s)) {
    Variant& v =
        variants.emplace_back(Variant{fmt::format("--time={}", limit / 60),
                                      "a time limit of " + FormatDurationScontrol(limit), own});
    v.job.time_limit_s = limit;
  }
  const sched::Request& r = own.request;
  const std::string type = r.gpu_type >= 0 ? model.gpu_types.Name(r.gpu_type) + ":" : "";
  for (uint32_t n : FewerGpus(r.gpus_per_node)) {
    Variant& v = variants.emplace_back(
        Variant{fmt::format("--gpus-per-node={}{}", type, n), Gpus(n) + " per node", own});
    v.job.request.gpus_per_node = n;
  }
  for (uint32_t n : FewerGpus(r.gpus_per_job)) {
    Variant& v = variants.emplace_back(
        Variant{fmt::format("--gpus={}{}", type, n), Gpus(n) + " in all", own});
    v.job.request.gpus_per_job = n;
  }
  for (uint32_t n : FewerGpus(r.gpus_per_task)) {
    Variant& v = variants.emplace_back(
        Variant{fmt::format("--gpus-per-task={}{}", type, n), Gpus(n) + " per task", own});
    v.job.request.gpus_per_task = n;
  }
  if (r.gpu_type >= 0) {
    // Every other GPU type some node of its partition has.
    std::set<int> types;
    for (uint32_t node : *own.candidates) {
      for (const sched::GpuSlot& g : model.nodes[node].gpus) {
        if (g.type != r.gpu_type) types.insert(g.type);
      }
    }
    for (int t : types) {
      const std::string& name = model.gpu_types.Name(t);
      Variant& v = variants.emplace_back(
          Variant{"gpu type " + name, "GPUs of type " + name + " instead", own});
      v.job.request.gpu_type = t;
    }
  }
  if (!r.constraint.empty()) {
    Variant& v = variants.emplace_back(
        Variant{"--constraint=", "without --constraint=" + r.constraint.source(), own});
    v.job.request.constraint = sched::FeatureExpr();
  }
  // Other partitions it may use, as the submission would be judged there.
  const Caller owner{job.spec().uid(), job.spec().gid(), job.spec().user(), job.spec().group(),
                     false};
  for (const conf::PartitionConfig& p : config_->partitions) {
    if (&p == partition || p.state != "UP") continue;
    wire::JobSpec spec = job.spec();
    spec.set_partition(p.name);
    if (!accounting_.CheckAtSubmit(spec, p, owner).ok()) continue;
    Result<JobShape> there = ShapeJob(spec, p, *config_, model);
    if (!there.ok() || !there->partition_reason.empty()) continue;
    sched::BackfillJob moved = BackfillJobOf(job, std::move(*there), plan->CandidatesOf(p),
                                             plan->IndexOf(p), scheduling_policy_, now);
    moved.may_reserve = true;
    variants.push_back(Variant{"--partition=" + p.name, "partition " + p.name, moved});
  }

  const std::optional<int64_t> as_is = plan->StartOf(own);
  out.set_what_if_start(as_is.value_or(0));
  std::vector<wire::WhyOption> options;
  for (const Variant& v : variants) {
    std::optional<int64_t> start = plan->StartOf(v.job);
    if (!start || (as_is && *start >= *as_is)) continue;
    wire::WhyOption& o = options.emplace_back();
    o.set_change(v.change);
    o.set_what(v.what);
    o.set_start(*start);
    o.set_sooner_s(as_is ? *as_is - *start : 0);
  }
  std::stable_sort(
      options.begin(), options.end(),
      [](const wire::WhyOption& a, const wire::WhyOption& b) { return a.start() < b.start(); });
  if (options.size() > kMaxOptions) options.resize(kMaxOptions);
  for (wire::WhyOption& o : options) *out.add_options() = std::move(o);
}

}  // namespace rota::ctld
