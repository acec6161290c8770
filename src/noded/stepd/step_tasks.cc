#include "noded/stepd/step_tasks.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "api/methods.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/step_io_pattern.h"
#include "common/user_names.h"
#include "noded/cage/step_cage.h"
#include "noded/cpu_list.h"
#include "noded/gpu/gres_device_files.h"
#include "noded/job_environment.h"
#include "noded/pmi/pmi2_tasks.h"
#include "noded/stepd/step_channel.h"
#include "noded/stepd/step_plan.h"
#include "noded/stepd/task_cpu_binding.h"
#include "noded/stepd/task_epilog.h"
#include "noded/stepd/task_gpu_binding.h"
#include "noded/stepd/task_limits.h"
#include "noded/stepd/task_process.h"
#include "noded/stepd/task_starter.h"
#include "noded/stepd/task_terminal.h"

namespace rota::noded {

struct StepTasks::Running {
  uint32_t job_id = 0;
  uint32_t step_id = 0;
  uint32_t uid = 0;
  std::thread thread;
  std::mutex mu;
  std::vector<pid_t> live;  // Tasks not yet seen to exit. Guarded by mu.
  // The whole job was killed while this step was still starting its tasks:
  // each task started afterwards is killed at once. Guarded by mu.
  bool killed = false;
};

namespace {

Result<int> ConnectTcp(const std::string& host, uint32_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    return Status(StatusCode::kUnavailable,
                  "cannot resolve srun's host " + host + ": " + gai_strerror(rc));
  }
  int fd = -1;
  int saved = 0;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      saved = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return Status(StatusCode::kUnavailable, "cannot connect to srun at " + host + ":" +
                                                std::to_string(port) + ": " + strerror(saved));
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

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

// The node's GPUs of `indices`.
std::vector<GpuDevice> GpusOf(const NodeContext& node, const std::vector<uint32_t>& indices) {
  std::vector<GpuDevice> gpus;
  for (const GpuDevice& gpu : node.gpus->devices()) {
    if (std::find(indices.begin(), indices.end(), gpu.index) != indices.end()) gpus.push_back(gpu);
  }
  return gpus;
}

// What a node's share of the job allows (as the batch job's cage does).
Result<CageLimits> JobCageLimits(const NodeContext& node, const wire::JobRecord& job,
                                 const std::vector<uint32_t>& gpu_indices) {
  const conf::CgroupConf& conf = node.config->cgroup;
  CageLimits limits;
  int here = -1;
  for (int i = 0; i < job.nodes_size(); ++i) {
    if (job.nodes(i) == node.settings.node_name) here = i;
  }
  if (conf.constrain_cores && here >= 0 && here < job.allocs_size()) {
    limits.cpu_count = job.allocs(here).cpus();
    limits.cpu_ids = ParseCpuList(job.allocs(here).cpu_ids()).value_or(std::vector<uint32_t>{});
  }
  if (conf.constrain_ram_space && here >= 0 && here < job.mem_by_node_mb_size() &&
      job.mem_by_node_mb(here) > 0) {
    limits.memory_bytes = CageMemoryBytes(conf, job.mem_by_node_mb(here));
  }
  if (conf.constrain_devices) {
    limits.denied_devices = DeniedDevicesFor(*node.config, node.settings.node_name,
                                             node.gpus->devices(), GpusOf(node, gpu_indices));
  }
  limits.max_tasks = JobTaskLimit(conf);
  return limits;
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

// How much of srun's stdin a node holds for a task that has not read it yet;
// beyond it, srun is made to wait (back-pressure through TCP).
constexpr size_t kTaskStdinBufferBytes = 1 << 20;

// How long tasks on the job's first node wait for its batch step to start
// (its cage); launches and prologs take a while.
constexpr std::chrono::seconds kBatchStartWait(60);
// Meanwhile, how often they ask the controller whether the job still runs.
constexpr std::chrono::milliseconds kJobEndCheckEvery(500);

struct LocalTask {
  uint32_t global_id = 0;
  uint32_t local_id = 0;
  pid_t pid = -1;
  int fds[2] = {-1, -1};  // stdout, stderr read ends
  int pidfd = -1;         // Readable once the task exits (-1: kernel without pidfd)
  bool exited = false;
  uint32_t wait_status = 0;
  uint64_t max_rss_kb = 0;  // Its peak resident set with its waited-for children's (wait4)
  bool reported = false;
  bool out_of_memory = false;  // Ended after the kernel's memory kill in its step's cage
  int stdin_fd = -1;           // From srun (-i): write end, non-blocking
  std::string stdin_pending;   // Received from srun, not yet taken by the task
  bool stdin_eof = false;      // srun's stdin ended: close once pending is written
  // --pty: the pseudo-terminal's master side (task 0 only), for its size.
  // fds[0] and stdin_fd are copies of it: output and input go through it.
  int terminal = -1;
  // Its environment, kept for the TaskEpilog when slurm.conf names one.
  std::vector<std::string> env;
};

// Where one output stream of task `task` goes: "" for srun (a pipe), else a file.
std::string OutputPath(const wire::TaskIoMode& mode, uint32_t task, const StepIoFields& fields) {
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

// Writes what it can of the task's pending stdin; closes it once srun's stdin
// ended and all is written, or when the task stopped reading.
void WritePendingStdin(LocalTask& task) {
  while (task.stdin_fd >= 0 && !task.stdin_pending.empty()) {
    ssize_t n = write(task.stdin_fd, task.stdin_pending.data(), task.stdin_pending.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {  // EPIPE: nobody reads any more
      task.stdin_pending.clear();
      close(task.stdin_fd);
      task.stdin_fd = -1;
      return;
    }
    task.stdin_pending.erase(0, static_cast<size_t>(n));
  }
  if (task.stdin_fd >= 0 && task.stdin_eof && task.stdin_pending.empty()) {
    close(task.stdin_fd);
    task.stdin_fd = -1;
  }
}

// Takes one frame from srun (stdin for some of the tasks, or a PMI fence's
// end for `pmi`). False: srun is gone.
bool RelayStdin(int io, std::vector<LocalTask>& tasks, Pmi2Tasks* pmi) {
  wire::TaskIoFrame frame;
  if (!ReadStepMessage(io, frame, std::chrono::seconds(10)).ok()) return false;
  if (frame.has_pmi()) {
    if (pmi != nullptr) pmi->OnSrunFrame(frame.pmi());
    return true;
  }
  if (frame.kind() == wire::TaskIoFrame::WINDOW_SIZE) {
    for (LocalTask& task : tasks) {
      if (task.terminal >= 0) {
        ResizeTaskTerminal(task.terminal, frame.window().rows(), frame.window().cols());
      }
    }
    return true;
  }
  if (frame.kind() != wire::TaskIoFrame::STDIN && frame.kind() != wire::TaskIoFrame::STDIN_EOF) {
    return true;
  }
  for (LocalTask& task : tasks) {
    if (task.stdin_fd < 0 || (!frame.all_tasks() && frame.task() != task.global_id)) continue;
    if (frame.kind() == wire::TaskIoFrame::STDIN_EOF && task.terminal >= 0) {
      // A terminal stays open; its reader sees the end of input as a
      // terminal user would make it.
      task.stdin_pending += TerminalEndOfFile(task.terminal);
    } else if (frame.kind() == wire::TaskIoFrame::STDIN_EOF) {
      task.stdin_eof = true;
    } else {
      task.stdin_pending += frame.data();
    }
    WritePendingStdin(task);
  }
  return true;
}

}  // namespace

StepTasks::StepTasks(const NodeContext& node, std::function<bool(uint32_t)> batch_here)
    : node_(node), batch_here_(std::move(batch_here)) {}

StepTasks::~StepTasks() { Stop(); }

void StepTasks::Launch(wire::LaunchTasksRequest request, uint32_t caller_uid, bool privileged,
                       rpc::Responder respond) {
  auto running = std::make_shared<Running>();
  running->job_id = request.job_id();
  running->step_id = request.step_id();
  std::lock_guard<std::mutex> lock(mu_);
  JoinFinishedLocked();
  if (stopped_) {
    respond.Fail(Status(StatusCode::kUnavailable, "rotad is stopping"));
    return;
  }
  auto key = std::make_pair(request.job_id(), request.step_id());
  if (steps_.count(key) != 0) {
    respond.Fail(InvalidArgument(
        fmt::format("step {}.{} already runs here", request.job_id(), request.step_id())));
    return;
  }
  steps_[key] = running;
  running->thread = std::thread(
      [this, running, request = std::move(request), caller_uid, privileged, respond]() mutable {
        Run(running, std::move(request), caller_uid, privileged, respond);
      });
}

Result<int> StepTasks::Signal(uint32_t job_id, std::optional<uint32_t> step_id, int signal,
                              uint32_t caller_uid, bool privileged, bool ends_job) {
  int reached = 0;
  bool refused = false;
  std::lock_guard<std::mutex> lock(mu_);
  // The job itself killed (not one step): tasks of its steps still being
  // started are killed as they come. (A launch registered after this asks the
  // controller first, which no longer runs the job's steps.)
  const bool job_killed = ends_job && !step_id && privileged;
  for (auto& [key, running] : steps_) {
    if (key.first != job_id || (step_id && key.second != *step_id)) continue;
    std::lock_guard<std::mutex> step_lock(running->mu);
    if (!privileged && running->uid != caller_uid) {
      refused = true;
      continue;
    }
    if (job_killed) running->killed = true;
    for (pid_t pid : running->live) {
      kill(-pid, signal);
      kill(pid, signal);
      ++reached;
    }
  }
  if (refused && reached == 0) return Status(StatusCode::kPermissionDenied, "Invalid user id");
  return reached;
}

void StepTasks::Stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    for (auto& [key, running] : steps_) {
      std::lock_guard<std::mutex> step_lock(running->mu);
      for (pid_t pid : running->live) kill(-pid, SIGKILL);
    }
    JoinFinishedLocked();
  }
  // Each step's thread moves itself to finished_ on its way out.
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      JoinFinishedLocked();
      if (steps_.empty()) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void StepTasks::JoinFinishedLocked() {
  for (std::thread& t : finished_) t.join();
  finished_.clear();
}

Status StepTasks::HoldCage(const wire::JobRecord& job, const std::vector<uint32_t>& gpu_indices) {
  std::lock_guard<std::mutex> lock(mu_);
  int& users = cage_users_[job.job_id()];
  if (users++ > 0) return Status::Ok();
  Status made = node_.cgroups->Create(job.job_id(), job.spec().uid());
  Result<CageLimits> limits = JobCageLimits(node_, job, gpu_indices);
  if (made.ok())
    made = limits.ok() ? node_.cgroups->SetLimits(job.job_id(), *limits) : limits.status();
  if (!made.ok()) {
    node_.cgroups->KillAll(job.job_id()).ok();
    node_.cgroups->Remove(job.job_id()).ok();
    cage_users_.erase(job.job_id());
  }
  return made;
}

void StepTasks::AdoptJobCage(uint32_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  ++cage_users_[job_id];
}

void StepTasks::ReleaseCage(uint32_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cage_users_.find(job_id);
  if (it == cage_users_.end() || --it->second > 0) return;
  cage_users_.erase(it);
  Status killed = node_.cgroups->KillAll(job_id);
  if (!killed.ok()) spdlog::error("job {}: {}", job_id, killed.message());
  Status removed = node_.cgroups->Remove(job_id);
  if (!removed.ok()) spdlog::error("job {}: {}", job_id, removed.message());
}

void StepTasks::Run(std::shared_ptr<Running> running, wire::LaunchTasksRequest request,
                    uint32_t caller_uid, bool privileged, rpc::Responder respond) {
  const uint32_t job_id = request.job_id();
  const uint32_t step_id = request.step_id();
  const std::string& me = node_.settings.node_name;
  bool answered = false;
  int io = -1;
  bool own_cage = false;
  const std::string step_cage = StepCageName(step_id);
  bool step_caged = false;  // Its cage below the job's is made
  std::vector<LocalTask> tasks;

  auto finish = [&] {
    for (LocalTask& t : tasks) {
      for (int* fd : {&t.fds[0], &t.fds[1], &t.pidfd, &t.stdin_fd, &t.terminal}) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
      }
      if (!t.exited && t.pid > 0) {
        kill(-t.pid, SIGKILL);
        kill(t.pid, SIGKILL);
        int status;
        while (waitpid(t.pid, &status, 0) < 0 && errno == EINTR) {
        }
      }
    }
    {
      std::lock_guard<std::mutex> step_lock(running->mu);
      running->live.clear();
    }
    // What the tasks left behind goes with the step.
    if (step_caged) {
      Status removed = node_.cgroups->RemoveStep(job_id, step_cage);
      if (!removed.ok()) spdlog::error("step {}.{}: {}", job_id, step_id, removed.message());
    }
    if (own_cage) ReleaseCage(job_id);
    if (io >= 0) close(io);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = steps_.find({job_id, step_id});
    if (it != steps_.end()) {
      finished_.push_back(std::move(it->second->thread));
      steps_.erase(it);
    }
  };
  auto fail = [&](const Status& why) {
    spdlog::warn("step {}.{}: {}", job_id, step_id, why.message());
    if (io >= 0) {
      wire::TaskIoFrame frame;
      frame.set_kind(wire::TaskIoFrame::FAILED);
      frame.set_node(me);
      frame.set_data(why.message());
      WriteStepMessage(io, frame).ok();
    }
    if (!answered) respond.Fail(why);
    answered = true;
    finish();
  };

  // The request comes from a user: what runs and where is taken from the
  // controller's records, not from it.
  wire::ListStepsRequest ask;
  ask.add_job_ids(job_id);
  ask.set_step_id(step_id);
  ask.set_step_id_given(true);
  ask.set_with_jobs(true);
  wire::ListStepsResponse known;
  Status asked = node_.controller->Call(api::kListSteps, ask, &known);
  if (!asked.ok()) return fail(asked);
  if (known.steps_size() != 1 || known.jobs_size() != 1) {
    return fail(NotFound(fmt::format("step {}.{} is not running", job_id, step_id)));
  }
  Result<StepPlan> planned = PlanStep(node_, known, request.node_index(), caller_uid, privileged);
  if (!planned.ok()) return fail(planned.status());
  {
    std::lock_guard<std::mutex> step_lock(running->mu);
    running->uid = planned->job.spec().uid();
  }
  const StepPlan& plan = *planned;
  const wire::JobRecord& job = plan.job;
  const wire::JobStepRecord& step = plan.step;
  const int node_index = plan.node_index;
  const uint32_t local_tasks = plan.local_tasks;
  const uint32_t first_task = plan.first_task;
  const uint32_t cpus_per_task = plan.cpus_per_task;
  const std::vector<uint32_t>& job_gpus = plan.job_gpus;
  const std::vector<uint32_t>& step_cpus = plan.step_cpus;
  const CpuBindSpec& cpu_bind = plan.cpu_bind;
  const TaskCpuBinding& cpu_binding = plan.cpu_binding;
  const GpuBindSpec& bind = plan.gpu_bind;
  const TaskGpuBinding& binding = plan.gpu_binding;
  const bool constrained = plan.devices_constrained;
  const bool confine_gpus = plan.confine_gpus;

  Result<int> connected = ConnectTcp(request.io_host(), request.io_port());
  if (!connected.ok()) return fail(connected.status());
  io = *connected;
  wire::TaskIoFrame hello;
  hello.set_kind(wire::TaskIoFrame::HELLO);
  hello.set_io_key(request.io_key());
  hello.set_node(me);
  if (Status s = WriteStepMessage(io, hello); !s.ok()) return fail(s);

  // The batch step runs on the job's first node, in the job's cage: tasks
  // there join it, once rota-stepd has made it (srun may come first, from
  // salloc). Elsewhere the step makes the job's cage itself.
  if (me == job.nodes(0)) {
    auto now = std::chrono::steady_clock::now();
    const auto deadline = now + kBatchStartWait;
    auto next_check = now + kJobEndCheckEvery;
    while (!batch_here_(job_id)) {
      now = std::chrono::steady_clock::now();
      if (now > deadline || node_.stop->IsSet()) {
        return fail(FailedPrecondition(
            fmt::format("job {}: its batch step does not run on {}", job_id, me)));
      }
      // A job cancelled before its batch step came up here never brings it:
      // give up at once rather than after kBatchStartWait.
      bool killed;
      {
        std::lock_guard<std::mutex> step_lock(running->mu);
        killed = running->killed;
      }
      if (!killed && now >= next_check) {
        next_check = now + kJobEndCheckEvery;
        wire::ListStepsResponse again;
        killed = node_.controller->Call(api::kListSteps, ask, &again).ok() &&
                 (again.jobs_size() != 1 || again.jobs(0).state() != wire::JOB_STATE_RUNNING);
      }
      if (killed) {
        return fail(FailedPrecondition(
            fmt::format("job {} ended before step {}.{} started", job_id, job_id, step_id)));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  } else {
    if (Status held = HoldCage(job, job_gpus); !held.ok()) return fail(held);
    own_cage = true;
  }
  // The step's own cage below the job's: its CPUs and memory here, and its
  // tasks' cages below it.
  StepCageRequest cage_request;
  cage_request.step_cpus = step_cpus;
  cage_request.step_mem_mb = node_index < step.mem_mb_size() ? step.mem_mb(node_index) : 0;
  cage_request.tasks_bound_by_user = cpu_bind.kind != CpuBindSpec::kDefault && cpu_binding.bound();
  cage_request.task_cpus = cpu_binding.task_cpus;
  cage_request.tasks_confined_to_gpus = confine_gpus;
  // The host's GRES files, looked up once for all of the step's task cages.
  const std::vector<std::string> host_gres_files =
      confine_gpus ? HostGresFiles(*node_.config, node_.settings.node_name, node_.gpus->devices())
                   : std::vector<std::string>{};
  const StepCageLimits step_limits =
      PlanStepCage(node_.config->cgroup, node_.cgroups->enforcing(), cage_request);
  step_caged = true;  // Removed on the way out, also when half made.
  if (Status made = node_.cgroups->CreateStep(job_id, step_cage, step_limits); !made.ok()) {
    return fail(made);
  }

  // Identity and environment.
  const wire::JobSpec& spec = job.spec();
  std::string user = spec.user().empty() ? UserName(spec.uid()) : spec.user();
  std::vector<gid_t> groups{spec.gid()};
  if (!user.empty()) {
    if (Result<std::vector<gid_t>> found = GroupsOf(user, spec.gid()); found.ok()) groups = *found;
  }
  std::vector<std::string> step_nodes(step.nodes().begin(), step.nodes().end());
  std::vector<uint32_t> per_node(step.tasks_per_node().begin(), step.tasks_per_node().end());
  std::vector<uint32_t> step_gpus;
  for (const auto& list : binding.task_gpus)
    step_gpus.insert(step_gpus.end(), list.begin(), list.end());
  std::sort(step_gpus.begin(), step_gpus.end());
  step_gpus.erase(std::unique(step_gpus.begin(), step_gpus.end()), step_gpus.end());
  std::vector<std::string> base_env(request.environment().begin(), request.environment().end());
  const std::string tasks_per_node = FormatPerNodeCounts(per_node);
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"SLURM_JOB_ID", std::to_string(job_id)},
           {"SLURM_JOBID", std::to_string(job_id)},
           {"SLURM_STEP_ID", std::to_string(step_id)},
           {"SLURM_STEPID", std::to_string(step_id)},
           {"SLURM_NODEID", std::to_string(node_index)},
           {"SLURMD_NODENAME", me},
           {"SLURM_STEP_NODELIST", CompressHostlist(step_nodes)},
           {"SLURM_STEP_NUM_NODES", std::to_string(step.nodes_size())},
           {"SLURM_STEP_NUM_TASKS", std::to_string(step.num_tasks())},
           {"SLURM_STEP_TASKS_PER_NODE", tasks_per_node},
           {"SLURM_TASKS_PER_NODE", tasks_per_node},
           {"SLURM_NTASKS", std::to_string(step.num_tasks())},
           {"SLURM_NPROCS", std::to_string(step.num_tasks())},
           {"SLURM_NNODES", std::to_string(step.nodes_size())},
           {"SLURM_NODELIST", CompressHostlist(step_nodes)},
           {"SLURM_CPUS_PER_TASK", std::to_string(cpus_per_task)},
       }) {
    SetEnv(base_env, name, value);
  }
  for (const auto& [name, value] : CpuBindEnvironment(cpu_binding)) SetEnv(base_env, name, value);
  // SLURM_GPUS_PER_TASK is what srun inherited, as in Slurm 22.05: a step's
  // own --gpus-per-task does not set it for its tasks.
  const std::string work_dir = request.work_dir().empty() ? "/tmp" : request.work_dir();
  std::vector<std::string> argv(request.argv().begin(), request.argv().end());
  StepIoFields io_fields;
  io_fields.job_id = job_id;
  io_fields.step_id = step_id;
  io_fields.node_index = static_cast<uint32_t>(node_index);
  io_fields.node = me;
  io_fields.user = user;
  io_fields.job_name = spec.name();
  io_fields.array_job_id = job.array_job_id();
  io_fields.array_task_id = job.array_task_id();
  std::set<std::string> opened;    // Output files of earlier tasks here: appended to
  std::unique_ptr<Pmi2Tasks> pmi;  // srun --mpi=pmi2 (docs/mpi.md)
  if (request.pmi().type() == "pmi2") {
    Pmi2StepShape shape{fmt::format("{}.{}", job_id, step_id), step.num_tasks(), first_task,
                        local_tasks, Pmi2ProcessMapping(per_node)};
    Result<std::unique_ptr<Pmi2Tasks>> opened_pmi = Pmi2Tasks::Open(std::move(shape));
    if (!opened_pmi.ok()) return fail(opened_pmi.status());
    pmi = std::move(opened_pmi).value();
  }

