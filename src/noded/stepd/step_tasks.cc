#include "noded/stepd/step_tasks.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "api/methods.h"
#include "common/log.h"
#include "common/user_names.h"
#include "model/task_distribution.h"
#include "noded/cage/step_cage.h"
#include "noded/cpu_list.h"
#include "noded/gpu/gres_device_files.h"
#include "noded/pmi/pmi2_session.h"
#include "noded/pmi/pmi2_tasks.h"
#include "noded/pmi/pmix_tasks.h"
#include "noded/stepd/job_process.h"
#include "noded/stepd/local_task.h"
#include "noded/stepd/step_io_relay.h"
#include "noded/stepd/step_plan.h"
#include "noded/stepd/task_limits.h"
#include "noded/stepd/task_spawner.h"

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

  // A task just started: signals reach it from now on (and a kill of the
  // job that came first, at once).
  void Track(pid_t pid) {
    std::lock_guard<std::mutex> lock(mu);
    live.push_back(pid);
    if (killed) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
    }
  }
  bool Killed() {
    std::lock_guard<std::mutex> lock(mu);
    return killed;
  }
};

// What happens here as each of a step's tasks ends, before srun hears of it:
// the task leaves the step's live tasks, its TaskEpilog runs (a kill of the
// step reaches it meanwhile), and the step's cage tells its memory kills.
class StepTasks::TaskEnds : public TaskEndHooks {
 public:
  TaskEnds(const NodeContext& node, Running& running, const TaskSpawner& spawner)
      : node_(node), running_(running), spawner_(spawner) {}
  // --container-save: the step's container is saved to `path` as its tasks end.
  void SaveContainer(const OpenContainer* container, std::string path) {
    container_ = container;
    save_to_ = std::move(path);
  }

  void Exiting(const LocalTask& task) override {
    std::lock_guard<std::mutex> step_lock(running_.mu);
    running_.live.erase(std::remove(running_.live.begin(), running_.live.end(), task.pid),
                        running_.live.end());
  }
  void Reaped(const LocalTask& task) override {
    pid_t running_epilog = -1;
    spawner_.RunTaskEpilogAfter(task, [&](pid_t pid) {
      std::lock_guard<std::mutex> step_lock(running_.mu);
      if (pid > 0) {
        running_.live.push_back(pid);
      } else {
        std::erase(running_.live, running_epilog);
      }
      running_epilog = pid > 0 ? pid : running_epilog;
    });
  }
  uint64_t StepOomKills() override {
    if (!node_.config->cgroup.constrain_ram_space) return 0;
    return node_.cgroups->StepOomKills(running_.job_id, StepCageName(running_.step_id));
  }
  void LastExit(wire::TaskIoFrame& frame) override {
    if (container_ != nullptr && !save_to_.empty()) {
      // Saved before srun hears the step ended: its next step may use the file.
      Status saved = node_.containers->Save(*container_, save_to_);
      if (!saved.ok()) spdlog::warn("job {}: {}", running_.job_id, saved.message());
    }
    if (node_.gpu_watch == nullptr) return;
    std::optional<wire::GpuUsage> used =
        node_.gpu_watch->Finish(StepWatchKey(running_.job_id, running_.step_id));
    if (!used || used->samples() == 0) return;
    used->set_node(node_.settings.node_name);
    *frame.mutable_gpu() = std::move(*used);
  }

 private:
  const NodeContext& node_;
  Running& running_;
  const TaskSpawner& spawner_;
  const OpenContainer* container_ = nullptr;
  std::string save_to_;
};

namespace {

// What a node's share of the job allows (as the batch job's cage does).
Result<CageLimits> JobCageLimits(const NodeContext& node, const wire::JobLaunch& job,
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
                                             node.gpus->devices(), GpuDevicesOf(node, gpu_indices));
  }
  limits.max_tasks = JobTaskLimit(conf);
  return limits;
}

// How long tasks on the job's first node wait for its batch step to start
// (its cage); launches and prologs take a while.
constexpr std::chrono::seconds kBatchStartWait(60);
// Meanwhile, how often they ask the controller whether the job still runs.
constexpr std::chrono::milliseconds kJobEndCheckEvery(500);

