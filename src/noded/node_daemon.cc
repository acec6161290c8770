#include "noded/node_daemon.h"

#include <pwd.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <random>

#include "api/auth_settings.h"
#include "api/methods.h"
#include "api/protobuf_log.h"
#include "api/transport_limits.h"
#include "common/log.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "noded/configless.h"
#include "noded/cpu_list.h"
#include "noded/gpu/gpu_inventory.h"
#include "noded/health_check_gate.h"
#include "noded/host_facts.h"
#include "noded/node_credential_socket.h"
#include "noded/node_parts.h"
#include "noded/node_script.h"
#include "noded/step_stats.h"
#include "noded/stepd/batch_job.h"
#include "noded/stepd/step_channel.h"
#include "noded/stepd/step_files.h"
#include "noded/stepd/step_launcher.h"

namespace rota::noded {
namespace {

uint32_t UidOf(const std::string& user) {
  if (std::optional<uint64_t> n = ParseUint(user)) return static_cast<uint32_t>(*n);
  passwd* pw = getpwnam(user.c_str());  // Start-up only: no other thread yet.
  return pw != nullptr ? pw->pw_uid : 0;
}

// The CPUs `job` holds on `node` (its allocation's part there).
uint32_t CpusHere(const wire::JobLaunch& job, const std::string& node) {
  for (int i = 0; i < job.nodes_size() && i < job.allocs_size(); ++i) {
    if (job.nodes(i) == node) return job.allocs(i).cpus();
  }
  return 0;
}

template <typename Req>
bool ParseOrFail(const std::string& body, Req& req, const rpc::Responder& respond) {
  if (req.ParseFromString(body)) return true;
  respond.Fail(InvalidArgument("malformed request"));
  return false;
}

void AnswerEmpty(const rpc::Responder& respond) { respond(0, wire::Empty().SerializeAsString()); }

// How long a new rota-stepd may take to open its socket.
constexpr std::chrono::seconds kStepStartTimeout(10);
// Prologs may run this long (BatchJob's limit) before the script starts.
constexpr std::chrono::seconds kPrologTimeout(300);
// Disk the node's container images may take before the least recently used
// are evicted (docs/containers.md).
constexpr uint64_t kImageCacheBytes = 20ull << 30;

// Slurm's convention for a batch script that could not start: exit code 1.
wire::JobExitedRequest LaunchFailed(const std::string& node, uint32_t job_id) {
  wire::JobExitedRequest exit;
  exit.set_job_id(job_id);
  exit.set_node(node);
  exit.set_wait_status(1u << 8);
  return exit;
}

}  // namespace

Result<std::unique_ptr<NodeDaemon>> NodeDaemon::Start(const NodeDaemonOptions& options) {
  std::unique_ptr<NodeDaemon> d(new NodeDaemon());
  d->options_ = options;
  d->config_digest_ = options.config_digest;
  Result<NodeParts> parts =
      BuildNodeParts(options.slurm_conf_path, options.node_name, options.fake_gpus_file);
  if (!parts.ok()) return parts.status();
  for (const conf::Diagnostic& finding : parts->findings.all()) {
    spdlog::warn("{}", finding.ToString());
  }
  const NodeSettings* settings = &parts->settings;
  auto verifier = auth::MakeVerifier(parts->auth);
  if (!verifier.ok()) return verifier.status();
  d->verifier_ = std::move(verifier).value();
  d->credential_socket_ = ServeNodeCredentials(parts->auth);
  d->slurm_user_uid_ = UidOf(parts->config->settings.slurm_user);

  std::error_code ec;
  std::filesystem::create_directories(settings->spool_dir, ec);
  if (ec || chmod(settings->spool_dir.c_str(), 0755) != 0) {
    return IoError("cannot create SlurmdSpoolDir " + settings->spool_dir + ": " +
                   (ec ? ec.message() : std::string(std::strerror(errno))));
  }

  d->options_.heartbeat_interval =
      std::min(options.heartbeat_interval, settings->heartbeat_interval);
  for (const std::string& warning : parts->gpu_warnings) spdlog::warn("GPUs: {}", warning);
  d->context_ = parts->Context(&d->stop_);
  d->gpus_ = std::move(parts->gpus);
  d->StartGpuWatch(*parts);
  d->context_.gpu_watch = d->gpu_watch_.get();
  d->containers_ =
      MakeNodeContainers(settings->spool_dir, kImageCacheBytes, ImageImporterProgram());
  d->context_.containers = d->containers_.store.get();
  d->cgroups_ = std::move(parts->cgroups);
  d->controller_ = std::move(parts->controller);
  Result<std::unique_ptr<StepForker>> forker = StepForker::Start(
      StepDaemonProgram(), {"-f", options.slurm_conf_path, "-N", options.node_name});
  if (forker.ok()) {
    d->forker_ = std::move(forker).value();
  } else {
    spdlog::warn("step daemons will be started by exec: {}", forker.status().message());
  }
  // Live jobs first: their cages are not stale.
  std::set<uint32_t> live = d->RecoverSteps();
  for (uint32_t id : PreparedJobs::Recorded(settings->spool_dir)) live.insert(id);
  if (int swept = d->containers_.store->SweepStale(live); swept > 0) {
    spdlog::warn("removed {} containers of jobs a previous rotad left behind", swept);
  }
  if (int swept = d->cgroups_->SweepStale(live); swept > 0) {
    spdlog::warn("removed {} cgroups of jobs a previous rotad left behind", swept);
  }

  d->step_tasks_ = std::make_unique<StepTasks>(d->context_, [self = d.get()](uint32_t job_id) {
    std::lock_guard<std::mutex> lock(self->mu_);
    return self->batch_started_.count(job_id) != 0;
  });
  d->prepared_ = std::make_unique<PreparedJobs>(d->context_, d->step_tasks_.get());
  d->prepared_->Adopt();

  rpc::ServerOptions server_options;
  server_options.address = settings->listen_address;
  server_options.port = settings->port;
  // Connections are capped well below the descriptor limit, so that job files,
  // cgroups and step daemons keep descriptors in reserve.
  rpc::RaiseDescriptorLimit();
  api::RouteProtobufLogs();  // Malformed requests must not flood the log.
  ROTA_RETURN_IF_ERROR(
      api::ApplyTransportLimits(api::NodeBodyLimits(), d->verifier_.get(), &server_options));
  NodeDaemon* self = d.get();
  auto server = rpc::RpcServer::Start(
      server_options,
      [self](const rpc::RequestContext& context, std::string body, rpc::Responder respond) {
        self->Handle(context, std::move(body), respond);
      });
  if (!server.ok()) return server.status();
  d->server_ = std::move(server).value();
  spdlog::info("node {} listening on {}:{}, spool {}, cage {}, GPUs from {}: {}", options.node_name,
               settings->listen_address, d->server_->port(), settings->spool_dir,
               d->cgroups_->Name(), parts->gpu_source,
               d->gpus_->GresSummary().empty() ? "none" : d->gpus_->GresSummary());
  d->heartbeat_ = std::thread([self] { self->HeartbeatLoop(); });
  const conf::SlurmConf& conf_settings = d->context_.config->settings;
  if (!conf_settings.health_check_program.empty() && conf_settings.health_check_interval > 0) {
    d->health_check_ = std::thread([self] { self->HealthCheckLoop(); });
  }
  return d;
}

NodeDaemon::~NodeDaemon() { Stop(); }

void NodeDaemon::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  if (server_) server_->Stop();
  stop_.Set();
  NudgeHeartbeat();  // Its wait ends on the stop
  if (step_tasks_) step_tasks_->Stop();
  if (prepared_) prepared_->Stop();
  if (heartbeat_.joinable()) heartbeat_.join();
  if (health_check_.joinable()) health_check_.join();
  if (gpu_watch_) gpu_watch_->Stop();
  std::map<uint32_t, RunningJob> jobs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs.swap(jobs_);
    finished_.clear();
  }
  wire::StepSignal kill_all;
  kill_all.set_signal(SIGKILL);
  for (auto& [id, running] : jobs) {
    spdlog::warn("job {}: killed because rotad stops", id);
    SignalStep(id, kill_all);
  }
  for (auto& [id, running] : jobs) running.thread.join();
}

