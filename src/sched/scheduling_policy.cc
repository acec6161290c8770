#include "sched/scheduling_policy.h"

namespace rota::sched {

SchedulingPolicy PolicyOf(const conf::ClusterConfig& config) {
  const conf::SchedulerParameters& p = config.settings.scheduler;
  SchedulingPolicy out;
  out.backfill = config.settings.scheduler_type == "sched/backfill";
  out.main.max_starts = p.sched_max_job_start;
  out.main.partition_depth = p.partition_job_depth;
  out.plan.window = p.bf_window;
  out.plan.max_job_test = p.bf_max_job_test;
  out.plan.max_job_part = p.bf_max_job_part;
  out.plan.max_job_user = p.bf_max_job_user;
  out.plan.reserve_per_part = p.bf_job_part_count_reserve;
  out.plan.max_job_start = p.bf_max_job_start;
  out.plan.reserve_busy_nodes = !p.bf_reserve_in_node_order;
  out.interval_s = p.bf_interval;
  out.max_time_s = p.bf_max_time;
  out.resolution_s = p.bf_resolution;
  out.min_age_reserve_s = p.bf_min_age_reserve;
  out.min_prio_reserve = p.bf_min_prio_reserve;
  out.carry_on = p.bf_continue;
  out.predict_runtime = p.rota_predict_runtime;
  return out;
}

SchedulingPolicy FcfsPolicy(SchedulingPolicy site) {
  site.backfill = false;
  site.main = {};              // The whole queue at every pass
  site.min_age_reserve_s = 0;  // Every job that does not fit holds back the rest
  site.min_prio_reserve = 0;
  return site;
}

namespace {

SchedulingPolicy TextbookBackfill(SchedulingPolicy site, uint32_t reserve_per_part) {
  site.backfill = true;
  site.main = {};
  site.plan.window = kInfiniteDuration;
  site.plan.max_job_test = 0;
  site.plan.max_job_part = 0;
  site.plan.max_job_user = 0;
  site.plan.max_job_start = 0;
  site.plan.reserve_per_part = reserve_per_part;
  site.interval_s = 0;
  site.resolution_s = 1;
  site.min_age_reserve_s = 0;
  site.min_prio_reserve = 0;
  return site;
}

}  // namespace

SchedulingPolicy EasyPolicy(SchedulingPolicy site) { return TextbookBackfill(std::move(site), 1); }
SchedulingPolicy ConservativePolicy(SchedulingPolicy site) {
  return TextbookBackfill(std::move(site), 0);
}

}  // namespace rota::sched
