// sprio: the factors behind each pending job's priority (priority/multifactor).
#include <getopt.h>

#include <iostream>
#include <optional>
#include <string>

#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/cluster_option.h"
#include "cli/query/sprio_format.h"
#include "cli/query/sprio_option_table.h"
#include "cli/slurm_version.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "priority.pb.h"

namespace {

constexpr char kUsage[] =
    "Usage: sprio [OPTIONS]\n"
    "  -h, --noheader          no headers on output\n"
    "  -j, --jobs=job_list     comma separated list of jobs to show\n"
    "  -l, --long              long report\n"
    "  -n, --norm              show the factors (0 to 1) rather than weighted values\n"
    "  -o, --format=format     format specification\n"
    "  -p, --partition=list    comma separated list of partitions to show\n"
    "  -u, --user=user_list    comma separated list of users to show\n"
    "  -w, --weights           show the configured weights\n"
    "      --help              show this help message\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace rota::cli::sprio_options;  // kLong, kShort and the option ids
  rota::cli::SprioOptions options;
  rota::wire::PriorityRequest request;
  bool long_format = false;
  std::optional<std::string> format;
  // -M, else SLURM_CLUSTERS: checked before anything is contacted.
  std::string clusters = rota::cli::ClustersFromEnvironment();
  int c;
  int long_index = -1;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'h':
        options.no_header = true;
        break;
      case 'j':
        for (const std::string& id : rota::SplitCommaList(optarg)) {
          std::optional<uint64_t> n = rota::ParseUint(id);
          if (!n || *n == 0 || *n > UINT32_MAX) {
            std::cerr << "sprio: error: Invalid job id: " << id << "\n";
            return 1;
          }
          request.add_job_ids(static_cast<uint32_t>(*n));
        }
        break;
      case 'l':
        long_format = true;
        break;
      case 'n':
        options.normalized = true;
        break;
      case 'o':
        format = optarg;
        break;
      case 'p':
        for (const std::string& p : rota::SplitCommaList(optarg)) request.add_partitions(p);
        break;
      case 'u':
        for (const std::string& u : rota::SplitCommaList(optarg)) request.add_users(u);
        break;
      case 'w':
        options.weights = true;
        break;
      case 'M':
        clusters = optarg;
        break;
      case 1001:
        std::cout << kUsage;
        return 0;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      case 'v':
        break;
      case 'S':
        if (rota::Status s = rota::cli::CheckSprioSort(optarg); !s.ok()) {
          std::cerr << "sprio: error: " << s.message() << "\n";
          return 1;
        }
        options.sort = optarg;
        break;
      default:
        if (rota::cli::ReportRefusedOption("sprio", c, kLong, long_index, kRefused)) return 1;
        std::cerr << "Try \"sprio --help\" for more information\n";
        return 1;
    }
  }
  if (format) {
    options.format = *format;
  } else if (long_format) {
    options.format = rota::cli::kSprioLongFormat;
  }

  if (!clusters.empty()) {
    if (rota::Status s = rota::cli::CheckClusterOption(clusters, rota::cli::CommandSlurmConfPath());
        !s.ok()) {
      std::cerr << "sprio: error: " << s.message() << "\n";
      return 1;
    }
  }
  rota::wire::PriorityResponse response;
  if (!rota::cli::CallControllerOnce("sprio", rota::api::kListPriorities, request, &response))
    return 1;
  if (response.priority_type() != "priority/multifactor") {
    std::cerr << "sprio: error: PriorityType is " << response.priority_type()
              << "; sprio shows factors only under priority/multifactor\n";
    return 1;
  }
  std::string error;
  std::string out = rota::cli::FormatSprio(response, options, &error);
  if (!error.empty()) {
    std::cerr << "sprio: error: " << error << "\n";
    return 1;
  }
  std::cout << out;
  return 0;
}
