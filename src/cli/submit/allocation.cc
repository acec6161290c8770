#include "cli/submit/allocation.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include "api/methods.h"
#include "common/hostlist.h"
#include "model/job_launch.h"
#include "model/job_state.h"
#include "model/job_variables.h"

namespace rota::cli {
namespace {

// Holds the allocation: waits, interruptibly, until SIGUSR1 ends it with 0.
constexpr const char* kHolderScript =
    "#!/bin/sh\n"
    "trap 'exit 0' USR1\n"
    "while :; do sleep 60 & wait $!; done\n";

}  // namespace

void MakeAllocationSpec(wire::JobSpec& spec, const std::string& name) {
  spec.set_script(kHolderScript);
  spec.set_interactive(true);
  spec.clear_argv();
  if (spec.name().empty()) spec.set_name(name);
  // srun's -o/-e/-i are its step's, not the placeholder's.
  spec.set_std_out("/dev/null");
  spec.clear_std_err();
  spec.clear_std_in();
}

Result<Allocation> Allocate(ControllerClient& client, const wire::JobSpec& spec,
                            AllocationVoice voice, const volatile sig_atomic_t* give_up,
                            std::optional<uint32_t> immediate_s) {
  const bool srun = voice == AllocationVoice::kSrun;
  const std::string program = srun ? "srun" : "salloc";
  wire::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  wire::SubmitJobResponse response;
  if (Status s = client.Call(api::kSubmitJob, request, &response); !s.ok()) {
    return Status(s.code(),
                  program + ": error: " +
                      (srun ? "Unable to allocate resources: " : "Job submit/allocate failed: ") +
                      s.message());
  }
  Allocation allocation;
  allocation.job_id = response.job_id();
  allocation.cluster = response.cluster();
  const std::string id = std::to_string(allocation.job_id);
  if (!srun) std::cerr << "salloc: Pending job allocation " << id << "\n";
  bool told_waiting = false;
  auto delay = std::chrono::milliseconds(20);
  // A bare --immediate allows a second, as Slurm's does.
  const auto immediate_deadline =
      std::chrono::steady_clock::now() +
      std::chrono::seconds(std::max<uint32_t>(immediate_s.value_or(0), 1));
  while (*give_up == 0) {
    if (immediate_s && std::chrono::steady_clock::now() >= immediate_deadline) {
      ReleaseAllocation(client, allocation.job_id, /*cancel=*/true, /*quiet=*/true,
                        program.c_str());
      return Status(StatusCode::kUnavailable,
                    program + ": error: Unable to allocate resources: Requested nodes are busy");
    }
    wire::ListJobsRequest req;
    req.add_job_ids(id);
    wire::ListJobsResponse resp;
    if (Status s = client.Call(api::kListJobs, req, &resp); !s.ok()) {
      ReleaseAllocation(client, allocation.job_id, /*cancel=*/true, /*quiet=*/true,
                        program.c_str());
      return Status(s.code(), program + ": error: " + s.message());
    }
    if (resp.jobs_size() == 1) {
      const wire::JobRecord& job = resp.jobs(0);
      if (job.state() == wire::JOB_STATE_RUNNING) {
        allocation.job = model::LaunchOf(job);
        if (srun) std::cerr << "srun: job " << id << " has been allocated resources\n";
        if (!srun) std::cerr << "salloc: Granted job allocation " << id << "\n";
        return allocation;
      }
      if (model::IsFinished(job.state())) break;
      if (!told_waiting && !immediate_s && job.state() == wire::JOB_STATE_PENDING) {
        std::cerr << program << ": job " << id << " queued and waiting for resources\n";
        told_waiting = true;
      }
    }
    std::this_thread::sleep_for(delay);
    delay = std::min<std::chrono::milliseconds>(delay * 2, std::chrono::milliseconds(500));
  }
  if (*give_up != 0) {
    ReleaseAllocation(client, allocation.job_id, /*cancel=*/true, /*quiet=*/true, program.c_str());
  }
  return Status(StatusCode::kFailedPrecondition,
                program + ": error: Job allocation " + id + " has been revoked.");
}

void ReleaseAllocation(ControllerClient& client, uint32_t job_id, bool cancel, bool quiet,
                       const char* program) {
  wire::SignalJobsRequest req;
  req.add_job_ids(std::to_string(job_id));
  if (!cancel) {
    req.set_signal(SIGUSR1);
    req.set_batch_only(true);
  }
  wire::SignalJobsResponse resp;
  Status s = client.Call(api::kSignalJobs, req, &resp);
  if (!s.ok() && !quiet) {
    std::cerr << program << ": error: releasing job " << job_id << ": " << s.message() << "\n";
  }
}

std::vector<std::pair<std::string, std::string>> AllocationVariables(
    const Allocation& allocation, const std::string& submit_dir, const std::string& submit_host) {
  const wire::JobLaunch& job = allocation.job;
  std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  const std::string nodelist = CompressHostlist(nodes);
  const std::string id = std::to_string(allocation.job_id);
  std::vector<std::pair<std::string, std::string>> vars = {
      {"SLURM_JOB_ID", id},
      {"SLURM_JOBID", id},
      {"SLURM_JOB_NAME", job.spec().name()},
      {"SLURM_JOB_NODELIST", nodelist},
      {"SLURM_NODELIST", nodelist},
      {"SLURM_JOB_NUM_NODES", std::to_string(nodes.size())},
      {"SLURM_NNODES", std::to_string(nodes.size())},
      {"SLURM_JOB_PARTITION", job.spec().partition()},
      {"SLURM_CLUSTER_NAME", allocation.cluster},
      {"SLURM_SUBMIT_DIR", submit_dir},
      {"SLURM_SUBMIT_HOST", submit_host},
  };
  // What each node holds (Open MPI's Slurm support reads both to place its
  // daemons), then what the allocation was asked for: the steps started in
  // it take these as their defaults, as in a batch job.
  for (auto& var : model::LayoutVariables(job)) vars.push_back(std::move(var));
  for (auto& var : model::RequestVariables(job.spec())) vars.push_back(std::move(var));
  return vars;
}

void SetVariable(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  for (std::string& e : env) {
    if (e.rfind(name + "=", 0) == 0) {
      e = name + "=" + value;
      return;
    }
  }
  env.push_back(name + "=" + value);
}

}  // namespace rota::cli
