#include "noded/stepd/batch_job.h"

#include <fcntl.h>
#include <fmt/ranges.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "api/methods.h"
#include "common/log.h"
#include "common/user_names.h"
#include "noded/container/container_store.h"
#include "noded/container/oci_bundle.h"
#include "noded/cpu_list.h"
#include "noded/gpu/device_holders.h"
#include "noded/gpu/gres_device_files.h"
#include "noded/job_environment.h"
#include "noded/node_script.h"
#include "noded/stepd/job_process.h"
#include "noded/stepd/stdio_path.h"
#include "noded/stepd/step_tasks.h"
#include "noded/stepd/step_usage.h"
#include "noded/stepd/task_epilog.h"
#include "noded/stepd/task_limits.h"
#include "noded/stepd/task_spawner.h"
#include "noded/stepd/task_starter.h"

namespace rota::noded {
namespace {

// Slurm's convention for a batch script that could not start: exit code 1.
constexpr uint32_t kLaunchFailedStatus = 1 << 8;

Status WriteOwnedFile(const std::string& path, const std::string& text, uid_t uid, gid_t gid,
                      mode_t mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return IoError("cannot create " + path + ": " + std::strerror(errno));
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            fchmod(fd, mode) == 0 && (geteuid() != 0 || fchown(fd, uid, gid) == 0);
  int saved = errno;
  close(fd);
  if (!ok) return IoError("cannot write " + path + ": " + std::strerror(saved));
  return Status::Ok();
}

}  // namespace

BatchJob::BatchJob(const NodeContext& node, wire::LaunchJobRequest request,
                   std::optional<std::vector<uint32_t>> chosen_gpus, wire::ContainerPlace container)
    : node_(node),
      request_(std::move(request)),
      chosen_gpus_(std::move(chosen_gpus)),
      container_(std::move(container)) {}

Result<std::vector<GpuDevice>> HoldJobGpus(const NodeContext& node, const wire::JobLaunch& job) {
  for (int i = 0; i < job.nodes_size() && i < job.allocs_size(); ++i) {
    if (job.nodes(i) != node.settings.node_name) continue;
    const std::string& ids = job.allocs(i).gpu_ids();
    std::optional<std::vector<uint32_t>> indices = ParseCpuList(ids);
    if (!indices) return InvalidArgument("malformed GPU indices \"" + ids + "\"");
    return node.gpus->AllocateExact(job.job_id(), *indices);
  }
  if (job.gpus_per_node() == 0) return std::vector<GpuDevice>{};
  return node.gpus->Allocate(job.job_id(), job.gpus_per_node(), job.gpu_type());
}

std::string BatchJob::JobSpoolDir() const {
  return node_.settings.spool_dir + "/job" + std::to_string(job_id());
}

Status BatchJob::PrepareSpool(const std::string& script) {
  const wire::JobSpec& spec = request_.job().spec();
  const std::string dir = JobSpoolDir();
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return IoError("cannot create " + dir + ": " + std::strerror(errno));
  }
  // The script runs as the user, who must be able to read and execute it,
  // and nobody else may read it.
  if (geteuid() == 0 && chown(dir.c_str(), spec.uid(), spec.gid()) != 0) {
    return IoError("cannot chown " + dir + ": " + std::strerror(errno));
  }
  return WriteOwnedFile(dir + "/script", script, spec.uid(), spec.gid(), 0700);
}

const wire::NodeAlloc* BatchJob::AllocHere() const {
  const wire::JobLaunch& job = request_.job();
  for (int i = 0; i < job.nodes_size() && i < job.allocs_size(); ++i) {
    if (job.nodes(i) == node_.settings.node_name) return &job.allocs(i);
  }
  return nullptr;
}

