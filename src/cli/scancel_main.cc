// scancel: cancel or signal jobs.
#include <getopt.h>
#include <pwd.h>
#include <unistd.h>

#include <iostream>
#include <string>

#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/cluster_option.h"
#include "cli/query/job_listing.h"
#include "cli/scancel_filters.h"
#include "cli/scancel_option_table.h"
#include "cli/signal_names.h"
#include "cli/slurm_version.h"
#include "cli/step/step_commands.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "rota.pb.h"

namespace {

void Usage() {
  std::cout << "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]\n"
               "  -b, --batch            signal the batch step only\n"
               "  -f, --full             signal the batch step and every step\n"
               "  -i, --interactive      ask before each job\n"
               "  -n, --name=job_name    act only on jobs with this name\n"
               "  -p, --partition=name   act only on jobs in this partition\n"
               "  -s, --signal=name|int  send this signal (default: cancel); without -b\n"
               "                         or -f it reaches the job's steps, not the batch step\n"
               "  -t, --state=state      act only on jobs in this state\n"
               "  -u, --user=user_name   act only on jobs of this user\n"
               "  -Q, --quiet            do not report errors\n";
}

// The jobs `request` selects (ids, -u, -p, -t, -n), as the controller lists
// them; JobsPassingFilters keeps those that pass the other filters.
rota::Result<std::vector<rota::wire::JobRecord>> ListJobs(
    rota::cli::ControllerClient& client, const rota::wire::SignalJobsRequest& request,
    const rota::cli::ScancelListFilters& filters) {
  rota::wire::ListJobsRequest list;
  for (const std::string& id : request.job_ids()) list.add_job_ids(id);
  if (!request.user().empty()) list.add_users(request.user());
  if (!request.partition().empty()) list.add_partitions(request.partition());
  if (!request.state().empty()) list.add_states(request.state());
  if (!request.name().empty()) list.add_names(request.name());
  for (const std::string& a : filters.accounts) list.add_accounts(a);
  for (const std::string& q : filters.qos) list.add_qos(q);
  rota::wire::ListJobsResponse listed;
  ROTA_RETURN_IF_ERROR(client.Call(rota::api::kListJobs, list, &listed));
  return std::vector<rota::wire::JobRecord>(listed.jobs().begin(), listed.jobs().end());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rota::cli::scancel_options;  // kLong, kShort and the option ids
  rota::wire::SignalJobsRequest request;
  bool quiet = false;
  bool interactive = false;               // -i: ask before each job
  rota::cli::ScancelListFilters filters;  // -A, -q, -R, -w, --wckey
  // -M, else SLURM_CLUSTERS: checked before anything is contacted.
  std::string clusters = rota::cli::ClustersFromEnvironment();
  int c;
  int long_index = -1;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'b':
        request.set_batch_only(true);
        break;
      case 'i':
        interactive = true;
        break;
      case 'f':
        request.set_full(true);
        break;
      case 'n':
        request.set_name(optarg);
        break;
      case 'p':
        request.set_partition(optarg);
        break;
      case 's': {
        std::optional<int> sig = rota::cli::ParseSignal(optarg);
        if (!sig) {
          std::cerr << "scancel: error: Invalid job signal: " << optarg << "\n";
          return 1;
        }
        request.set_signal(*sig);
        break;
      }
      case 't':
        request.set_state(optarg);
        break;
      case 'u':
        request.set_user(optarg);
        break;
      case 'Q':
        quiet = true;
        break;
      case 'M':
        clusters = optarg;
        break;
      case 'v':
      case 'H':  // No burst buffer to stage out
      case kNoOp:
        break;
      case 'A':
        filters.accounts = rota::SplitCommaList(optarg);
        break;
      case 'q':
        filters.qos = rota::SplitCommaList(optarg);
        break;
      case 'R':
        filters.reservations = rota::SplitCommaList(optarg);
        break;
      case kWckey:
        filters.wckeys = rota::SplitCommaList(optarg);
        break;
      case 'w': {
        auto nodes = rota::ExpandHostlist(optarg);
        if (!nodes.ok()) {
          std::cerr << "scancel: error: Invalid node list: " << optarg << "\n";
          return 1;
        }
        filters.nodes.insert(filters.nodes.end(), nodes->begin(), nodes->end());
        break;
      }
      case kMe:  // -u with one's own name
        if (const passwd* me = getpwuid(getuid()); me != nullptr) request.set_user(me->pw_name);
        break;
      case 'h':
        Usage();
        return 0;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      default:
        if (rota::cli::ReportRefusedOption("scancel", c, kLong, long_index, kRefused)) return 1;
        std::cerr << "Try \"scancel --help\" for more information\n";
        return 1;
    }
  }
  if (!clusters.empty()) {
    if (rota::Status s = rota::cli::CheckClusterOption(clusters, rota::cli::CommandSlurmConfPath());
        !s.ok()) {
      std::cerr << "scancel: error: " << s.message() << "\n";
      return 1;
    }
  }
  for (int i = optind; i < argc; ++i) {
    if (!rota::cli::ParseStepId(argv[i]) && !rota::cli::IsJobIdText(argv[i])) {
      std::cerr << "scancel: error: Invalid job id " << argv[i] << "\n";
      return 1;
    }
  }
  // -i for a step: asked with its job's name and partition.
  auto step_confirmed = [&](uint32_t job_id, uint32_t step_id) {
    if (!interactive) return true;
    auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
    if (!client.ok()) return false;
    rota::wire::SignalJobsRequest one;
    one.add_job_ids(std::to_string(job_id));
    auto listed = ListJobs(**client, one, {});
    if (!listed.ok()) return false;
    return !rota::cli::ConfirmedJobs(rota::cli::JobsPassingFilters(*listed, {}), std::cin,
                                     std::cout, std::to_string(step_id))
                .empty();
  };
  // JOBID.STEPID: the step's tasks, signalled on its nodes (cli/step/step_commands.h).
  int step_code = 0;
  for (int i = optind; i < argc; ++i) {
    if (auto step = rota::cli::ParseStepId(argv[i])) {
      if (!step_confirmed(step->first, step->second)) continue;
      step_code |= rota::cli::CancelStepCommand(rota::cli::CommandSlurmConfPath(), step->first,
                                                step->second, request.signal(), quiet);
    } else {
      request.add_job_ids(argv[i]);
    }
  }
  if (optind < argc && request.job_ids().empty()) return step_code;
  if (request.job_ids().empty() && request.user().empty() && request.partition().empty() &&
      request.state().empty() && request.name().empty() && filters.empty()) {
    std::cerr << "scancel: error: No job identification provided\n";
    return 1;
  }
  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "scancel: error: " << client.status().message() << "\n";
    return 1;
  }
  if (!filters.empty() || interactive) {
    // As Slurm's scancel: the jobs are listed, filtered (and confirmed with
    // -i) here, then named.
    rota::Result<std::vector<rota::wire::JobRecord>> listed = ListJobs(**client, request, filters);
    if (!listed.ok()) {
      std::cerr << "scancel: error: " << listed.status().message() << "\n";
      return 1;
    }
    const std::vector<const rota::wire::JobRecord*> chosen =
        rota::cli::JobsPassingFilters(*listed, filters);
    std::vector<std::string> ids;
    if (interactive) {
      ids = rota::cli::ConfirmedJobs(chosen, std::cin, std::cout);
    } else {
      for (const rota::wire::JobRecord* job : chosen) ids.push_back(rota::cli::ScancelJobId(*job));
    }
    if (ids.empty()) return step_code;
    request.clear_job_ids();
    for (const std::string& id : ids) request.add_job_ids(id);
  }
  rota::wire::SignalJobsResponse response;
  rota::Status s = (*client)->Call(rota::api::kSignalJobs, request, &response);
  if (!s.ok()) {
    std::cerr << "scancel: error: " << s.message() << "\n";
    return 1;
  }
  if (!quiet) {
    for (const std::string& e : response.errors()) {
      // "<id>: <why>" from the controller.
      size_t colon = e.find(": ");
      std::cerr << "scancel: error: Kill job error on job id " << e.substr(0, colon) << ": "
                << (colon == std::string::npos ? e : e.substr(colon + 2)) << "\n";
    }
  }
  return response.errors().empty() ? step_code : 1;
}