// The controller's record of the step with its job.
wire::ListStepsRequest AskForStep(uint32_t job_id, uint32_t step_id) {
  wire::ListStepsRequest ask;
  ask.add_job_ids(job_id);
  ask.set_step_id(step_id);
  ask.set_step_id_given(true);
  ask.set_with_jobs(true);
  return ask;
}

// srun --mpi=pmi2 or pmix (docs/mpi.md): the step's PMI server here; null
// for other steps.
Result<std::unique_ptr<StepPmi>> OpenStepPmi(const wire::LaunchTasksRequest& request,
                                             const StepPlan& plan) {
  const std::string& type = request.pmi().type();
  if (type != "pmi2" && type != "pmix") return std::unique_ptr<StepPmi>();
  if (type == "pmix") {
    wire::PmixSetup setup;
    setup.set_job_id(request.job_id());
    setup.set_step_id(request.step_id());
    *setup.mutable_nodes() = plan.step.nodes();
    *setup.mutable_tasks_per_node() = plan.step.tasks_per_node();
    *setup.mutable_task_ids() = plan.step.task_ids();
    setup.set_node_index(static_cast<uint32_t>(plan.node_index));
    setup.set_uid(plan.job.spec().uid());
    setup.set_gid(plan.job.spec().gid());
    const char* tmp = std::getenv("TMPDIR");
    setup.set_tmp_base(tmp != nullptr && *tmp == '/' ? tmp : "/tmp");
    Result<std::unique_ptr<PmixTasks>> pmix = PmixTasks::Start(PmixServerProgram(), setup);
    if (!pmix.ok()) return pmix.status();
    return std::unique_ptr<StepPmi>(std::move(pmix).value());
  }
  // Which node each rank is on, as srun -m dealt them.
  std::vector<uint32_t> node_of_rank(plan.step.num_tasks(), 0);
  for (int n = 0; n < plan.step.nodes_size(); ++n) {
    for (uint32_t id : model::StepTaskIdsOnNode(plan.step, n)) {
      if (id < node_of_rank.size()) node_of_rank[id] = static_cast<uint32_t>(n);
    }
  }
  Pmi2StepShape shape{fmt::format("{}.{}", request.job_id(), request.step_id()),
                      plan.step.num_tasks(), plan.task_ids, plan.local_tasks,
                      Pmi2ProcessMappingOfRanks(node_of_rank)};
  Result<std::unique_ptr<Pmi2Tasks>> pmi2 = Pmi2Tasks::Open(std::move(shape));
  if (!pmi2.ok()) return pmi2.status();
  return std::unique_ptr<StepPmi>(std::move(pmi2).value());
}

// Closes rotad's ends of the tasks' stdio and kills and reaps those still
// running.
void EndTasks(std::vector<LocalTask>& tasks) {
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
}

}  // namespace

bool WantsContainer(const wire::ContainerSpec& spec) {
  return !spec.image().empty() || !spec.name().empty() || !spec.bundle().empty();
}

// The job's user as its container sees it.
ContainerUser ContainerUserOf(const wire::JobSpec& spec) {
  ContainerUser user;
  user.uid = spec.uid();
  user.gid = spec.gid();
  user.groups = {spec.gid()};
  const std::string name = spec.user().empty() ? UserName(spec.uid()) : spec.user();
  if (Result<std::vector<gid_t>> groups = GroupsOf(name, spec.gid()); groups.ok()) {
    user.groups = *groups;
  }
  if (std::optional<UserRecord> record = UserByName(name); record) user.home = record->home;
  return user;
}

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
      // The task's process group (it leads one); the task alone only when
      // that is gone. Both at once would hand a trapping task the signal
      // twice, where Slurm delivers it once.
      if (kill(-pid, signal) != 0) kill(pid, signal);
      ++reached;
    }
  }
  if (refused && reached == 0) return Status(StatusCode::kPermissionDenied, "Invalid user id");
  return reached;
}

