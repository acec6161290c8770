#include "noded/step_stats.h"

#include <algorithm>

#include "noded/cage/step_cage.h"
#include "noded/gpu/gpu_watch.h"

namespace rota::noded {
namespace {

bool Named(const wire::StepStatsRequest& request, const LocalStep& step) {
  if (request.all_steps()) return true;
  if (step.cage.empty()) return request.batch();
  return std::any_of(request.step_ids().begin(), request.step_ids().end(),
                     [&](uint32_t id) { return std::to_string(id) == step.step; });
}

wire::StepLiveFigures FiguresOf(uint32_t job_id, const LocalStep& step, const std::string& node,
                                const CgroupBackend& cgroups, const GpuFigures& gpu_figures) {
  wire::StepLiveFigures out;
  out.set_job_id(job_id);
  out.set_step(step.step);
  out.set_node(node);
  const uint32_t tasks = std::max<uint32_t>(step.tasks, 1);
  out.set_tasks(tasks);
  wire::StepUsage& usage = *out.mutable_usage();
  // One cage per step here, not one per task: each task is given an equal
  // share of what it holds.
  if (std::optional<uint64_t> now = cgroups.CurrentMemoryBytes(job_id, step.cage)) {
    const uint64_t peak = cgroups.StepPeakMemoryBytes(job_id, step.cage).value_or(*now);
    usage.set_max_rss_kb(std::max(peak, *now) / 1024 / tasks);
    usage.set_ave_rss_kb(*now / 1024 / tasks);
    usage.set_max_rss_node(node);
    usage.set_tasks(tasks);
  }
  if (std::optional<CageCpuTime> cpu = cgroups.CpuUsageMicros(job_id, step.cage)) {
    usage.set_user_cpu_us(cpu->user_us);
    usage.set_system_cpu_us(cpu->system_us);
  }
  if (gpu_figures) {
    if (std::optional<wire::GpuUsage> gpu = gpu_figures(step.watch_key)) {
      *usage.mutable_gpu() = std::move(*gpu);
    }
  }
  return out;
}

}  // namespace

std::vector<LocalStep> LocalStepsOf(uint32_t job_id, std::optional<uint32_t> batch_uid,
                                    const std::vector<StepTasks::RunningStep>& running) {
  std::vector<LocalStep> steps;
  if (batch_uid) steps.push_back({"batch", "", JobWatchKey(job_id), *batch_uid, 1});
  for (const StepTasks::RunningStep& s : running) {
    steps.push_back({std::to_string(s.step_id), StepCageName(s.step_id),
                     StepWatchKey(job_id, s.step_id), s.uid, s.tasks});
  }
  return steps;
}

Result<wire::StepStatsResponse> CollectStepStats(const wire::StepStatsRequest& request,
                                                 const std::vector<LocalStep>& here,
                                                 const std::string& node,
                                                 const CgroupBackend& cgroups,
                                                 const GpuFigures& gpu_figures, uint32_t caller_uid,
                                                 bool privileged) {
  wire::StepStatsResponse out;
  bool refused = false;
  for (const LocalStep& step : here) {
    if (!Named(request, step)) continue;
    if (!privileged && step.uid != caller_uid) {
      refused = true;
      continue;
    }
    *out.add_steps() = FiguresOf(request.job_id(), step, node, cgroups, gpu_figures);
  }
  if (refused && out.steps_size() == 0) {
    return Status(StatusCode::kPermissionDenied, "Access/permission denied");
  }
  return out;
}

}  // namespace rota::noded