Result<CageLimits> BatchJob::LimitsFor() const {
  const wire::JobLaunch& job = request_.job();
  const conf::CgroupConf& conf = node_.config->cgroup;
  CageLimits limits;
  if (conf.constrain_cores) {
    uint32_t cpus = job.cpus_per_node();
    if (cpus == 0 && job.nodes_size() > 0) cpus = job.alloc_cpus() / job.nodes_size();
    if (const wire::NodeAlloc* here = AllocHere()) {
      cpus = here->cpus();
      limits.cpu_ids = ParseCpuList(here->cpu_ids()).value_or(std::vector<uint32_t>{});
    }
    if (cpus > 0) limits.cpu_count = cpus;
  }
  if (conf.constrain_ram_space) {
    auto here = std::find(job.nodes().begin(), job.nodes().end(), node_.settings.node_name);
    size_t index = here - job.nodes().begin();
    if (index < static_cast<size_t>(job.mem_by_node_mb_size()) && job.mem_by_node_mb(index) > 0) {
      double mb = job.mem_by_node_mb(index) * conf.allowed_ram_space_percent / 100.0;
      mb = std::max(mb, static_cast<double>(conf.min_ram_space_mb));
      limits.memory_bytes = static_cast<uint64_t>(mb * 1024 * 1024);
    }
  }
  if (conf.constrain_devices) {
    limits.denied_devices =
        DeniedDevicesFor(*node_.config, node_.settings.node_name, node_.gpus->devices(), gpus_);
  }
  limits.max_tasks = JobTaskLimit(conf);
  return limits;
}