void NodeDaemon::HeartbeatLoop() {
  std::string hwloc_error;
  const HostFacts facts = ReadHostFacts(&hwloc_error);
  if (!hwloc_error.empty()) spdlog::warn("{}; CPU shape read from /proc/cpuinfo", hwloc_error);
  spdlog::info("host: {} CPUs ({} sockets x {} cores x {} threads), {} MB memory", facts.cpus,
               facts.sockets, facts.cores_per_socket, facts.threads_per_core, facts.memory_mb);
  wire::NodeRegisterRequest req;
  req.set_node(options_.node_name);
  req.set_boot_time(facts.boot_time);
  req.set_cpus(facts.cpus);
  req.set_sockets(facts.sockets);
  req.set_cores_per_socket(facts.cores_per_socket);
  req.set_threads_per_core(facts.threads_per_core);
  req.set_real_memory_mb(facts.memory_mb);
  req.set_gres(gpus_->GresSummary());
  req.set_hardware_reported(true);
  bool registered = false;
  bool complained = false;
  req.set_jobs_reported(true);
  while (true) {
    // Every job this daemon holds, running or with its end not yet
    // acknowledged, so the controller can tell lost jobs and stray ones.
    req.clear_jobs();
    {
      std::lock_guard<std::mutex> lock(mu_);
      JoinFinishedLocked();  // Reported and acknowledged: no longer held.
      for (const auto& [id, job] : jobs_) {
        if (std::find(finished_.begin(), finished_.end(), RunKey{id, job.run}) == finished_.end()) {
          req.add_jobs(id);
        }
      }
    }
    // Prepared jobs too: the controller kills those that ended meanwhile.
    for (uint32_t id : prepared_->Held()) {
      if (std::find(req.jobs().begin(), req.jobs().end(), id) == req.jobs().end()) req.add_jobs(id);
    }
    wire::NodeRegisterResponse answer;
    Status s = controller_->Call(api::kNodeRegister, req, &answer);
    if (s.ok() && !registered) spdlog::info("registered with the controller");
    if (s.ok()) {
      FetchChangedConfig(answer.config_digest());
      WatchGpuShares(answer);
    }
    if (!s.ok() && !complained)
      spdlog::warn("cannot register with the controller: {}", s.message());
    registered = s.ok();
    complained = !s.ok();
    // Until the controller has heard of us, keep trying often.
    auto wait = registered ? std::chrono::milliseconds(options_.heartbeat_interval)
                           : std::chrono::milliseconds(1000);
    if (WaitForHeartbeat(wait)) return;
  }
}