std::vector<StepTasks::RunningStep> StepTasks::RunningSteps(uint32_t job_id) {
  std::vector<RunningStep> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = steps_.lower_bound({job_id, 0}); it != steps_.end() && it->first.first == job_id;
       ++it) {
    std::lock_guard<std::mutex> step_lock(it->second->mu);
    if (it->second->live.empty()) continue;
    out.push_back(
        {it->first.second, it->second->uid, static_cast<uint32_t>(it->second->live.size())});
  }
  return out;
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

Status StepTasks::HoldCage(const wire::JobLaunch& job, const std::vector<uint32_t>& gpu_indices) {
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

Result<StepPlan> StepTasks::PlanFromController(const wire::LaunchTasksRequest& request,
                                               uint32_t caller_uid, bool privileged) {
  // The request comes from a user: what runs and where is taken from the
  // controller's records, not from it.
  const uint32_t job_id = request.job_id();
  const uint32_t step_id = request.step_id();
  wire::ListStepsResponse known;
  ROTA_RETURN_IF_ERROR(
      node_.controller->Call(api::kListSteps, AskForStep(job_id, step_id), &known));
  if (known.steps_size() != 1 || known.jobs_size() != 1) {
    return NotFound(fmt::format("step {}.{} is not running", job_id, step_id));
  }
  return PlanStep(node_, known, request.node_index(), caller_uid, privileged);
}

Status StepTasks::EnterJobCage(Running& running, const StepPlan& plan, bool* own_cage) {
  const uint32_t job_id = running.job_id;
  const std::string& me = node_.settings.node_name;
  // The batch step runs on the job's first node, in the job's cage: tasks
  // there join it, once rota-stepd has made it (srun may come first, from
  // salloc). Elsewhere the step makes the job's cage itself.
  if (me != plan.job.nodes(0)) {
    ROTA_RETURN_IF_ERROR(HoldCage(plan.job, plan.job_gpus));
    *own_cage = true;
    return Status::Ok();
  }
  auto now = std::chrono::steady_clock::now();
  const auto deadline = now + kBatchStartWait;
  auto next_check = now + kJobEndCheckEvery;
  while (!batch_here_(job_id)) {
    now = std::chrono::steady_clock::now();
    if (now > deadline || node_.stop->IsSet()) {
      return FailedPrecondition(
          fmt::format("job {}: its batch step does not run on {}", job_id, me));
    }
    // A job cancelled before its batch step came up here never brings it:
    // give up at once rather than after kBatchStartWait.
    bool killed = running.Killed();
    if (!killed && now >= next_check) {
      next_check = now + kJobEndCheckEvery;
      wire::ListStepsResponse again;
      killed = node_.controller->Call(api::kListSteps, AskForStep(job_id, running.step_id), &again)
                   .ok() &&
               (again.jobs_size() != 1 || again.jobs(0).state() != wire::JOB_STATE_RUNNING);
    }
    if (killed) {
      return FailedPrecondition(
          fmt::format("job {} ended before step {}.{} started", job_id, job_id, running.step_id));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Status::Ok();
}

void StepTasks::TearDownStep(Running& running, std::vector<LocalTask>& tasks, bool step_caged,
                             bool own_cage) {
  EndTasks(tasks);
  {
    std::lock_guard<std::mutex> step_lock(running.mu);
    running.live.clear();
  }
  // What the tasks left behind goes with the step.
  if (step_caged) {
    Status removed = node_.cgroups->RemoveStep(running.job_id, StepCageName(running.step_id));
    if (!removed.ok()) {
      spdlog::error("step {}.{}: {}", running.job_id, running.step_id, removed.message());
    }
  }
  if (own_cage) ReleaseCage(running.job_id);
}

void StepTasks::Retire(uint32_t job_id, uint32_t step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = steps_.find({job_id, step_id});
  if (it != steps_.end()) {
    finished_.push_back(std::move(it->second->thread));
    steps_.erase(it);
  }
}

void StepTasks::Run(std::shared_ptr<Running> running, wire::LaunchTasksRequest request,
                    uint32_t caller_uid, bool privileged, rpc::Responder respond) {
  const uint32_t job_id = request.job_id();
  const uint32_t step_id = request.step_id();
  bool answered = false;
  std::unique_ptr<StepIoRelay> srun;  // This node's I/O connection to srun
  bool own_cage = false;
  bool step_caged = false;  // Its cage below the job's is made
  std::vector<LocalTask> tasks;
  std::shared_ptr<OpenContainer> container;  // pyxis' options: the tasks' container
  std::string save_container_to;             // --container-save, on the step's first node

  // Every way out undoes what was done so far; srun's connection closes
  // only once nothing of the step is left here.
  auto finish = [&] {
    // A step that ended without its last EXIT frame: nothing to report.
    if (node_.gpu_watch != nullptr) node_.gpu_watch->Forget(StepWatchKey(job_id, step_id));
    TearDownStep(*running, tasks, step_caged, own_cage);
    // After the tasks: nothing of the step uses its container any more.
    if (container) node_.containers->Close(container);
    srun.reset();
    Retire(job_id, step_id);
  };
  auto fail = [&](const Status& why) {
    spdlog::warn("step {}.{}: {}", job_id, step_id, why.message());
    if (srun) srun->SendFailure(why.message());
    if (!answered) respond.Fail(why);
    answered = true;
    finish();
  };

  Result<StepPlan> planned = PlanFromController(request, caller_uid, privileged);
  if (!planned.ok()) return fail(planned.status());
  {
    std::lock_guard<std::mutex> step_lock(running->mu);
    running->uid = planned->job.spec().uid();
  }
  const StepPlan& plan = *planned;

  Result<std::unique_ptr<StepIoRelay>> connected =
      StepIoRelay::Connect(request, node_.settings.node_name);
  if (!connected.ok()) return fail(connected.status());
  srun = std::move(connected).value();
  if (Status s = srun->Hello(request.io_key()); !s.ok()) return fail(s);

  if (Status in = EnterJobCage(*running, plan, &own_cage); !in.ok()) return fail(in);
  TaskSpawner spawner(node_, plan, request);
  step_caged = true;  // Removed on the way out, also when half made.
  if (Status made = spawner.MakeStepCage(); !made.ok()) return fail(made);
  if (WantsContainer(request.container()) && request.container().bundle().empty()) {
    // pyxis' options: the container the step's tasks run in, opened for it.
    if (node_.containers == nullptr) {
      return fail(FailedPrecondition("containers are not available on this node"));
    }
    ContainerUser user = ContainerUserOf(plan.job.spec());
    Result<std::shared_ptr<OpenContainer>> opened =
        node_.containers->Open(request.container(), user, job_id, step_id);
    if (!opened.ok()) return fail(opened.status());
    container = *opened;
    if (plan.node_index == 0) save_container_to = request.container().save();
    spawner.UseContainer(container, std::move(user));
  }
  Result<std::unique_ptr<StepPmi>> pmi = OpenStepPmi(request, plan);
  if (!pmi.ok()) return fail(pmi.status());

  if (node_.gpu_watch != nullptr && !plan.step_gpus.empty()) {
    node_.gpu_watch->Watch(StepWatchKey(job_id, step_id), plan.step_gpus);
  }
  tasks.resize(plan.local_tasks);
  for (uint32_t t = 0; t < plan.local_tasks; ++t) {
    if (Status started = spawner.Start(t, pmi->get(), tasks[t]); !started.ok()) {
      return fail(started);
    }
    running->Track(tasks[t].pid);
    for (const std::string& report : spawner.BindingReports(tasks[t])) {
      srun->SendTaskStderr(tasks[t].global_id, report);
    }
  }
  if (*pmi) (*pmi)->CloseTaskEnds();
  respond(0, wire::Empty().SerializeAsString());
  answered = true;
  spdlog::info("step {}.{}: {} task(s) started as uid {}", job_id, step_id, plan.local_tasks,
               plan.job.spec().uid());

  // Relay output and exits until every task has ended and said all.
  TaskEnds ends(node_, *running, spawner);
  ends.SaveContainer(container.get(), save_container_to);
  if (!srun->RelayUntilDone(tasks, pmi->get(), ends)) {
    spdlog::warn("step {}.{}: srun is gone; killing its tasks here", job_id, step_id);
  }
  finish();
}

}  // namespace rota::noded