Status BatchJob::Launch() {
  const wire::JobLaunch& job = request_.job();
  const wire::JobSpec& spec = job.spec();
  const std::string& node = node_.settings.node_name;

  std::string user = spec.user().empty() ? UserName(spec.uid()) : spec.user();
  std::vector<gid_t> groups{spec.gid()};
  if (!user.empty()) {
    Result<std::vector<gid_t>> found = GroupsOf(user, spec.gid());
    if (found.ok()) {
      groups = std::move(found).value();
    } else {
      spdlog::warn("job {}: {}; running with group {} only", job.job_id(), found.status().message(),
                   spec.gid());
    }
  }

  Result<std::vector<GpuDevice>> held = chosen_gpus_
                                            ? node_.gpus->AllocateExact(job.job_id(), *chosen_gpus_)
                                            : HoldJobGpus(node_, job);
  if (!held.ok()) return held.status();
  gpus_ = std::move(held).value();

  const std::string& script =
      request_.payload().script().empty() ? spec.script() : request_.payload().script();
  if (script.empty()) return InvalidArgument("the launch request carries no batch script");
  ROTA_RETURN_IF_ERROR(PrepareSpool(script));

  ROTA_RETURN_IF_ERROR(node_.cgroups->Create(job.job_id(), job.spec().uid()));
  cage_created_ = true;
  Result<CageLimits> limits = LimitsFor();
  if (!limits.ok()) return limits.status();
  ROTA_RETURN_IF_ERROR(node_.cgroups->SetLimits(job.job_id(), *limits));
  if (const auto& flags = node_.config->settings.prolog_flags;
      std::find(flags.begin(), flags.end(), "Contain") != flags.end()) {
    // The extern step's cage, as on the job's other nodes (prepared_jobs.h).
    ROTA_RETURN_IF_ERROR(node_.cgroups->CreateStep(job.job_id(), "step_extern", StepCageLimits{}));
  }

  JobEnvironmentInput env;
  env.job = &job;
  env.payload = &request_.payload();
  env.cluster_name = request_.cluster_name().empty() ? node_.config->settings.cluster_name
                                                     : request_.cluster_name();
  env.node_name = node;
  for (const GpuDevice& gpu : gpus_) env.gpu_indices.push_back(gpu.index);
  std::sort(env.gpu_indices.begin(), env.gpu_indices.end());
  env.devices_constrained = node_.config->cgroup.constrain_devices && node_.cgroups->enforcing();
  env.default_mem_per_cpu_mb = DefaultMemPerCpuMb(*node_.config, spec.partition());

  JobProcessSpec process;
  process.program = JobSpoolDir() + "/script";
  process.argv.push_back(process.program);
  for (const std::string& arg : spec.argv()) process.argv.push_back(arg);
  process.env = BuildJobEnvironment(env);
  process.uid = spec.uid();
  process.gid = spec.gid();
  process.groups = std::move(groups);
  process.work_dir = spec.work_dir().empty() ? "/tmp" : spec.work_dir();
  StdioPaths stdio = ResolveStdioPaths(job, node);
  process.stdout_path = stdio.out;
  process.stderr_path = stdio.err;
  process.append = stdio.append;
  process.soft_limits = SoftLimitsFrom(spec.rlimits());
  process.umask = UmaskFromEnvironment(process.env);
  // The TaskEpilog runs as the script ran, after it (task_epilog.h).
  task_ = process;
  std::string container_error = container_.error();
  std::string container_config;  // Where the TaskProlog's variables go, in a container
  if (const std::string& bundle = spec.container().bundle();
      !bundle.empty() && container_error.empty()) {
    // sbatch --container: the script runs in the user's OCI bundle through
    // oci.conf's runtime (oci_bundle.h), mounted at its own path.
    OciBundleTask task;
    task.bundle = bundle;
    task.argv = process.argv;
    task.env = process.env;
    task.uid = spec.uid();
    task.gid = spec.gid();
    task.host_files = {process.program};
    task.pattern.node = node;
    task.pattern.user = spec.user();
    task.pattern.uid = spec.uid();
    task.pattern.job_id = job.job_id();
    task.pattern.step_id = kBatchScriptContainerStep;
    task.pattern.spool = node_.settings.spool_dir;
    Result<ContainerCommand> command =
        NodeOciBundleCommand(node_.config->slurm_conf_path,
                             NodeContainersDir(node_.settings.spool_dir), std::move(task));
    if (command.ok()) {
      process.argv = std::move(command->argv);
      container_config = std::move(command->config);
      process.program = process.argv.front();
      process.runtime_mounts = true;
    } else {
      container_error = command.status().message();
    }
  }
  if (!container_error.empty()) {
    // The container could not be had: the script does not run; its standard
    // error says why, and it fails as a script that could not start would.
    process.program = "/bin/sh";
    process.argv = {"/bin/sh", "-c", "printf '%s\\n' \"$0\" >&2; exit 1",
                    "rotad: error: " + container_error};
  } else if (!container_.dir().empty()) {
    // sbatch's pyxis options: crun starts the script in the container rotad
    // opened (container_store.h); the script is mounted at its own path.
    ContainerTask in_container;
    in_container.argv = process.argv;
    in_container.env = process.env;
    in_container.device_files = ContainerDeviceFiles(node_, env.gpu_indices);
    in_container.driver_gpus = ContainerDriverGpus(node_, env.gpu_indices);
    in_container.step_id = kBatchScriptContainerStep;
    in_container.host_files = {process.program};
    Result<ContainerCommand> command = ContainerTaskCommand(
        RuntimeFromPlace(container_), ContainerDefaults{}, ContainerFromPlace(container_),
        spec.container(), ContainerUserOf(spec), in_container);
    if (!command.ok()) return command.status();
    process.argv = std::move(command->argv);
    container_config = std::move(command->config);
    process.program = process.argv.front();
    process.runtime_mounts = true;
  }
  if (const std::string& prolog = node_.config->settings.task_prolog; !prolog.empty()) {
    // The TaskProlog runs in the script's own process, just before it
    // (task_starter.h): rota-task takes the place of the script and execs it.
    std::vector<std::string> starter = TaskStarterCommand(prolog, container_config);
    process.argv.insert(process.argv.begin(), starter.begin(), starter.end());
    process.program = process.argv.front();
  }

  // Prolog and Epilog see the job's Slurm variables (not the user's environment).
  script_env_ = {kScriptPath};
  for (const std::string& var : process.env) {
    if (var.rfind("SLURM_", 0) == 0 || var.rfind("SLURMD_NODENAME=", 0) == 0 ||
        var.rfind("CUDA_VISIBLE_DEVICES=", 0) == 0) {
      script_env_.push_back(var);
    }
  }
  if (!node_.config->settings.prolog.empty()) {
    prolog_failure_ = RunSiteScripts(node_.config->settings.prolog, "Prolog");
    if (!prolog_failure_.empty()) return FailedPrecondition("Prolog failed: " + prolog_failure_);
  }

  // The pid becomes visible to Signal() only after the exec succeeded; until
  // then the job is not running.
  Result<pid_t> pid = SpawnJobProcess(
      process, [this](pid_t child) { return node_.cgroups->AddPid(job_id(), child); });
  if (!pid.ok()) return pid.status();
  std::lock_guard<std::mutex> lock(mu_);
  pid_ = *pid;
  spdlog::info(
      "job {}: started pid {} as {} (uid {}) in {}{}", job.job_id(), *pid, user, spec.uid(),
      node_.cgroups->Name(),
      env.gpu_indices.empty() ? "" : fmt::format(", GPUs {}", fmt::join(env.gpu_indices, ",")));
  return Status::Ok();
}