void NodeDaemon::FetchChangedConfig(const std::string& digest) {
  if (options_.config_cache_dir.empty() || digest.empty()) return;
  {
    std::lock_guard<std::mutex> lock(config_mu_);
    if (digest == config_digest_) return;
  }
  if (Status s = FetchConfig(); !s.ok()) {
    spdlog::warn("configless: the controller's configuration changed; fetching it failed: {}",
                 s.message());
  }
}

Status NodeDaemon::FetchConfig() {
  std::lock_guard<std::mutex> lock(config_mu_);
  wire::ConfigFilesResponse files;
  ROTA_RETURN_IF_ERROR(controller_->Call(api::kFetchConfig, wire::Empty(), &files));
  ROTA_RETURN_IF_ERROR(StoreFetchedConfig(options_.config_cache_dir, options_.conf_dir, files));
  const bool changed = files.digest() != config_digest_;
  config_digest_ = files.digest();
  // This daemon's own settings (its port, hardware, controllers) were read at
  // start; as with a local slurm.conf, they change at its restart.
  spdlog::info(
      "configless: fetched {} {}configuration files into {}; job steps started from now on use "
      "them",
      files.files_size(), changed ? "changed " : "unchanged ", options_.config_cache_dir);
  return Status::Ok();
}

Status NodeDaemon::Reload() {
  if (options_.config_cache_dir.empty()) {
    return Status(StatusCode::kFailedPrecondition,
                  "rotad reads its slurm.conf at start only; restart it to apply changes");
  }
  return FetchConfig();
}

void NodeDaemon::NudgeHeartbeat() {
  {
    std::lock_guard<std::mutex> lock(nudge_mu_);
    nudged_ = true;
  }
  nudge_cv_.notify_all();
}

bool NodeDaemon::WaitForHeartbeat(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(nudge_mu_);
  nudge_cv_.wait_for(lock, wait, [this] { return nudged_ || stop_.IsSet(); });
  nudged_ = false;
  return stop_.IsSet();
}

uint32_t NodeDaemon::HeldCpus() {
  std::lock_guard<std::mutex> lock(mu_);
  uint32_t held = 0;
  for (const auto& [id, job] : jobs_) {
    const bool ending =
        std::find(finished_.begin(), finished_.end(), RunKey{id, job.run}) != finished_.end();
    if (!ending) held += job.cpus;
  }
  return held;
}

