// sbatch: submit a batch script.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <ctime>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/cluster_option.h"
#include "cli/slurm_time.h"
#include "cli/slurm_version.h"
#include "cli/submit/batch_script.h"
#include "cli/submit/job_options.h"
#include "cli/submit/propagated_limits.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "model/job_state.h"
#include "rota.pb.h"

extern char** environ;

namespace {

// Prints an error message of one or more lines, Slurm-style: every line but
// the last is context, the last says why the submission failed.
void PrintSubmitFailure(const std::string& message) {
  std::vector<std::string_view> lines = rota::Split(message, '\n');
  for (size_t i = 0; i + 1 < lines.size(); ++i) std::cerr << "sbatch: error: " << lines[i] << "\n";
  std::cerr << "sbatch: error: Batch job submission failed: " << lines.back() << "\n";
}

// Waits for the job to end (--wait) and returns its exit status.
int WaitForJob(rota::cli::ControllerClient& client, uint32_t job_id) {
  auto delay = std::chrono::milliseconds(100);
  while (true) {
    rota::wire::ListJobsRequest req;
    req.add_job_ids(std::to_string(job_id));
    rota::wire::ListJobsResponse resp;
    rota::Status s = client.Call(rota::api::kListJobs, req, &resp);
    if (!s.ok()) {
      std::cerr << "sbatch: error: " << s.message() << "\n";
      return 1;
    }
    bool all_done = !resp.jobs().empty();
    int worst = 0;
    for (const auto& job : resp.jobs()) {
      if (!rota::model::IsFinished(job.state())) all_done = false;
      int status = static_cast<int>(job.exit_code());
      int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      if (job.state() != rota::wire::JOB_STATE_COMPLETED && code == 0) code = 1;
      worst = std::max(worst, code);
    }
    if (all_done) return worst;
    std::this_thread::sleep_for(delay);
    delay = std::min<std::chrono::milliseconds>(delay * 2, std::chrono::seconds(2));
  }
}

}  // namespace

int main(int argc, char** argv) {
  rota::cli::ExportUmask();
  rota::cli::JobOptionsContext context;
  context.env = rota::cli::EnvironmentFromEnvp(environ);
  char cwd[PATH_MAX];
  context.cwd = getcwd(cwd, sizeof cwd) != nullptr ? cwd : "/";
  context.now = static_cast<int64_t>(std::time(nullptr));
  std::vector<std::string> args(argv + 1, argv + argc);
  // --help, --usage and --version answer without slurm.conf or a script.
  if (auto early = rota::cli::ParseJobOptions(rota::cli::Command::kSbatch,
                                              {args, {}, /*partial=*/true}, context);
      early.ok() && (early->help || early->usage || early->version)) {
    if (early->version) {
      std::cout << rota::cli::kSlurmVersionLine;
    } else {
      std::cout << "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n";
    }
    return 0;
  }
  // slurm.conf first, for the script's size bound; its errors are told after
  // those of the options.
  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (client.ok()) {
    context.max_script_bytes = (*client)->config().settings.scheduler.max_script_size;
  }

  auto parsed = rota::cli::ParseSbatchInvocation(args, context, std::cin);
  if (!parsed.ok()) {
    std::cerr << parsed.status().message() << "\n";
    return 1;
  }
  for (const std::string& w : parsed->warnings) std::cerr << w << "\n";
  if (!parsed->clusters.empty()) {
    if (rota::Status s =
            rota::cli::CheckClusterOption(parsed->clusters, rota::cli::CommandSlurmConfPath());
        !s.ok()) {
      std::cerr << "sbatch: error: " << s.message() << "\n";
      return 1;
    }
  }

  char host[256] = {};
  gethostname(host, sizeof host - 1);
  parsed->spec.set_submit_host(host);

  if (!client.ok()) {
    std::cerr << "sbatch: error: " << client.status().message() << "\n";
    return 1;
  }
  const std::string& cluster = (*client)->config().settings.cluster_name;
  rota::wire::SubmitJobRequest request;
  *request.mutable_spec() = parsed->spec;
  rota::cli::AddPropagatedLimits((*client)->config().settings,
                                 request.mutable_spec()->mutable_rlimits(), parsed->propagate);
  request.set_test_only(parsed->test_only);
  rota::wire::SubmitJobResponse response;
  rota::Status s = (*client)->Call(rota::api::kSubmitJob, request, &response);
  if (!s.ok()) {
    PrintSubmitFailure(s.message());
    return 1;
  }
  if (!response.message().empty()) std::cerr << response.message() << "\n";
  if (parsed->test_only) {
    const std::string& partition = response.partition();
    if (response.test_only_start() > 0) {
      std::vector<std::string> nodes(response.test_only_nodes().begin(),
                                     response.test_only_nodes().end());
      std::cerr << "sbatch: Job " << response.job_id() << " to start at "
                << rota::cli::FormatSlurmTime(response.test_only_start()) << " using "
                << response.test_only_cpus() << " processors on nodes "
                << rota::CompressHostlist(nodes) << " in partition " << partition << "\n";
    } else {
      // Without the backfill planner there is no honest estimate of a later start.
      std::cerr << "sbatch: Job " << response.job_id()
                << " would not start now; no start time can be estimated yet (partition "
                << partition << ")\n";
    }
    return 0;
  }
  // With -M Slurm names the cluster the job went to.
  if (parsed->parsable) {
    std::cout << response.job_id() << (parsed->clusters.empty() ? "" : ";" + cluster) << "\n";
  } else if (!parsed->quiet) {
    std::cout << "Submitted batch job " << response.job_id()
              << (parsed->clusters.empty() ? "" : " on cluster " + cluster) << "\n";
  }
  std::cout.flush();
  if (parsed->wait) return WaitForJob(**client, response.job_id());
  return 0;
}
