#include "noded/stepd/task_spawner.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/user_names.h"
#include "model/job_variables.h"
#include "noded/cage/step_cage.h"
#include "noded/container/oci_bundle.h"
#include "noded/cpu_list.h"
#include "noded/gpu/gres_device_files.h"
#include "noded/job_environment.h"
#include "noded/pmi/step_pmi.h"
#include "noded/stepd/task_epilog.h"
#include "noded/stepd/task_limits.h"
#include "noded/stepd/task_process.h"
#include "noded/stepd/task_starter.h"
#include "noded/stepd/task_terminal.h"

namespace rota::noded {
namespace {

void SetEnv(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  const std::string prefix = name + "=";
  for (std::string& e : env) {
    if (e.rfind(prefix, 0) == 0) {
      e = prefix + value;
      return;
    }
  }
  env.push_back(prefix + value);
}

std::string JoinNumbers(const std::vector<uint32_t>& v) {
  std::string out;
  for (uint32_t x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

// Binds `pid` to `cpus` (before it execs: what it starts inherits it).
Status SetTaskAffinity(pid_t pid, const std::vector<uint32_t>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (uint32_t cpu : cpus) {
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  if (sched_setaffinity(pid, sizeof set, &set) != 0) {
    return Status(StatusCode::kFailedPrecondition, fmt::format("cannot bind a task to CPUs {}: {}",
                                                               CpuMaskHex(cpus), strerror(errno)));
  }
  return Status::Ok();
}

StepCageLimits StepCageLimitsFor(const NodeContext& node, const StepPlan& plan) {
  StepCageRequest cage_request;
  cage_request.step_cpus = plan.step_cpus;
  cage_request.step_mem_mb =
      plan.node_index < plan.step.mem_mb_size() ? plan.step.mem_mb(plan.node_index) : 0;
  cage_request.tasks_bound_by_user =
      plan.cpu_bind.kind != CpuBindSpec::kDefault && plan.cpu_binding.bound();
  cage_request.task_cpus = plan.cpu_binding.task_cpus;
  cage_request.tasks_confined_to_gpus = plan.confine_gpus;
  return PlanStepCage(node.config->cgroup, node.cgroups->enforcing(), cage_request);
}

}  // namespace

std::vector<GpuDevice> GpuDevicesOf(const NodeContext& node, const std::vector<uint32_t>& indices) {
  std::vector<GpuDevice> gpus;
  for (const GpuDevice& gpu : node.gpus->devices()) {
    if (std::find(indices.begin(), indices.end(), gpu.index) != indices.end()) gpus.push_back(gpu);
  }
  return gpus;
}

std::vector<std::string> StepTaskEnvironment(const StepPlan& plan,
                                             const wire::LaunchTasksRequest& request,
                                             const std::string& node_name) {
  const uint32_t job_id = request.job_id();
  const uint32_t step_id = request.step_id();
  const wire::JobStepRecord& step = plan.step;
  std::vector<std::string> step_nodes(step.nodes().begin(), step.nodes().end());
  std::vector<uint32_t> per_node(step.tasks_per_node().begin(), step.tasks_per_node().end());
  std::vector<std::string> env(request.environment().begin(), request.environment().end());
  const std::string tasks_per_node = model::FormatPerNodeCounts(per_node);
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"SLURM_JOB_ID", std::to_string(job_id)},
           {"SLURM_JOBID", std::to_string(job_id)},
           {"SLURM_STEP_ID", std::to_string(step_id)},
           {"SLURM_STEPID", std::to_string(step_id)},
           {"SLURM_NODEID", std::to_string(plan.node_index)},
           {"SLURMD_NODENAME", node_name},
           {"SLURM_STEP_NODELIST", CompressHostlist(step_nodes)},
           {"SLURM_STEP_NUM_NODES", std::to_string(step.nodes_size())},
           {"SLURM_STEP_NUM_TASKS", std::to_string(step.num_tasks())},
           {"SLURM_STEP_TASKS_PER_NODE", tasks_per_node},
           {"SLURM_TASKS_PER_NODE", tasks_per_node},
           {"SLURM_NTASKS", std::to_string(step.num_tasks())},
           {"SLURM_NPROCS", std::to_string(step.num_tasks())},
           {"SLURM_NNODES", std::to_string(step.nodes_size())},
           {"SLURM_NODELIST", CompressHostlist(step_nodes)},
           {"SLURM_CPUS_PER_TASK", std::to_string(plan.cpus_per_task)},
       }) {
    SetEnv(env, name, value);
  }
  for (const auto& [name, value] : CpuBindEnvironment(plan.cpu_binding)) SetEnv(env, name, value);
  for (const auto& [name, value] : MemBindEnvironment(plan.mem_binding)) SetEnv(env, name, value);
  // SLURM_GPUS_PER_TASK is what srun inherited, as in Slurm 22.05: a step's
  // own --gpus-per-task does not set it for its tasks.
  return env;
}

std::vector<uint32_t> VisibleGpuNumbers(const StepPlan& plan,
                                        const std::vector<uint32_t>& task_gpus) {
  const std::vector<uint32_t>& job_gpus = plan.job_gpus;
  std::vector<uint32_t> visible;
  for (size_t i = 0; i < task_gpus.size(); ++i) {
    if (plan.confine_gpus) {
      visible.push_back(static_cast<uint32_t>(i));
    } else if (plan.devices_constrained) {
      visible.push_back(static_cast<uint32_t>(
          std::find(job_gpus.begin(), job_gpus.end(), task_gpus[i]) - job_gpus.begin()));
    } else {
      visible.push_back(task_gpus[i]);
    }
  }
  return visible;
}

std::string TaskOutputPath(const wire::TaskIoMode& mode, uint32_t task,
                           const StepIoFields& fields) {
  switch (mode.kind()) {
    case wire::TaskIoMode::NONE:
      return "/dev/null";
    case wire::TaskIoMode::FILE:
      return ExpandStepIoPattern(mode.pattern(), fields);
    case wire::TaskIoMode::ONE_TASK:
      return task == mode.task() ? "" : "/dev/null";
    default:
      return "";
  }
}

TaskSpawner::TaskSpawner(const NodeContext& node, const StepPlan& plan,
                         const wire::LaunchTasksRequest& request)
    : node_(node),
      plan_(plan),
      request_(request),
      job_id_(request.job_id()),
      step_id_(request.step_id()),
      step_cage_(StepCageName(request.step_id())),
      step_limits_(StepCageLimitsFor(node, plan)),
      host_gres_files_(plan.confine_gpus ? HostGresFiles(*node.config, node.settings.node_name,
                                                         node.gpus->devices())
                                         : std::vector<std::string>{}) {
  // Identity and environment.
  const wire::JobSpec& spec = plan.job.spec();
  user_ = spec.user().empty() ? UserName(spec.uid()) : spec.user();
  groups_ = {spec.gid()};
  if (!user_.empty()) {
    if (Result<std::vector<gid_t>> found = GroupsOf(user_, spec.gid()); found.ok())
      groups_ = *found;
  }
  std::vector<uint32_t> step_gpus;
  for (const auto& list : plan.gpu_binding.task_gpus)
    step_gpus.insert(step_gpus.end(), list.begin(), list.end());
  std::sort(step_gpus.begin(), step_gpus.end());
  step_gpus.erase(std::unique(step_gpus.begin(), step_gpus.end()), step_gpus.end());
  step_gpus_here_ = step_gpus.size();
  base_env_ = StepTaskEnvironment(plan, request, node.settings.node_name);
  work_dir_ = request.work_dir().empty() ? "/tmp" : request.work_dir();
  argv_.assign(request.argv().begin(), request.argv().end());
  io_fields_.job_id = job_id_;
  io_fields_.step_id = step_id_;
  io_fields_.node_index = static_cast<uint32_t>(plan.node_index);
  io_fields_.node = node.settings.node_name;
  io_fields_.user = user_;
  io_fields_.job_name = spec.name();
  io_fields_.array_job_id = plan.job.array_job_id();
  io_fields_.array_task_id = plan.job.array_task_id();
}

void TaskSpawner::UseContainer(std::shared_ptr<OpenContainer> container, ContainerUser user) {
  container_ = std::move(container);
  container_user_ = std::move(user);
}

std::vector<std::string> ContainerDeviceFiles(const NodeContext& node,
                                              const std::vector<uint32_t>& gpus) {
  std::vector<std::string> files = GrantedFiles(GpuDevicesOf(node, gpus));
  if (!files.empty()) {
    for (const char* control :
         {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset"}) {
      if (access(control, F_OK) == 0) files.emplace_back(control);
    }
  }
  return files;
}

std::vector<std::string> ContainerDriverGpus(const NodeContext& node,
                                             const std::vector<uint32_t>& gpus) {
  std::vector<std::string> ids;
  for (const GpuDevice& gpu : GpuDevicesOf(node, gpus)) {
    struct stat st {};
    if (!gpu.uuid.empty()) {
      ids.push_back(gpu.uuid);
    } else if (!gpu.file.empty() && stat(gpu.file.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) {
      // Known only from gres.conf: /dev/nvidiaN's minor number is the
      // driver's index of the GPU.
      ids.push_back(std::to_string(minor(st.st_rdev)));
    }
  }
  return ids;
}

Result<ContainerCommand> TaskSpawner::BundleCommand(uint32_t task_id,
                                                    const TaskProcessSpec& process) const {
  if (node_.containers == nullptr) return FailedPrecondition("containers are not available here");
  OciBundleTask task;
  task.bundle = request_.container().bundle();
  task.argv = process.argv;
  task.env = process.env;
  task.uid = process.uid;
  task.gid = process.gid;
  task.pattern.node = node_.settings.node_name;
  task.pattern.user = user_;
  task.pattern.uid = process.uid;
  task.pattern.job_id = job_id_;
  task.pattern.step_id = step_id_;
  task.pattern.task_id = task_id;
  task.pattern.spool = node_.settings.spool_dir;
  return NodeOciBundleCommand(node_.config->slurm_conf_path, node_.containers->state_dir(),
                              std::move(task));
}

Status TaskSpawner::MakeStepCage() const {
  return node_.cgroups->CreateStep(job_id_, step_cage_, step_limits_);
}

Status TaskSpawner::Start(uint32_t local_id, StepPmi* pmi, LocalTask& task) {
  const wire::JobSpec& spec = plan_.job.spec();
  task.local_id = local_id;
  task.global_id = plan_.task_ids[local_id];
  const std::vector<uint32_t>& gpus = plan_.gpu_binding.task_gpus[local_id];
  TaskProcessSpec process;
  process.argv = argv_;
  process.env = base_env_;
  process.umask = UmaskFromEnvironment(base_env_);
  SetEnv(process.env, "SLURM_PROCID", std::to_string(task.global_id));
  SetEnv(process.env, "SLURM_LOCALID", std::to_string(local_id));
  if (pmi != nullptr) {
    for (const auto& [name, value] : pmi->TaskEnvironment(local_id)) {
      SetEnv(process.env, name, value);
    }
    process.keep_fd = pmi->TaskEnd(local_id);
  }
  if (!plan_.job_gpus.empty()) {
    // As Slurm's step: the step's GPU count on the node, and the task's GPUs
    // by node index (Slurm 22.05 shows task 0's to every task; here each its own).
    SetEnv(process.env, "SLURM_GPUS_ON_NODE", std::to_string(step_gpus_here_));
    SetEnv(process.env, "SLURM_STEP_GPUS", JoinNumbers(gpus));
    const std::vector<uint32_t> visible = VisibleGpuNumbers(plan_, gpus);
    for (const char* name : {"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES",
                             "ZE_AFFINITY_MASK"}) {
      SetEnv(process.env, name, JoinNumbers(visible));
    }
  }
  process.uid = spec.uid();
  process.gid = spec.gid();
  process.groups = groups_;
  process.work_dir = work_dir_;
  process.soft_limits = SoftLimitsFrom(request_.rlimits());
  std::string container_config;  // Where the TaskProlog's variables go, in a container
  if (!request_.container().bundle().empty()) {
    // srun --container: the user's OCI bundle, run by oci.conf's runtime.
    Result<ContainerCommand> command = BundleCommand(task.global_id, process);
    if (!command.ok()) return command.status();
    process.argv = std::move(command->argv);
    container_config = std::move(command->config);
    process.runtime_mounts = true;
  } else if (container_ != nullptr) {
    // The command runs in the step's container: crun, as the user, starts
    // it there (container_store.h) with the environment made so far.
    ContainerTask in_container;
    in_container.argv = process.argv;
    in_container.env = process.env;
    const std::vector<uint32_t>& visible_gpus = plan_.confine_gpus ? gpus : plan_.job_gpus;
    in_container.device_files = ContainerDeviceFiles(node_, visible_gpus);
    in_container.driver_gpus = ContainerDriverGpus(node_, visible_gpus);
    in_container.step_id = step_id_;
    in_container.task_id = task.global_id;
    in_container.keep_fd = process.keep_fd;
    Result<ContainerCommand> command = node_.containers->TaskCommand(
        *container_, request_.container(), container_user_, in_container);
    if (!command.ok()) return command.status();
    process.argv = std::move(command->argv);
    container_config = std::move(command->config);
    process.runtime_mounts = true;
  }
  if (const std::string& prolog = node_.config->settings.task_prolog; !prolog.empty()) {
    // The TaskProlog runs in the task's own process, just before the
    // command (task_starter.h): rota-task execs the command after it (in a
    // container, the runtime: the prolog runs on the host, and its
    // variables are written into the container's config.json).
    std::vector<std::string> starter = TaskStarterCommand(prolog, container_config);
    process.argv.insert(process.argv.begin(), starter.begin(), starter.end());
  }
  StepIoFields io_fields = io_fields_;
  io_fields.task_id = task.global_id;
  // --pty: task 0 on a terminal of its own; srun sends the others' output
  // to /dev/null (ONE_TASK 0), as Slurm's srun does.
  std::optional<TaskTerminal> terminal;
  if (request_.pty() && task.global_id == 0) {
    Result<TaskTerminal> opened_terminal =
        OpenTaskTerminal(request_.window().rows(), request_.window().cols(), spec.uid());
    if (!opened_terminal.ok()) return opened_terminal.status();
    terminal = *opened_terminal;
    process.terminal_fd = terminal->terminal;
    SetEnv(process.env, "SLURM_PTY_WIN_ROW", std::to_string(request_.window().rows()));
    SetEnv(process.env, "SLURM_PTY_WIN_COL", std::to_string(request_.window().cols()));
  }
  process.stdout_path = TaskOutputPath(request_.std_out(), task.global_id, io_fields);
  process.stderr_path = TaskOutputPath(request_.std_err(), task.global_id, io_fields);
  process.truncate_out = !request_.append() && opened_.insert(process.stdout_path).second;
  process.truncate_err = !request_.append() && process.stderr_path != process.stdout_path &&
                         opened_.insert(process.stderr_path).second;
  switch (request_.std_in().kind()) {
    case wire::TaskIoMode::FILE:
      process.stdin_path = ExpandStepIoPattern(request_.std_in().pattern(), io_fields);
      break;
    case wire::TaskIoMode::ALL:
      process.stdin_pipe = true;
      break;
    case wire::TaskIoMode::STREAM:
      process.stdin_pipe = request_.std_in().task() == task.global_id;
      break;
    default:
      break;
  }
  // A plan made without a memory binding has no per-task lists.
  if (local_id < plan_.mem_binding.task_nodes.size()) {
    process.mem_nodes = plan_.mem_binding.task_nodes[local_id];
  }
  process.mem_prefer = plan_.mem_binding.prefer;
  const std::vector<uint32_t>& bound_cpus = plan_.cpu_binding.task_cpus[local_id];
  TaskCageLimits task_limits;
  if (plan_.confine_gpus) {
    // Everything the job may not open, and the job's GPUs not bound to this task.
    task_limits.denied_devices =
        DeniedDeviceRules(host_gres_files_, GrantedFiles(GpuDevicesOf(node_, gpus)));
  }
  if (step_limits_.task_cpusets) task_limits.cpu_ids = bound_cpus;
  if (!node_.config->settings.task_epilog.empty()) task.env = process.env;
  Result<TaskProcess> started = SpawnTaskProcess(process, [&](pid_t pid) -> Status {
    if (step_limits_.task_cages) {
      ROTA_RETURN_IF_ERROR(node_.cgroups->ConfineTask(
          job_id_, step_cage_, TaskCageName(task.global_id), pid, task_limits));
    } else {
      ROTA_RETURN_IF_ERROR(node_.cgroups->AddStepPid(job_id_, step_cage_, pid));
    }
    if (!bound_cpus.empty()) {
      Status bound = SetTaskAffinity(pid, bound_cpus);
      // The node's own default gives way to a host that cannot honour it;
      // a binding the user asked for does not.
      if (!bound.ok() && plan_.cpu_bind.kind != CpuBindSpec::kDefault) return bound;
      if (!bound.ok()) spdlog::warn("step {}.{}: {}", job_id_, step_id_, bound.message());
    }
    return Status::Ok();
  });
  if (terminal) {
    // Only the task holds its side now: its output ends (EIO) once the
    // task and what it left behind let go of the terminal.
    close(terminal->terminal);
    task.terminal = terminal->master;
    if (started.ok()) {
      started->stdout_fd = fcntl(task.terminal, F_DUPFD_CLOEXEC, 0);
      started->stdin_fd = fcntl(task.terminal, F_DUPFD_CLOEXEC, 0);
    }
  }
  if (!started.ok()) {
    return Status(started.status().code(),
                  fmt::format("task {}: {}", task.global_id, started.status().message()));
  }
  task.pid = started->pid;
  task.fds[0] = started->stdout_fd;
  task.fds[1] = started->stderr_fd;
  task.stdin_fd = started->stdin_fd;
  task.pidfd = static_cast<int>(syscall(SYS_pidfd_open, task.pid, 0));
  return Status::Ok();
}

std::vector<std::string> TaskSpawner::BindingReports(const LocalTask& task) const {
  std::vector<std::string> reports;
  if (plan_.cpu_binding.verbose) {
    reports.push_back(DescribeTaskCpus(plan_.cpu_binding, node_.settings.node_name, task.global_id,
                                       task.local_id, task.pid, plan_.step_cpus) +
                      "\n");
  }
  if (plan_.mem_binding.verbose) {
    reports.push_back(DescribeTaskMemory(plan_.mem_binding, node_.settings.node_name,
                                         task.global_id, task.local_id, task.pid) +
                      "\n");
  }
  if (plan_.gpu_bind.verbose) {
    reports.push_back(DescribeTaskGpus(task.global_id, plan_.gpu_binding.task_gpus[task.local_id]) +
                      "\n");
  }
  return reports;
}

void TaskSpawner::RunTaskEpilogAfter(const LocalTask& task,
                                     const std::function<void(pid_t)>& started) const {
  const std::string& program = node_.config->settings.task_epilog;
  if (program.empty()) return;
  const wire::JobSpec& spec = plan_.job.spec();
  JobProcessSpec as_task;
  as_task.env = task.env;
  as_task.uid = spec.uid();
  as_task.gid = spec.gid();
  as_task.groups = groups_;
  as_task.work_dir = work_dir_;
  as_task.soft_limits = SoftLimitsFrom(request_.rlimits());
  as_task.umask = UmaskFromEnvironment(task.env);
  Result<int> ran = RunTaskEpilog(
      program, std::move(as_task),
      [&](pid_t pid) { return node_.cgroups->AddStepPid(job_id_, step_cage_, pid); }, started);
  if (!ran.ok()) {
    spdlog::error("step {}.{}: task {}: TaskEpilog {}: {}", job_id_, step_id_, task.global_id,
                  program, ran.status().message());
  } else if (*ran != 0) {
    spdlog::error("step {}.{}: task {}: TaskEpilog {} failed with wait status {:#x}", job_id_,
                  step_id_, task.global_id, program, *ran);
  }
}

}  // namespace rota::noded