wire::JobExitedRequest BatchJob::Run(const std::function<void(const Status&)>& launched) {
  Status started = Launch();
  launched(started);
  if (!started.ok()) {
    spdlog::error("job {}: launch failed: {}", job_id(), started.message());
    CleanUp();
    return Outcome(kLaunchFailedStatus);
  }
  // The Epilog runs once the job has ended and its cage is gone.
  auto run_epilog = [this] {
    if (node_.config->settings.epilog.empty()) return;
    std::string failure = RunSiteScripts(node_.config->settings.epilog, "Epilog");
    if (!failure.empty()) DrainNode("Epilog error: " + failure);
  };
  // A daemon that began stopping while this job started would miss it.
  if (node_.stop->IsSet()) Signal(SIGKILL, false);
  pid_t pid;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pid = pid_;
  }
  // See the exit without reaping, so that Signal() can never hit a recycled pid.
  siginfo_t info{};
  while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ended_ = true;
  }
  ended_cv_.notify_all();
  // No Signal() starts it once ended_ is set: reading it unlocked is safe now.
  if (killer_.joinable()) killer_.join();
  int status = 0;
  rusage used{};
  while (wait4(pid, &status, 0, &used) < 0 && errno == EINTR) {
  }
  spdlog::info("job {}: batch script ended with wait status {:#x}", job_id(), status);
  // Read before the cage goes (CleanUp).
  usage_ = BatchStepUsage(cage_created_ ? node_.cgroups->PeakMemoryBytes(job_id()) : std::nullopt,
                          static_cast<uint64_t>(std::max<long>(0, used.ru_maxrss)),
                          node_.settings.node_name);
  usage_.set_user_cpu_us(UserCpuMicros(used));
  usage_.set_system_cpu_us(SystemCpuMicros(used));
  // The controller shows the job COMPLETING, its resources still held, while
  // what is left of it is killed and the Epilog runs; the second report frees them.
  if (cage_created_ && node_.cgroups->OomKills(job_id()) > 0) out_of_memory_ = true;
  // The early report is news only (one try): cleaning up must not wait for
  // the controller, and the final report alone ends the job as well. Without
  // an Epilog the final report follows within milliseconds (killing what is
  // left takes no longer), so the news is not worth a credential and a
  // controller transaction per job.
  if (!node_.config->settings.epilog.empty()) {
    Status told = node_.controller->Call(
        api::kJobExited, Outcome(static_cast<uint32_t>(status), /*cleanup_follows=*/true));
    if (!told.ok()) {
      spdlog::warn("job {}: cannot report the end of its script ({})", job_id(), told.message());
    }
  }
  RunTaskEpilogHere();
  CleanUp();
  run_epilog();
  return Outcome(static_cast<uint32_t>(status));
}

void BatchJob::Signal(int signal, bool batch_only, bool terminate) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pid_ <= 0) return;
  if (batch_only) {
    if (!ended_) kill(pid_, signal);
    return;
  }
  Status s = node_.cgroups->Signal(job_id(), signal);
  if (!s.ok()) spdlog::warn("job {}: signal {}: {}", job_id(), signal, s.message());
  // A script that already left its cage (unenforced hosts) still gets it.
  if (!ended_) kill(pid_, signal);
  if (terminate && !ended_ && !killer_.joinable()) {
    auto wait = std::chrono::seconds(std::max<int64_t>(0, node_.config->settings.kill_wait));
    killer_ = std::thread([this, wait] { KillAfterWait(wait); });
  }
}

void BatchJob::RunTaskEpilogHere() {
  const std::string& program = node_.config->settings.task_epilog;
  if (program.empty() || !cage_created_) return;
  Result<int> ran = RunTaskEpilog(
      program, task_, [this](pid_t child) { return node_.cgroups->AddPid(job_id(), child); });
  if (!ran.ok()) {
    spdlog::error("job {}: TaskEpilog {}: {}", job_id(), program, ran.status().message());
  } else if (*ran != 0) {
    spdlog::error("job {}: TaskEpilog {} failed with wait status {:#x}", job_id(), program, *ran);
  }
}

void BatchJob::KillAfterWait(std::chrono::seconds wait) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (ended_cv_.wait_for(lock, wait, [this] { return ended_; })) return;
  }
  spdlog::info("job {}: still running {} s after SIGTERM (KillWait); sending SIGKILL", job_id(),
               wait.count());
  Signal(SIGKILL, false);
}