  tasks.resize(local_tasks);
  for (uint32_t t = 0; t < local_tasks; ++t) {
    LocalTask& task = tasks[t];
    task.local_id = t;
    task.global_id = first_task + t;
    const std::vector<uint32_t>& gpus = binding.task_gpus[t];
    TaskProcessSpec process;
    process.argv = argv;
    process.env = base_env;
    process.umask = UmaskFromEnvironment(base_env);
    SetEnv(process.env, "SLURM_PROCID", std::to_string(task.global_id));
    SetEnv(process.env, "SLURM_LOCALID", std::to_string(t));
    if (pmi) {
      for (const auto& [name, value] : pmi->TaskEnvironment(t)) SetEnv(process.env, name, value);
      process.keep_fd = pmi->TaskEnd(t);
    }
    if (!job_gpus.empty()) {
      // As Slurm's step: the step's GPU count on the node, and the task's GPUs
      // by node index (Slurm 22.05 shows task 0's to every task; here each its own).
      SetEnv(process.env, "SLURM_GPUS_ON_NODE", std::to_string(step_gpus.size()));
      SetEnv(process.env, "SLURM_STEP_GPUS", JoinNumbers(gpus));
      // What CUDA numbers: a task confined to its GPUs sees them as 0..n-1;
      // one in the job's cage sees the job's, numbered in order; without a
      // cage every GPU is visible, by its node index.
      std::vector<uint32_t> visible;
      for (size_t i = 0; i < gpus.size(); ++i) {
        if (confine_gpus) {
          visible.push_back(static_cast<uint32_t>(i));
        } else if (constrained) {
          visible.push_back(static_cast<uint32_t>(
              std::find(job_gpus.begin(), job_gpus.end(), gpus[i]) - job_gpus.begin()));
        } else {
          visible.push_back(gpus[i]);
        }
      }
      for (const char* name : {"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES",
                               "ZE_AFFINITY_MASK"}) {
        SetEnv(process.env, name, JoinNumbers(visible));
      }
    }
    process.uid = spec.uid();
    process.gid = spec.gid();
    process.groups = groups;
    process.work_dir = work_dir;
    process.soft_limits = SoftLimitsFrom(request.rlimits());
    if (const std::string& prolog = node_.config->settings.task_prolog; !prolog.empty()) {
      // The TaskProlog runs in the task's own process, just before the
      // command (task_starter.h): rota-task execs the command after it.
      process.argv.insert(process.argv.begin(), {TaskStarterProgram(), prolog});
    }
    io_fields.task_id = task.global_id;
    // --pty: task 0 on a terminal of its own; srun sends the others' output
    // to /dev/null (ONE_TASK 0), as Slurm's srun does.
    std::optional<TaskTerminal> terminal;
    if (request.pty() && task.global_id == 0) {
      Result<TaskTerminal> opened_terminal =
          OpenTaskTerminal(request.window().rows(), request.window().cols(), spec.uid());
      if (!opened_terminal.ok()) return fail(opened_terminal.status());
      terminal = *opened_terminal;
      process.terminal_fd = terminal->terminal;
      SetEnv(process.env, "SLURM_PTY_WIN_ROW", std::to_string(request.window().rows()));
      SetEnv(process.env, "SLURM_PTY_WIN_COL", std::to_string(request.window().cols()));
    }
    process.stdout_path = OutputPath(request.std_out(), task.global_id, io_fields);
    process.stderr_path = OutputPath(request.std_err(), task.global_id, io_fields);
    process.truncate_out = !request.append() && opened.insert(process.stdout_path).second;
    process.truncate_err = !request.append() && process.stderr_path != process.stdout_path &&
                           opened.insert(process.stderr_path).second;
    switch (request.std_in().kind()) {
      case wire::TaskIoMode::FILE:
        process.stdin_path = ExpandStepIoPattern(request.std_in().pattern(), io_fields);
        break;
      case wire::TaskIoMode::ALL:
        process.stdin_pipe = true;
        break;
      case wire::TaskIoMode::STREAM:
        process.stdin_pipe = request.std_in().task() == task.global_id;
        break;
      default:
        break;
    }
    const std::vector<uint32_t>& bound_cpus = cpu_binding.task_cpus[t];
    TaskCageLimits task_limits;
    if (confine_gpus) {
      // Everything the job may not open, and the job's GPUs not bound to this task.
      task_limits.denied_devices =
          DeniedDeviceRules(host_gres_files, GrantedFiles(GpusOf(node_, gpus)));
    }
    if (step_limits.task_cpusets) task_limits.cpu_ids = bound_cpus;
    if (!node_.config->settings.task_epilog.empty()) task.env = process.env;
    Result<TaskProcess> started = SpawnTaskProcess(process, [&](pid_t pid) -> Status {
      if (step_limits.task_cages) {
        ROTA_RETURN_IF_ERROR(node_.cgroups->ConfineTask(
            job_id, step_cage, TaskCageName(task.global_id), pid, task_limits));
      } else {
        ROTA_RETURN_IF_ERROR(node_.cgroups->AddStepPid(job_id, step_cage, pid));
      }
      if (!bound_cpus.empty()) {
        Status bound = SetTaskAffinity(pid, bound_cpus);
        // The node's own default gives way to a host that cannot honour it;
        // a binding the user asked for does not.
        if (!bound.ok() && cpu_bind.kind != CpuBindSpec::kDefault) return bound;
        if (!bound.ok()) spdlog::warn("step {}.{}: {}", job_id, step_id, bound.message());
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
      return fail(Status(started.status().code(),
                         fmt::format("task {}: {}", task.global_id, started.status().message())));
    }
    task.pid = started->pid;
    task.fds[0] = started->stdout_fd;
    task.fds[1] = started->stderr_fd;
    task.stdin_fd = started->stdin_fd;
    task.pidfd = static_cast<int>(syscall(SYS_pidfd_open, task.pid, 0));
    std::lock_guard<std::mutex> step_lock(running->mu);
    running->live.push_back(task.pid);
    if (running->killed) {
      kill(-task.pid, SIGKILL);
      kill(task.pid, SIGKILL);
    }
    if (cpu_binding.verbose) {
      wire::TaskIoFrame frame;
      frame.set_kind(wire::TaskIoFrame::STDERR);
      frame.set_task(task.global_id);
      frame.set_data(DescribeTaskCpus(cpu_binding, me, task.global_id, t, task.pid, step_cpus) +
                     "\n");
      WriteStepMessage(io, frame).ok();
    }
    if (bind.verbose) {
      wire::TaskIoFrame frame;
      frame.set_kind(wire::TaskIoFrame::STDERR);
      frame.set_task(task.global_id);
      frame.set_data(DescribeTaskGpus(task.global_id, gpus) + "\n");
      WriteStepMessage(io, frame).ok();
    }
  }
  if (pmi) pmi->CloseTaskEnds();
  respond(0, wire::Empty().SerializeAsString());
  answered = true;
  spdlog::info("step {}.{}: {} task(s) started as uid {}", job_id, step_id, local_tasks,
               spec.uid());

  // slurm.conf's TaskEpilog after each task, before its exit is told to srun
  // (task_epilog.h); a kill of the step reaches it meanwhile.
  auto run_task_epilog = [&](const LocalTask& task) {
    const std::string& program = node_.config->settings.task_epilog;
    if (program.empty()) return;
    JobProcessSpec as_task;
    as_task.env = task.env;
    as_task.uid = spec.uid();
    as_task.gid = spec.gid();
    as_task.groups = groups;
    as_task.work_dir = work_dir;
    as_task.soft_limits = SoftLimitsFrom(request.rlimits());
    as_task.umask = UmaskFromEnvironment(task.env);
    pid_t running_epilog = -1;
    Result<int> ran = RunTaskEpilog(
        program, std::move(as_task),
        [&](pid_t pid) { return node_.cgroups->AddStepPid(job_id, step_cage, pid); },
        [&](pid_t pid) {
          std::lock_guard<std::mutex> step_lock(running->mu);
          if (pid > 0) {
            running->live.push_back(pid);
          } else {
            std::erase(running->live, running_epilog);
          }
          running_epilog = pid > 0 ? pid : running_epilog;
        });
    if (!ran.ok()) {
      spdlog::error("step {}.{}: task {}: TaskEpilog {}: {}", job_id, step_id, task.global_id,
                    program, ran.status().message());
    } else if (*ran != 0) {
      spdlog::error("step {}.{}: task {}: TaskEpilog {} failed with wait status {:#x}", job_id,
                    step_id, task.global_id, program, *ran);
    }
  };

  // Relay output and exits until every task has ended and said all.
  bool srun_gone = false;
  uint64_t oom_kills_told = 0;  // The step cage's memory kills srun was told of
  std::vector<char> buf(64 * 1024);
  while (!srun_gone) {
    std::vector<pollfd> polled;
    std::vector<std::pair<size_t, int>> owner;  // (task, stream) per polled fd
    for (size_t i = 0; i < tasks.size(); ++i) {
      for (int s = 0; s < 2; ++s) {
        if (tasks[i].fds[s] < 0) continue;
        polled.push_back({tasks[i].fds[s], POLLIN, 0});
        owner.emplace_back(i, s);
      }
    }
    const size_t streams = polled.size();
    for (const LocalTask& task : tasks) {
      if (!task.exited && task.pidfd >= 0) polled.push_back({task.pidfd, POLLIN, 0});
    }
    std::vector<size_t> writers;  // Tasks whose stdin has data waiting
    const size_t writers_first = polled.size();
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i].stdin_fd >= 0 && !tasks[i].stdin_pending.empty()) {
        polled.push_back({tasks[i].stdin_fd, POLLOUT, 0});
        writers.push_back(i);
      }
    }
    // srun's stdin frames; EOF: srun is gone. While a task has a full
    // buffer of stdin it has not read, no more is taken from srun (so srun
    // stops reading its own): only srun's going away is watched for.
    bool stdin_full = false;
    for (const LocalTask& task : tasks) {
      stdin_full =
          stdin_full || (task.stdin_fd >= 0 && task.stdin_pending.size() >= kTaskStdinBufferBytes);
    }
    const size_t pmi_first = pmi ? pmi->AddPollFds(polled) : polled.size();
    polled.push_back({io, static_cast<short>(stdin_full ? POLLRDHUP : POLLIN), 0});
    poll(polled.data(), polled.size(), 100);
    if (stdin_full && polled.back().revents != 0) {
      srun_gone = true;  // srun never half-closes: its end is closed.
    } else if (polled.back().revents != 0 && !RelayStdin(io, tasks, pmi.get())) {
      srun_gone = true;
    }
    if (pmi && !srun_gone) {
      for (const wire::TaskIoFrame& frame : pmi->OnPolled(polled, pmi_first)) {
        if (!WriteStepMessage(io, frame).ok()) srun_gone = true;
      }
    }
    for (size_t w = 0; w < writers.size(); ++w) {
      if (polled[writers_first + w].revents != 0) {
        WritePendingStdin(tasks[writers[w]]);
      }
    }
    for (size_t p = 0; p < streams && !srun_gone; ++p) {
      LocalTask& task = tasks[owner[p].first];
      int& fd = task.fds[owner[p].second];
      if (polled[p].revents == 0) {
        // An ended task whose pipes are drained is done, even if something
        // it left behind still holds them open.
        if (task.exited) {
          close(fd);
          fd = -1;
        }
        continue;
      }
      ssize_t n = read(fd, buf.data(), buf.size());
      if (n <= 0) {
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        close(fd);
        fd = -1;
        continue;
      }
      wire::TaskIoFrame frame;
      frame.set_kind(owner[p].second == 0 ? wire::TaskIoFrame::STDOUT : wire::TaskIoFrame::STDERR);
      frame.set_task(task.global_id);
      frame.set_data(buf.data(), static_cast<size_t>(n));
      if (!WriteStepMessage(io, frame).ok()) srun_gone = true;
    }
    bool all_done = true;
    for (LocalTask& task : tasks) {
      if (!task.exited) {
        siginfo_t info{};
        if (waitid(P_PID, task.pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) {
          {
            std::lock_guard<std::mutex> step_lock(running->mu);
            running->live.erase(std::remove(running->live.begin(), running->live.end(), task.pid),
                                running->live.end());
          }
          int status = 0;
          rusage used{};
          while (wait4(task.pid, &status, 0, &used) < 0 && errno == EINTR) {
          }
          task.exited = true;
          task.wait_status = static_cast<uint32_t>(status);
          task.max_rss_kb = static_cast<uint64_t>(std::max<long>(0, used.ru_maxrss));
          if (task.stdin_fd >= 0) close(task.stdin_fd);
          task.stdin_fd = -1;
          run_task_epilog(task);
          // A task that failed after the kernel killed in its step's cage for
          // memory (itself or a child of it) ended Out Of Memory.
          if (status != 0 && node_.config->cgroup.constrain_ram_space) {
            const uint64_t kills = node_.cgroups->StepOomKills(job_id, step_cage);
            task.out_of_memory = kills > 0;
            if (kills > oom_kills_told) {
              oom_kills_told = kills;
              wire::TaskIoFrame frame;
              frame.set_kind(wire::TaskIoFrame::STDERR);
              frame.set_task(task.global_id);
              frame.set_data(fmt::format(
                  "rotad: error: Detected {} oom-kill event(s) in StepId={}.{} cgroup on {}: "
                  "the kernel killed processes of the step that outgrew its memory limit.\n",
                  kills, job_id, step_id, me));
              if (!WriteStepMessage(io, frame).ok()) srun_gone = true;
            }
          }
        }
      }
      if (task.exited && !task.reported && task.fds[0] < 0 && task.fds[1] < 0) {
        wire::TaskIoFrame frame;
        frame.set_kind(wire::TaskIoFrame::EXIT);
        frame.set_task(task.global_id);
        frame.set_wait_status(task.wait_status);
        frame.set_max_rss_kb(task.max_rss_kb);
        frame.set_out_of_memory(task.out_of_memory);
        if (!WriteStepMessage(io, frame).ok()) srun_gone = true;
        task.reported = true;
      }
      all_done = all_done && task.reported;
    }
    if (all_done) break;
  }
  if (srun_gone) spdlog::warn("step {}.{}: srun is gone; killing its tasks here", job_id, step_id);
  finish();
}

}  // namespace rota::noded
