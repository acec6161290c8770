#include "noded/prepared_jobs.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/methods.h"
#include "common/log.h"
#include "common/strings.h"
#include "noded/cpu_list.h"
#include "noded/job_environment.h"
#include "noded/node_script.h"
#include "noded/stepd/batch_job.h"

namespace rota::noded {
namespace {

constexpr char kRecordDir[] = "prepared";
constexpr char kRecordPrefix[] = "job";
// As the batch node's: five minutes keeps a hung script from holding a node.
constexpr std::chrono::seconds kScriptTimeout(300);

// The GPUs the controller gave `job` on `node` (physical indices).
std::vector<uint32_t> GpusHere(const wire::JobLaunch& job, const std::string& node) {
  for (int i = 0; i < job.nodes_size() && i < job.allocs_size(); ++i) {
    if (job.nodes(i) != node) continue;
    std::vector<uint32_t> gpus =
        ParseCpuList(job.allocs(i).gpu_ids()).value_or(std::vector<uint32_t>{});
    std::sort(gpus.begin(), gpus.end());
    return gpus;
  }
  return {};
}

void AnswerEmpty(const rpc::Responder& respond) { respond(0, wire::Empty().SerializeAsString()); }

}  // namespace

PreparedJobs::PreparedJobs(const NodeContext& node, StepTasks* steps)
    : node_(node), steps_(steps) {}

PreparedJobs::~PreparedJobs() { Stop(); }

std::string PreparedJobs::RecordPath(uint32_t job_id) const {
  return node_.settings.spool_dir + "/" + kRecordDir + "/" + kRecordPrefix + std::to_string(job_id);
}

std::set<uint32_t> PreparedJobs::Recorded(const std::string& spool_dir) {
  std::set<uint32_t> ids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(spool_dir + "/" + kRecordDir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kRecordPrefix, 0) != 0) continue;
    if (std::optional<uint64_t> id =
            ParseUint(std::string_view(name).substr(sizeof(kRecordPrefix) - 1))) {
      if (*id > 0 && *id <= UINT32_MAX) ids.insert(static_cast<uint32_t>(*id));
    }
  }
  return ids;
}

void PreparedJobs::Adopt() {
  for (uint32_t id : Recorded(node_.settings.spool_dir)) {
    std::ifstream in(RecordPath(id), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    wire::PreparedJobRecord record;
    if (!record.ParseFromString(bytes.str()) || record.job().job_id() != id) {
      spdlog::error("job {}: unreadable record {}; its cage is swept next start", id,
                    RecordPath(id));
      std::error_code ec;
      std::filesystem::remove(RecordPath(id), ec);
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    Entry& entry = jobs_[id];
    entry.job = record.job();
    entry.generation = next_generation_++;
    entry.ready = true;
    steps_->AdoptJobCage(id);
    spdlog::info("job {}: its cage (prepared before rotad restarted) is kept", id);
  }
}

void PreparedJobs::Prepare(wire::PrepareJobRequest request, rpc::Responder respond) {
  const uint32_t job_id = request.job().job_id();
  const auto& nodes = request.job().nodes();
  if (job_id == 0 ||
      std::find(nodes.begin(), nodes.end(), node_.settings.node_name) == nodes.end()) {
    respond.Fail(InvalidArgument(
        fmt::format("job {} is not allocated node {}", job_id, node_.settings.node_name)));
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) {
    respond.Fail(Status(StatusCode::kUnavailable, "rotad is stopping"));
    return;
  }
  // Threads that have ended.
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = threads_.erase(it);
    } else {
      ++it;
    }
  }
  std::optional<wire::JobLaunch> earlier;  // An earlier run's cage, still here
  if (auto it = jobs_.find(job_id); it != jobs_.end()) {
    // The controller retries what it did not hear answered.
    if (it->second.job.restart_count() == request.job().restart_count()) {
      AnswerEmpty(respond);
      return;
    }
    if (it->second.ready) {
      earlier = it->second.job;
    } else {
      it->second.ending = true;  // Its own thread releases it once made.
    }
    jobs_.erase(it);
  }
  Entry& entry = jobs_[job_id];
  entry.job = request.job();
  entry.generation = next_generation_++;
  auto done = std::make_shared<std::atomic<bool>>(false);
  threads_.push_back(
      {std::thread([this, request = std::move(request), generation = entry.generation, respond,
                    earlier = std::move(earlier), done]() mutable {
         if (earlier) Release(*earlier, /*epilog=*/false);
         Run(std::move(request), generation, respond);
         done->store(true);
       }),
       done});
}

