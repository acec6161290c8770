#include "ctld/core/step_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "ctld/core/step_layout.h"
#include "ctld/core/step_resources.h"
#include "model/index_set.h"

namespace rota::ctld {
namespace {

std::string IdText(const std::vector<uint32_t>& ids) {
  model::IndexSet set;
  for (uint32_t id : ids) set.Insert(id);
  return set.ToString();
}

}  // namespace

Result<wire::CreateStepResponse> StepTable::Create(const wire::CreateStepRequest& request,
                                                   const Caller& caller, const wire::JobRecord* job,
                                                   int64_t now) {
  if (job == nullptr) return InvalidArgument("Invalid job id specified");
  if (!caller.privileged && caller.uid != job->spec().uid()) {
    return Status(StatusCode::kPermissionDenied, "Access/permission denied");
  }
  if (job->state() != wire::JOB_STATE_RUNNING) {
    return InvalidArgument(
        fmt::format("Job {} is not running (its allocation is not active)", job->job_id()));
  }
  // What the job's running steps leave free of its allocation.
  const std::vector<StepNodeResources> whole = JobStepResources(*job);
  std::vector<StepNodeResources> free = whole;
  if (auto it = jobs_.find(job->job_id()); it != jobs_.end()) {
    for (const auto& [id, running] : it->second.running) {
      SubtractStepResources(*job, running, free);
    }
  }
  // -w/-x: the step chooses among these of the job's nodes only.
  Result<std::vector<uint32_t>> allowed = StepNodeChoice(*job, request);
  if (!allowed.ok()) return allowed.status();
  StepResourceRequest wanted = StepResourceRequestOf(request);
  if (!request.nodelist().empty() && wanted.shape.num_nodes == 0) {
    wanted.shape.num_nodes = static_cast<uint32_t>(allowed->size());
  }
  std::vector<StepNodeResources> whole_choice, free_choice;
  for (uint32_t i : *allowed) {
    whole_choice.push_back(whole[i]);
    free_choice.push_back(free[i]);
  }
  // -m arbitrary: each task's node is given; the nodes run the tasks that
  // name them.
  if (request.task_hosts_size() > 0) {
    wanted.tasks_on_node.assign(allowed->size(), 0);
    for (const std::string& host : request.task_hosts()) {
      size_t k = 0;
      while (k < allowed->size() && job->nodes(static_cast<int>((*allowed)[k])) != host) ++k;
      if (k == allowed->size()) {
        return InvalidArgument(fmt::format(
            "Requested node configuration is not available ({} is not one of the job's nodes)",
            host));
      }
      ++wanted.tasks_on_node[k];
    }
  }
  Result<StepPlacement> placed = PlaceStep(whole_choice, free_choice, wanted);
  if (!placed.ok()) return placed.status();
  for (uint32_t& index : placed->layout.node_indices) index = (*allowed)[index];
  const StepLayout& layout = placed->layout;

  JobSteps& steps = jobs_[job->job_id()];
  wire::CreateStepResponse out;
  wire::JobStepRecord& step = *out.mutable_step();
  step.set_job_id(job->job_id());
  step.set_step_id(steps.next_step_id++);
  step.set_name(request.name());
  step.set_state(wire::JOB_STATE_RUNNING);
  step.set_start_time(now);
  step.set_uid(job->spec().uid());
  step.set_user(job->spec().user());
  step.set_partition(job->spec().partition());
  step.set_num_tasks(layout.num_tasks);
  for (size_t i = 0; i < layout.node_indices.size(); ++i) {
    step.add_nodes(job->nodes(static_cast<int>(layout.node_indices[i])));
    step.add_tasks_per_node(layout.tasks_per_node[i]);
    const StepNodeResources& held = placed->held[i];
    step.add_cpu_ids(IdText(held.cpus));
    step.add_gpu_ids(IdText(held.gpus));
    step.add_mem_mb(held.mem_mb);
  }
  const model::TaskDistribution distribution =
      model::ParseTaskDistribution(request.distribution()).value_or(model::TaskDistribution());
  if (request.task_hosts_size() > 0) {
    for (uint32_t index : layout.node_indices) {
      for (int t = 0; t < request.task_hosts_size(); ++t) {
        if (request.task_hosts(t) == job->nodes(static_cast<int>(index))) step.add_task_ids(t);
      }
    }
  } else if (distribution.kind != model::TaskDistribution::kBlock) {
    for (uint32_t id : model::TaskIds(layout.tasks_per_node, distribution)) step.add_task_ids(id);
  }
  step.set_overlap(request.overlap());
  step.set_distribution(request.distribution());
  step.set_cpu_bind(request.cpu_bind());
  step.set_hint(request.hint());
  step.set_mem_bind(request.mem_bind());
  step.set_ntasks_per_core(request.ntasks_per_core());
  step.set_cpus_per_task(std::max<uint32_t>(1, request.cpus_per_task()));
  step.set_gpus_per_task(request.gpus_per_task());
  step.set_gpu_bind(request.gpu_bind());
  *step.mutable_argv() = request.argv();
  steps.running[step.step_id()] = step;
  *out.mutable_job() = *job;
  // The job's script and environment stay with the controller.
  out.mutable_job()->mutable_spec()->clear_script();
  out.mutable_job()->mutable_spec()->clear_environment();
  return out;
}

Status StepTable::End(const wire::StepEndedRequest& request, const Caller& caller, int64_t now) {
  auto job = jobs_.find(request.job_id());
  if (job == jobs_.end()) return Status::Ok();
  auto step = job->second.running.find(request.step_id());
  if (step == job->second.running.end()) return Status::Ok();
  if (!caller.privileged && caller.uid != step->second.uid()) {
    return Status(StatusCode::kPermissionDenied, "Access/permission denied");
  }
  wire::JobStepRecord& done = job->second.ended.emplace_back(std::move(step->second));
  job->second.running.erase(step);
  done.set_end_time(now);
  done.set_exit_code(request.wait_status());
  if (request.has_usage()) *done.mutable_usage() = request.usage();
  done.set_state(request.cancelled()          ? wire::JOB_STATE_CANCELLED
                 : request.out_of_memory()    ? wire::JOB_STATE_OUT_OF_MEMORY
                 : request.wait_status() == 0 ? wire::JOB_STATE_COMPLETED
                                              : wire::JOB_STATE_FAILED);
  return Status::Ok();
}

std::vector<wire::JobStepRecord> StepTable::List(const wire::ListStepsRequest& request) const {
  std::vector<wire::JobStepRecord> out;
  auto add_job = [&](const JobSteps& steps) {
    for (const auto& [id, step] : steps.running) {
      if (request.step_id_given() && id != request.step_id()) continue;
      out.push_back(step);
    }
  };
  if (request.job_ids().empty()) {
    for (const auto& [job_id, steps] : jobs_) add_job(steps);
    return out;
  }
  for (uint32_t job_id : request.job_ids()) {
    auto it = jobs_.find(job_id);
    if (it != jobs_.end()) add_job(it->second);
  }
  return out;
}

const wire::JobStepRecord* StepTable::Find(uint32_t job_id, uint32_t step_id) const {
  auto job = jobs_.find(job_id);
  if (job == jobs_.end()) return nullptr;
  auto step = job->second.running.find(step_id);
  return step == job->second.running.end() ? nullptr : &step->second;
}

void StepTable::Prune(const std::function<bool(uint32_t job_id)>& running) {
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    it = running(it->first) ? std::next(it) : jobs_.erase(it);
  }
}