void NodeDaemon::HealthCheckLoop() {
  const conf::SlurmConf& settings = context_.config->settings;
  auto interval = std::chrono::seconds(settings.health_check_interval);
  // A check may take a while, but never longer than its interval (or a minute).
  auto timeout = std::min<std::chrono::seconds>(interval, std::chrono::seconds(60));
  Result<HealthCheckGate> gate = HealthCheckGate::FromStates(settings.health_check_node_state);
  if (!gate.ok()) {
    spdlog::error("{}; health checks run in every state", gate.status().message());
    gate = HealthCheckGate::FromStates({"ANY"});
  }
  const conf::NodeConfig* self = context_.config->FindNode(options_.node_name);
  const uint32_t node_cpus = self != nullptr ? self->cpus : 1;
  auto wait = std::chrono::milliseconds(interval);
  if (gate->cycle()) {
    // Spread the nodes' checks over the interval: this node's first comes at
    // an offset of its own.
    std::random_device seed;
    wait = std::chrono::milliseconds(
        std::uniform_int_distribution<int64_t>(1, std::max<int64_t>(1, wait.count()))(seed));
  }
  bool drained_by_check = false;
  while (!stop_.WaitFor(wait)) {
    wait = std::chrono::milliseconds(interval);
    if (!gate->Due(LoadOf(HeldCpus(), node_cpus), drained_by_check)) continue;
    ScriptOutcome outcome = RunNodeScript(settings.health_check_program, {std::string(kScriptPath)},
                                          timeout, "HealthCheckProgram");
    if (outcome.ok) continue;
    drained_by_check = true;
    spdlog::warn("health check failed: {}; draining the node", outcome.reason);
    wire::UpdateNodeRequest req;
    req.set_nodes(options_.node_name);
    req.set_state("DRAIN");
    req.set_reason(outcome.reason);
    Status s = controller_->Call(api::kUpdateNode, req);
    if (!s.ok()) spdlog::warn("cannot drain after the failed health check: {}", s.message());
  }
}

void NodeDaemon::Handle(const rpc::RequestContext& context, std::string body,
                        rpc::Responder respond) {
  Result<auth::Identity> id = verifier_->Verify(
      context.credential, auth::RpcBindingBytes(context.method, body), auth::SystemUnixNow());
  if (!id.ok()) {
    spdlog::warn("refused request {} from {}: {}", context.method, context.peer,
                 id.status().message());
    respond.Fail(id.status());
    return;
  }
  const bool privileged = id->uid == 0 || id->uid == slurm_user_uid_;
  // Step tasks: users start and signal their own (step_tasks.h checks).
  if (context.method == api::kLaunchTasks) {
    wire::LaunchTasksRequest req;
    if (!ParseOrFail(body, req, respond)) return;
    step_tasks_->Launch(std::move(req), id->uid, privileged, respond);
    return;
  }
  if (context.method == api::kSignalTasks) {
    wire::SignalTasksRequest req;
    if (!ParseOrFail(body, req, respond)) return;
    Result<int> reached =
        step_tasks_->Signal(req.job_id(), req.step_id(), req.signal() == 0 ? SIGKILL : req.signal(),
                            id->uid, privileged);
    if (!reached.ok()) {
      spdlog::warn("refused to signal job {} step {} for uid {} at {}", req.job_id(), req.step_id(),
                   id->uid, context.peer);
      respond.Fail(reached.status());
      return;
    }
    AnswerEmpty(respond);
    return;
  }
  // sstat: a job's owner reads its steps here, root and SlurmUser any job's.
  if (context.method == api::kStepStats) {
    wire::StepStatsRequest req;
    if (!ParseOrFail(body, req, respond)) return;
    std::optional<uint32_t> batch_uid;
    bool batch_here = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      batch_here = batch_started_.count(req.job_id()) != 0;
    }
    if (batch_here) {
      if (Result<wire::StepRecord> r = ReadStepRecord(context_.settings.spool_dir, req.job_id());
          r.ok()) {
        batch_uid = r->launch().job().spec().uid();
      }
    }
    GpuWatch* watch = gpu_watch_.get();
    Result<wire::StepStatsResponse> stats = CollectStepStats(
        req, LocalStepsOf(req.job_id(), batch_uid, step_tasks_->RunningSteps(req.job_id())),
        options_.node_name, *cgroups_,
        [watch](uint64_t key) { return watch != nullptr ? watch->Current(key) : std::nullopt; },
        id->uid, privileged);
    if (!stats.ok()) {
      respond.Fail(stats.status());
      return;
    }
    respond(0, stats->SerializeAsString());
    return;
  }
  // Only the controller (root or SlurmUser) starts or signals jobs here.
  if (!privileged) {
    spdlog::warn("refused request {} from uid {} at {}", context.method, id->uid, context.peer);
    respond.Fail(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
    return;
  }
  switch (context.method) {
    case api::kPing:
      AnswerEmpty(respond);
      return;
    case api::kRegisterNow:
      NudgeHeartbeat();
      AnswerEmpty(respond);
      return;
    case api::kLaunchJob: {
      wire::LaunchJobRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      Launch(std::move(req), respond);
      return;
    }
    case api::kPrepareJob: {
      wire::PrepareJobRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      prepared_->Prepare(std::move(req), respond);
      return;
    }
    case api::kSignalJob: {
      wire::SignalJobRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      SignalJob(req, respond);
      return;
    }
    default:
      respond.Fail(InvalidArgument(fmt::format("unknown method {}", context.method)));
  }
}

