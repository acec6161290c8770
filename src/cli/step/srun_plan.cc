#include "cli/step/srun_plan.h"

#include "cli/step/mpi_type.h"
#include "cli/submit/allocation.h"
#include "cli/submit/propagated_limits.h"
#include "common/step_io_pattern.h"
#include "model/task_distribution.h"

namespace rota::cli {

wire::CreateStepRequest StepRequestFor(const SrunOptions& options) {
  wire::CreateStepRequest create;
  create.set_job_id(options.job_id);
  create.set_num_tasks(options.num_tasks);
  create.set_num_nodes(options.num_nodes);
  create.set_ntasks_per_node(options.ntasks_per_node);
  create.set_cpus_per_task(options.cpus_per_task);
  create.set_gpus_per_task(options.gpus_per_task);
  create.set_gpu_bind(options.gpu_bind);
  const std::string base = options.command[0].substr(options.command[0].rfind('/') + 1);
  create.set_name(options.job_name.empty() ? base : options.job_name);
  for (const std::string& a : options.command) create.add_argv(a);
  create.set_mem_per_node_mb(options.mem_per_node_mb);
  create.set_mem_per_cpu_mb(options.mem_per_cpu_mb);
  create.set_gpus_per_node(options.gpus_per_node);
  create.set_gpus(options.gpus);
  create.set_overlap(options.overlap || options.pty);
  create.set_overcommit(options.overcommit);
  create.set_distribution(options.distribution);
  create.set_nodelist(options.nodelist);
  for (const std::string& host : options.task_hosts) create.add_task_hosts(host);
  create.set_exclude(options.exclude);
  create.set_cpu_bind(options.cpu_bind);
  create.set_hint(options.hint);
  create.set_mem_bind(options.mem_bind);
  create.set_ntasks_per_core(options.ntasks_per_core);
  return create;
}

wire::TaskIoMode WireMode(const StepIoOption& option, bool input) {
  wire::TaskIoMode mode;
  if (input && option.kind == StepIoOption::kFile) {
    mode.set_kind(wire::TaskIoMode::FILE);
    mode.set_pattern(option.pattern);
    return mode;
  }
  switch (option.kind) {
    case StepIoOption::kNone:
      mode.set_kind(wire::TaskIoMode::NONE);
      break;
    case StepIoOption::kFile:
      if (StepIoPatternPerTask(option.pattern)) {
        mode.set_kind(wire::TaskIoMode::FILE);
        mode.set_pattern(option.pattern);
      }
      break;
    case StepIoOption::kOneTask:
      mode.set_kind(wire::TaskIoMode::ONE_TASK);
      mode.set_task(option.task);
      break;
    case StepIoOption::kAll:
      mode.set_kind(wire::TaskIoMode::ALL);
      break;
    case StepIoOption::kStream:
      mode.set_task(option.task);
      break;
  }
  return mode;
}

wire::LaunchTasksRequest LaunchRequestFor(
    const SrunOptions& options, const conf::ClusterConfig& config, uint32_t job_id,
    uint32_t step_id, std::vector<std::string> env,
    const std::vector<std::pair<std::string, std::string>>& extra_env, std::string* warning) {
  wire::LaunchTasksRequest launch;
  launch.set_job_id(job_id);
  launch.set_step_id(step_id);
  for (const std::string& a : options.command) launch.add_argv(a);
  for (const auto& [name, value] : extra_env) SetVariable(env, name, value);
  // --mpi, else MpiDefault: the tasks find their PMI server (docs/mpi.md).
  std::string mpi = options.mpi;
  if (mpi.empty()) {
    Result<std::string> by_default = CheckMpiType(config.settings.mpi_default);
    if (by_default.ok() && (*by_default == "pmi2" || *by_default == "pmix")) mpi = *by_default;
    if (!by_default.ok()) {
      *warning = "MpiDefault=" + config.settings.mpi_default +
                 " is not supported; tasks start without PMI (--mpi=pmi2 or pmix gives them one)";
    }
  }
  if (!options.distribution.empty()) SetVariable(env, "SLURM_DISTRIBUTION", options.distribution);
  if (mpi == "pmi2" || mpi == "pmix") {
    launch.mutable_pmi()->set_type(mpi);
    SetVariable(env, "SLURM_MPI_TYPE", mpi);
  }
  for (const std::string& e : env) launch.add_environment(e);
  *launch.mutable_std_out() = WireMode(options.output, false);
  *launch.mutable_std_err() = WireMode(options.error, false);
  *launch.mutable_std_in() = WireMode(options.input, true);
  launch.set_append(options.append);
  AddPropagatedLimits(config.settings, launch.mutable_rlimits(), options.propagate);
  launch.set_pty(options.pty);
  if (!options.container.image().empty() || !options.container.name().empty() ||
      !options.container.bundle().empty()) {
    *launch.mutable_container() = options.container;
  }
  return launch;
}

std::string StdinNode(const StepIoOption& input, const wire::JobStepRecord& step) {
  for (int i = 0; i < step.nodes_size() && i < step.tasks_per_node_size(); ++i) {
    for (uint32_t id : model::StepTaskIdsOnNode(step, i)) {
      if (id == input.task) return step.nodes(i);
    }
  }
  return "";
}

}  // namespace rota::cli