void BatchJob::CleanUp() {
  if (cage_created_) {
    // Read before the cage goes: the kernel's count of memory-limit kills.
    uint64_t oom_kills = node_.cgroups->OomKills(job_id());
    if (oom_kills > 0) {
      out_of_memory_ = true;
      spdlog::info("job {}: {} process(es) killed for exceeding the memory limit", job_id(),
                   oom_kills);
    }
    Status killed = node_.cgroups->KillAll(job_id());
    if (!killed.ok()) {
      spdlog::error("job {}: {}", job_id(), killed.message());
      DrainNode("Kill task failed");  // Slurm's reason for processes that survive the job.
    }
    Status removed = node_.cgroups->Remove(job_id());
    if (!removed.ok()) spdlog::error("job {}: {}", job_id(), removed.message());
  }
  // The next job must find its GPUs free: a process outside the cage that still
  // holds one (a leaked handle, a stuck driver client) drains the node instead.
  std::vector<std::string> files;
  for (const GpuDevice& gpu : gpus_) {
    if (!gpu.file.empty()) files.push_back(gpu.file);
  }
  std::vector<std::vector<pid_t>> holders = ProcessesHoldingAny(files);
  for (size_t i = 0; i < files.size(); ++i) {
    if (holders[i].empty()) continue;
    std::string reason = fmt::format("GPU {} still in use by pid {} after job {}", files[i],
                                     holders[i].front(), job_id());
    spdlog::error("{}", reason);
    DrainNode(reason);
  }
  node_.gpus->Release(job_id());
  std::error_code ec;
  std::filesystem::remove_all(JobSpoolDir(), ec);
}

std::string BatchJob::RunSiteScripts(const std::string& pattern, std::string_view what) const {
  // Slurm's PrologEpilogTimeout defaults to "practically never"; five minutes
  // keeps a hung script from holding a node for ever.
  constexpr std::chrono::seconds kTimeout(300);
  std::vector<std::string> scripts = ExpandScriptPattern(pattern);
  for (const std::string& script : scripts) {
    ScriptOutcome outcome = RunNodeScript(script, script_env_, kTimeout, what);
    if (!outcome.ok) {
      spdlog::error("job {}: {} {} failed: {}", job_id(), what, script, outcome.reason);
      return outcome.reason;
    }
  }
  return "";
}

void BatchJob::DrainNode(const std::string& reason) const {
  wire::UpdateNodeRequest req;
  req.set_nodes(node_.settings.node_name);
  req.set_state("DRAIN");
  req.set_reason(reason);
  Status s = node_.controller->Call(api::kUpdateNode, req);
  if (!s.ok()) spdlog::error("job {}: cannot drain the node: {}", job_id(), s.message());
}

wire::JobExitedRequest BatchJob::Outcome(uint32_t wait_status, bool cleanup_follows) const {
  wire::JobExitedRequest req;
  req.set_job_id(job_id());
  req.set_wait_status(wait_status);
  req.set_node(node_.settings.node_name);
  req.set_out_of_memory(out_of_memory_);
  req.set_cleanup_follows(cleanup_follows);
  if (usage_.max_rss_kb() > 0 || usage_.user_cpu_us() > 0 || usage_.system_cpu_us() > 0) {
    *req.mutable_usage() = usage_;
  }
  if (!prolog_failure_.empty()) {
    req.set_prolog_failed(true);
    req.set_failure_reason(prolog_failure_);
  }
  return req;
}

bool ReportJobExit(const NodeContext& node, const wire::JobExitedRequest& exit) {
  for (int attempt = 0;; ++attempt) {
    Status s = node.controller->Call(api::kJobExited, exit);
    if (s.ok()) return true;
    if (s.code() != StatusCode::kUnavailable) {
      spdlog::error("job {}: the controller refused its exit report: {}", exit.job_id(),
                    s.message());
      return true;
    }
    if (attempt == 0) {
      spdlog::warn("job {}: cannot report its exit yet ({}); retrying", exit.job_id(), s.message());
    }
    if (node.stop->WaitFor(std::chrono::seconds(1))) {
      spdlog::error("job {}: stopping before the controller heard of its exit", exit.job_id());
      return false;
    }
  }
}

}  // namespace rota::noded