void NodeDaemon::Launch(wire::LaunchJobRequest request, rpc::Responder respond) {
  const uint32_t job_id = request.job().job_id();
  const auto& nodes = request.job().nodes();
  if (job_id == 0 || std::find(nodes.begin(), nodes.end(), options_.node_name) == nodes.end()) {
    respond.Fail(InvalidArgument(
        fmt::format("job {} is not allocated node {}", job_id, options_.node_name)));
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) {
    respond.Fail(Status(StatusCode::kUnavailable, "rotad is stopping"));
    return;
  }
  JoinFinishedLocked();
  const uint32_t run = request.job().restart_count();
  std::thread earlier;
  bool earlier_ended = true;
  if (auto it = jobs_.find(job_id); it != jobs_.end()) {
    // The controller retries launches it did not hear answered; the job runs.
    if (it->second.run == run) return AnswerEmpty(respond);
    // An earlier run of a requeued job is still here: ending (its end reported
    // and acknowledged, its files going) or, when the controller gave up on it
    // (the node was lost meanwhile), still running. It goes first.
    earlier_ended = std::find(finished_.begin(), finished_.end(), RunKey{job_id, it->second.run}) !=
                    finished_.end();
    earlier = std::move(it->second.thread);
    jobs_.erase(it);
  }
  RunningJob& entry = jobs_[job_id];
  entry.run = run;
  entry.cpus = CpusHere(request.job(), options_.node_name);
  // Forking and the wait must not hold an RPC io thread.
  entry.thread = std::thread([this, request = std::move(request), respond,
                              earlier = std::move(earlier), earlier_ended]() mutable {
    if (earlier.joinable()) {
      if (!earlier_ended) {
        wire::StepSignal kill;
        kill.set_signal(SIGKILL);
        SignalStep(request.job().job_id(), kill);
      }
      earlier.join();
    }
    StartStep(std::move(request), respond);
  });
}

void NodeDaemon::StartStep(wire::LaunchJobRequest request, const rpc::Responder& respond) {
  const uint32_t job_id = request.job().job_id();
  const uint32_t run = request.job().restart_count();  // `request` moves into the record
  const std::string& spool = context_.settings.spool_dir;
  // A launch that fails still becomes an exit the controller hears of, so
  // the request itself succeeded either way.
  auto fail = [&](const Status& why) {
    spdlog::error("job {}: launch failed: {}", job_id, why.message());
    AnswerEmpty(respond);
    FinishStep(LaunchFailed(options_.node_name, job_id), run);
  };
  Result<std::vector<GpuDevice>> gpus = HoldJobGpus(context_, request.job());
  if (!gpus.ok()) return fail(gpus.status());
  wire::StepRecord record;
  for (const GpuDevice& gpu : *gpus) record.add_gpu_indices(gpu.index);
  if (gpu_watch_ && !gpus->empty()) {
    gpu_watch_->Watch(JobWatchKey(job_id),
                      {record.gpu_indices().begin(), record.gpu_indices().end()},
                      IdleRuleOf(request.job().spec().partition()));
  }
  if (const wire::JobSpec& spec = request.job().spec();
      WantsContainer(spec.container()) && spec.container().bundle().empty()) {
    // sbatch's pyxis options: rota-stepd starts the script in this container.
    const wire::ContainerSpec container = BatchContainerSpec(spec.container(), spec.work_dir());
    Result<std::shared_ptr<OpenContainer>> opened = containers_.store->Open(
        container, ContainerUserOf(spec), job_id, kBatchScriptContainerStep);
    if (opened.ok()) {
      *record.mutable_container() = PlaceOf(**opened, containers_.store->runtime());
      std::lock_guard<std::mutex> lock(mu_);
      batch_containers_[job_id] = {*opened, container.save()};
    } else {
      spdlog::warn("job {}: {}", job_id, opened.status().message());
      record.mutable_container()->set_error(opened.status().message());
    }
  }
  *record.mutable_launch() = std::move(request);
  Status written = WriteStepRecord(spool, record);
  if (!written.ok()) return fail(written);
  Status spawned = SpawnStep(job_id);
  if (!spawned.ok()) return fail(spawned);
  // Answered once the script runs (or could not start), as when rotad ran jobs
  // itself: a signal the controller sends after the answer finds it running.
  AwaitStepStarted(spool, job_id, kStepStartTimeout, kStepStartTimeout + kPrologTimeout);
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch_started_.insert(job_id);  // Its cage is there for srun's tasks.
  }
  AnswerEmpty(respond);
  FinishStep(AwaitStepOutcome(spool, options_.node_name, job_id, kStepStartTimeout), run);
}