wire::JobStepsState StepTable::State(uint32_t job_id) const {
  wire::JobStepsState out;
  out.set_job_id(job_id);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return out;
  out.set_next_step_id(it->second.next_step_id);
  for (const auto& [id, step] : it->second.running) *out.add_running() = step;
  for (const wire::JobStepRecord& step : it->second.ended) *out.add_ended() = step;
  return out;
}

std::vector<wire::JobStepsState> StepTable::States() const {
  std::vector<wire::JobStepsState> out;
  out.reserve(jobs_.size());
  for (const auto& [job_id, steps] : jobs_) out.push_back(State(job_id));
  return out;
}

void StepTable::Apply(const wire::JobStepsState& state) {
  JobSteps& steps = jobs_[state.job_id()];
  steps.next_step_id = state.next_step_id();
  steps.running.clear();
  for (const wire::JobStepRecord& step : state.running()) steps.running[step.step_id()] = step;
  steps.ended.assign(state.ended().begin(), state.ended().end());
  // An empty state (the attempt ended) leaves nothing behind.
  if (steps.next_step_id == 0 && steps.running.empty() && steps.ended.empty()) {
    jobs_.erase(state.job_id());
  }
}

bool StepTable::Forget(uint32_t job_id) { return jobs_.erase(job_id) > 0; }

}  // namespace rota::ctld