void PreparedJobs::Run(wire::PrepareJobRequest request, uint64_t generation,
                       const rpc::Responder& respond) {
  const wire::JobLaunch& job = request.job();
  const uint32_t job_id = job.job_id();
  const std::string& me = node_.settings.node_name;
  std::string failure;
  Status held = steps_->HoldJobCage(job, GpusHere(job, me));
  if (!held.ok()) {
    failure = "cannot make the job's cgroup: " + std::string(held.message());
    spdlog::error("job {}: {}", job_id, failure);
  } else {
    // PrologFlags=Contain: the extern step's cage in the job's (Alloc alone: none).
    const auto& flags = node_.config->settings.prolog_flags;
    if (std::find(flags.begin(), flags.end(), "Contain") != flags.end()) {
      Status made = node_.cgroups->CreateStep(job_id, kExternStepCage, StepCageLimits{});
      if (!made.ok()) spdlog::error("job {}: {}: {}", job_id, kExternStepCage, made.message());
    }
    wire::PreparedJobRecord record;
    *record.mutable_job() = job;
    std::error_code ec;
    std::filesystem::create_directories(node_.settings.spool_dir + "/" + kRecordDir, ec);
    std::ofstream out(RecordPath(job_id), std::ios::binary | std::ios::trunc);
    if (!record.SerializeToOstream(&out)) {
      spdlog::error("job {}: cannot write {}; a rotad restart would sweep its cage", job_id,
                    RecordPath(job_id));
    }
  }
  if (failure.empty() && !node_.config->settings.prolog.empty()) {
    failure = RunScripts(node_.config->settings.prolog,
                         ScriptEnvironment(job, request.cluster_name()), job_id, "Prolog");
  }
  if (!failure.empty()) {
    // As the batch node reports its own: the controller requeues the job and
    // drains this node. Heard before the answer lets the launch go on.
    wire::JobExitedRequest exit;
    exit.set_job_id(job_id);
    exit.set_node(me);
    exit.set_wait_status(1u << 8);
    exit.set_prolog_failed(true);
    exit.set_failure_reason(failure);
    exit.set_run(job.restart_count());
    exit.set_run_known(true);
    ReportJobExit(node_, exit);
    AnswerEmpty(respond);
    wire::JobLaunch taken;
    TakeEntry(job_id, generation, &taken);
    // Taken here, by a later run or by Stop (which leave a cage being made to
    // its thread): this run's hold on the cage is dropped here either way.
    if (held.ok()) Release(job, /*epilog=*/false);
    return;
  }
  spdlog::info("job {}: prepared ({})", job_id, node_.cgroups->Name());
  AnswerEmpty(respond);
  bool release = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || it->second.generation != generation) {
      release = true;  // Replaced by a later run, or Stop took everything
    } else {
      it->second.ready = true;
      if (it->second.ending) {
        jobs_.erase(it);
        release = true;
      }
    }
  }
  if (release) Release(job, /*epilog=*/true);
}

void PreparedJobs::End(uint32_t job_id, int signal) {
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return;
    if (!it->second.ready) {
      it->second.ending = true;  // Released as soon as it is made.
      return;
    }
    generation = it->second.generation;
    const bool first = !it->second.ending;
    it->second.ending = true;
    if (signal != SIGKILL) {
      Status s = node_.cgroups->Signal(job_id, signal);
      if (!s.ok()) spdlog::warn("job {}: {}", job_id, s.message());
      if (!first || stopped_) return;  // Its release is already on its way.
      // KillWait, then whatever is left is killed.
      auto done = std::make_shared<std::atomic<bool>>(false);
      threads_.push_back({std::thread([this, job_id, generation, done] {
                            node_.stop->WaitFor(std::chrono::seconds(
                                std::max<int64_t>(0, node_.config->settings.kill_wait)));
                            wire::JobLaunch job;
                            if (TakeEntry(job_id, generation, &job)) Release(job, true);
                            done->store(true);
                          }),
                          done});
      return;
    }
  }
  wire::JobLaunch job;
  if (TakeEntry(job_id, generation, &job)) Release(job, /*epilog=*/true);
}