Status NodeDaemon::SpawnStep(uint32_t job_id) {
  if (forker_ && forker_->usable()) {
    Result<pid_t> forked = forker_->Launch(job_id);
    if (forked.ok()) return Status::Ok();
    spdlog::warn("job {}: {}; starting its step daemon by exec", job_id, forked.status().message());
  }
  return SpawnStepDaemon(StepDaemonProgram(), {"-f", options_.slurm_conf_path, "-N",
                                               options_.node_name, "-j", std::to_string(job_id)});
}

void NodeDaemon::FinishStep(wire::JobExitedRequest outcome, uint32_t run) {
  const uint32_t job_id = outcome.job_id();
  // The controller ignores the end of a run it has already replaced.
  outcome.set_run(run);
  outcome.set_run_known(true);
  if (!outcome.failure_reason().empty() && !outcome.prolog_failed()) {
    spdlog::error("job {}: {}", job_id, outcome.failure_reason());
  }
  // rota-stepd empties the job's cage before it records an outcome, but one
  // that was killed (kill -9, the OOM killer) left the job's processes running
  // in it with the job's devices. Confirm the cage empty before anything is
  // released or reported: the controller may launch the next job on these GPUs
  // at once. A cage that will not empty drains the node, its GPUs kept held.
  if (gpu_watch_) AddGpuUsage(job_id, outcome);
  if (EmptyJobCage(job_id)) gpus_->Release(job_id);
  if (containers_.store) {
    BatchContainer batch;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = batch_containers_.find(job_id); it != batch_containers_.end()) {
        batch = std::move(it->second);
        batch_containers_.erase(it);
      }
    }
    if (batch.container != nullptr && !batch.save_to.empty()) {
      // The script and everything it started have ended (the cage is empty).
      Status saved = containers_.store->Save(*batch.container, batch.save_to);
      if (!saved.ok()) spdlog::warn("job {}: {}", job_id, saved.message());
    }
    containers_.store->Close(batch.container);
    containers_.store->ForgetJob(job_id);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch_started_.erase(job_id);
  }
  bool reported = ReportJobExit(context_, outcome);
  // Unreported, the files stay for the next rotad to report from.
  if (reported) RemoveStepFiles(context_.settings.spool_dir, job_id);
  std::lock_guard<std::mutex> lock(mu_);
  finished_.push_back({job_id, run});
}

void NodeDaemon::DrainSelf(const std::string& reason) {
  wire::UpdateNodeRequest drain;
  drain.set_nodes(options_.node_name);
  drain.set_state("DRAIN");
  drain.set_reason(reason);
  Status asked = context_.controller->Call(api::kUpdateNode, drain);
  if (!asked.ok()) spdlog::error("cannot drain the node ({}): {}", reason, asked.message());
}

void NodeDaemon::StartGpuWatch(const NodeParts& parts) {
  if (gpus_->devices().empty()) return;
  std::unique_ptr<GpuSampler> sampler =
      MakeGpuSampler(*parts.config, options_.node_name, parts.gpu_options);
  if (!sampler) return;
  const auto interval = std::chrono::seconds(parts.config->settings.job_acct_gather_task_s);
  gpu_watch_ = std::make_unique<GpuWatch>(std::move(sampler), gpus_->devices(), interval,
                                          [this](const GpuHealthEvent& e) {
                                            const std::string reason = GpuHealthReason(e);
                                            spdlog::error("{}; draining the node", reason);
                                            DrainSelf(reason);
                                          });
  gpu_watch_->OnIdle([this](const GpuIdleChange& change) { ReportGpuIdle(change); });
  gpu_watch_->Start();
  spdlog::info("GPUs sampled through {} every {} s", gpu_watch_->SamplerName(), interval.count());
}

GpuIdleRule NodeDaemon::IdleRuleOf(const std::string& partition) const {
  conf::GpuIdlePolicy policy;
  if (const conf::PartitionConfig* p = context_.config->FindPartition(partition)) {
    policy = p->gpu_idle;
  }
  return GpuIdleRule{policy.threshold_pct,
                     std::chrono::seconds(std::min<int64_t>(policy.period_s, INT32_MAX))};
}