bool PreparedJobs::TakeEntry(uint32_t job_id, uint64_t generation, wire::JobLaunch* job) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end() || it->second.generation != generation) return false;
  *job = std::move(it->second.job);
  jobs_.erase(it);
  return true;
}

void PreparedJobs::Release(const wire::JobLaunch& job, bool epilog) {
  const uint32_t job_id = job.job_id();
  // The last holder (this, or the job's last step here) kills and removes it.
  steps_->ReleaseJobCage(job_id);
  // Its named containers go with it (container_store.h).
  if (node_.containers != nullptr) node_.containers->ForgetJob(job_id);
  std::error_code ec;
  std::filesystem::remove(RecordPath(job_id), ec);
  spdlog::info("job {}: ended here; its cage is released", job_id);
  if (!epilog || node_.config->settings.epilog.empty()) return;
  std::string failure =
      RunScripts(node_.config->settings.epilog, ScriptEnvironment(job, ""), job_id, "Epilog");
  if (failure.empty()) return;
  wire::UpdateNodeRequest req;
  req.set_nodes(node_.settings.node_name);
  req.set_state("DRAIN");
  req.set_reason("Epilog error: " + failure);
  Status s = node_.controller->Call(api::kUpdateNode, req);
  if (!s.ok()) spdlog::error("job {}: cannot drain the node: {}", job_id, s.message());
}

std::vector<uint32_t> PreparedJobs::Held() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint32_t> ids;
  for (const auto& [id, entry] : jobs_) ids.push_back(id);
  return ids;
}

void PreparedJobs::Stop() {
  std::vector<wire::JobLaunch> ready;
  std::vector<Worker> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    for (auto& [id, entry] : jobs_) {
      if (entry.ready) ready.push_back(std::move(entry.job));
    }
    jobs_.clear();  // Those still being made are released by their threads.
  }
  for (const wire::JobLaunch& job : ready) {
    spdlog::warn("job {}: its cage is removed because rotad stops", job.job_id());
    Release(job, /*epilog=*/false);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(threads_);
  }
  for (Worker& w : threads) w.thread.join();
}

std::vector<std::string> PreparedJobs::ScriptEnvironment(const wire::JobLaunch& job,
                                                         const std::string& cluster_name) const {
  JobEnvironmentInput input;
  input.job = &job;
  input.payload = &wire::JobPayload::default_instance();
  input.cluster_name = cluster_name.empty() ? node_.config->settings.cluster_name : cluster_name;
  input.node_name = node_.settings.node_name;
  input.gpu_indices = GpusHere(job, node_.settings.node_name);
  input.devices_constrained = node_.config->cgroup.constrain_devices && node_.cgroups->enforcing();
  // The job's Slurm variables, as the batch node's scripts see them.
  std::vector<std::string> env = {kScriptPath};
  for (const std::string& var : BuildJobEnvironment(input)) {
    if (var.rfind("SLURM_", 0) == 0 || var.rfind("SLURMD_NODENAME=", 0) == 0 ||
        var.rfind("CUDA_VISIBLE_DEVICES=", 0) == 0) {
      env.push_back(var);
    }
  }
  return env;
}

std::string PreparedJobs::RunScripts(const std::string& pattern,
                                     const std::vector<std::string>& env, uint32_t job_id,
                                     const char* what) const {
  for (const std::string& script : ExpandScriptPattern(pattern)) {
    ScriptOutcome outcome = RunNodeScript(script, env, kScriptTimeout, what);
    if (!outcome.ok) {
      spdlog::error("job {}: {} {} failed: {}", job_id, what, script, outcome.reason);
      return outcome.reason;
    }
  }
  return "";
}

}  // namespace rota::noded