void NodeDaemon::ReportGpuIdle(const GpuIdleChange& change) {
  const uint32_t job_id = JobOfWatchKey(change.key);
  wire::JobGpuIdleRequest report;
  report.set_job_id(job_id);
  report.set_node(options_.node_name);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (IsShareWatchKey(change.key)) {
      auto it = gpu_shares_.find(job_id);
      if (it == gpu_shares_.end()) return;  // No longer listed
      report.set_run(it->second);
    } else {
      auto it = jobs_.find(job_id);
      if (it == jobs_.end()) return;  // Ended meanwhile
      report.set_run(it->second.run);
    }
  }
  report.set_idle(change.idle);
  report.set_since(std::chrono::system_clock::to_time_t(change.since));
  report.set_mean_util_pct(change.mean_util_pct);
  spdlog::info("job {}: GPUs {} (mean {:.1f}%)", job_id,
               change.idle ? "idle" : "busy again after being idle", change.mean_util_pct);
  // Lost with a controller that does not answer: the next change tells again.
  Status told = context_.controller->Call(api::kJobGpuIdle, report);
  if (!told.ok()) spdlog::warn("job {}: GPU idle report not delivered: {}", job_id, told.message());
}

void NodeDaemon::WatchGpuShares(const wire::NodeRegisterResponse& answer) {
  if (!gpu_watch_) return;
  std::vector<const wire::GpuShare*> started;
  std::vector<uint32_t> ended;
  bool first_answer = false;  // An earlier rotad may have watched these shares
  {
    std::lock_guard<std::mutex> lock(mu_);
    first_answer = !gpu_shares_known_;
    gpu_shares_known_ = true;
    std::map<uint32_t, uint32_t> listed;
    for (const wire::GpuShare& share : answer.gpu_shares()) {
      listed[share.job_id()] = share.run();
      auto it = gpu_shares_.find(share.job_id());
      if (it == gpu_shares_.end() || it->second != share.run()) started.push_back(&share);
    }
    for (const auto& [job_id, run] : gpu_shares_) {
      if (listed.count(job_id) == 0) ended.push_back(job_id);
    }
    gpu_shares_ = std::move(listed);
  }
  for (uint32_t job_id : ended) gpu_watch_->Forget(ShareWatchKey(job_id));
  for (const wire::GpuShare* share : started) {
    std::optional<std::vector<uint32_t>> gpus = ParseCpuList(share->gpu_ids());
    if (!gpus || gpus->empty()) continue;
    // A later run's share starts afresh (Watch resets what the key measured).
    gpu_watch_->Watch(ShareWatchKey(share->job_id()), *gpus, IdleRuleOf(share->partition()),
                      first_answer);
    spdlog::info("job {}: watching its GPUs {} here for idleness", share->job_id(),
                 share->gpu_ids());
  }
}

void NodeDaemon::AddGpuUsage(uint32_t job_id, wire::JobExitedRequest& outcome) {
  std::optional<wire::GpuUsage> used = gpu_watch_->Finish(JobWatchKey(job_id));
  if (gpu_watch_->TakeHealthHit(JobWatchKey(job_id))) outcome.set_gpu_failed(true);
  if (!used || used->samples() == 0) return;
  used->set_node(options_.node_name);
  *outcome.mutable_usage()->mutable_gpu() = std::move(*used);
}

bool NodeDaemon::EmptyJobCage(uint32_t job_id) {
  Status killed = cgroups_->KillAll(job_id);
  if (!killed.ok()) {
    spdlog::error("job {}: {}; draining the node", job_id, killed.message());
    DrainSelf("Kill task failed");  // Slurm's reason for an unkillable job.
    return false;
  }
  Status removed = cgroups_->Remove(job_id);
  if (!removed.ok()) spdlog::warn("job {}: {}", job_id, removed.message());
  return true;
}

bool NodeDaemon::SignalStep(uint32_t job_id, const wire::StepSignal& signal) {
  const std::string socket = StepSocketPath(context_.settings.spool_dir, job_id);
  wire::StepRequest request;
  *request.mutable_signal() = signal;
  // A step daemon just started may not listen yet.
  for (int attempt = 0; attempt < 60; ++attempt) {
    Result<wire::StepStatus> answer = AskStepDaemon(socket, request, std::chrono::seconds(5));
    if (answer.ok()) return true;
    if (ReadStepOutcome(context_.settings.spool_dir, job_id)) return false;  // It has ended.
    // Reported and cleaned away (a kill for a job that is already gone).
    if (!ReadStepRecord(context_.settings.spool_dir, job_id).ok()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  spdlog::warn("job {}: its rota-stepd does not answer; signal {} not delivered", job_id,
               signal.signal());
  return false;
}

std::set<uint32_t> NodeDaemon::RecoverSteps() {
  const std::string& spool = context_.settings.spool_dir;
  const std::string& node = options_.node_name;
  std::set<uint32_t> live;
  wire::StepRequest ask;
  ask.set_status(true);
  std::lock_guard<std::mutex> lock(mu_);
  for (uint32_t job_id : ListStepJobs(spool)) {
    Result<wire::StepStatus> status =
        AskStepDaemon(StepSocketPath(spool, job_id), ask, std::chrono::seconds(2));
    if (status.ok() && status->state() != wire::StepStatus::STEP_ENDED) {
      Result<wire::StepRecord> record = ReadStepRecord(spool, job_id);
      const uint32_t run = record.ok() ? record->launch().job().restart_count() : 0;
      if (record.ok()) {
        std::vector<uint32_t> indices(record->gpu_indices().begin(), record->gpu_indices().end());
        Result<std::vector<GpuDevice>> held = gpus_->AllocateExact(job_id, indices);
        if (!held.ok()) spdlog::error("job {}: {}", job_id, held.status().message());
        // Measured again from now: what it used while rotad was down is lost.
        if (gpu_watch_ && !indices.empty()) {
          // What an earlier rotad told the controller of them is not known.
          gpu_watch_->Watch(JobWatchKey(job_id), indices,
                            IdleRuleOf(record->launch().job().spec().partition()),
                            /*maybe_told_idle=*/true);
        }
      }
      spdlog::info("job {}: re-attached to its rota-stepd (pid {})", job_id, status->stepd_pid());
      live.insert(job_id);
      batch_started_.insert(job_id);
      jobs_[job_id].run = run;
      if (record.ok()) jobs_[job_id].cpus = CpusHere(record->launch().job(), options_.node_name);
      jobs_[job_id].thread = std::thread([this, job_id, run] {
        FinishStep(AwaitStepOutcome(context_.settings.spool_dir, options_.node_name, job_id,
                                    kStepStartTimeout),
                   run);
      });
      continue;
    }
    // Ended while no rotad listened, or lost: the socket is checked before the
    // outcome, which a step daemon writes before it stops listening.
    std::optional<wire::JobExitedRequest> outcome;
    if (status.ok()) outcome = status->outcome();
    if (!outcome) outcome = ReadStepOutcome(spool, job_id);
    if (outcome) {
      spdlog::info("job {}: ended while rotad was down; reporting it", job_id);
    } else {
      outcome = LostStepOutcome(node, job_id,
                                "its rota-stepd died while rotad was down, recording no exit");
      std::error_code ec;
      std::filesystem::remove_all(spool + "/job" + std::to_string(job_id), ec);
    }
    Result<wire::StepRecord> record = ReadStepRecord(spool, job_id);
    const uint32_t run = record.ok() ? record->launch().job().restart_count() : 0;
    jobs_[job_id].run = run;
    jobs_[job_id].thread = std::thread([this, exit = *outcome, run] { FinishStep(exit, run); });
  }
  return live;
}

void NodeDaemon::SignalJob(const wire::SignalJobRequest& request, rpc::Responder respond) {
  // The job's step tasks here, whether or not its batch script runs here.
  if (!request.batch_only()) {
    const int signal = request.signal() == 0 ? SIGKILL : request.signal();
    const bool ends_job = request.terminate() || signal == SIGKILL;
    // Best effort: a job with no step here has nothing to signal.
    step_tasks_->Signal(request.job_id(), std::nullopt, signal, 0, true, ends_job).ok();
    if (ends_job) prepared_->End(request.job_id(), signal);
  }
  bool known;
  {
    std::lock_guard<std::mutex> lock(mu_);
    known = jobs_.count(request.job_id()) != 0;
  }
  // A job that already ended here needs nothing; its exit report is on its
  // way. A signal for the steps only leaves the batch script alone.
  if (known && !request.steps_only()) {
    wire::StepSignal signal;
    signal.set_signal(request.signal() == 0 ? SIGKILL : request.signal());
    signal.set_batch_only(request.batch_only());
    signal.set_terminate(request.terminate());
    SignalStep(request.job_id(), signal);
  }
  AnswerEmpty(respond);
}

void NodeDaemon::JoinFinishedLocked() {
  for (const auto& [id, run] : finished_) {
    auto it = jobs_.find(id);
    // A later run took its place: that run's thread joins this one.
    if (it == jobs_.end() || it->second.run != run) continue;
    it->second.thread.join();  // It has left Run and only unlocks on its way out.
    jobs_.erase(it);
  }
  finished_.clear();
}

}  // namespace rota::noded
