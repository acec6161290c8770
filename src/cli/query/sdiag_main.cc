// sdiag: the controller's scheduling and RPC statistics, or their reset.
#include <getopt.h>

#include <iostream>
#include <string>

#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/cluster_option.h"
#include "cli/local_time.h"
#include "cli/query/sdiag_format.h"
#include "cli/query/sdiag_option_table.h"
#include "cli/slurm_version.h"
#include "conf/config_loader.h"
#include "diag.pb.h"

namespace {

void Usage() {
  std::cout << "Usage: sdiag [OPTIONS]\n"
               "  -a, --all      all statistics (the default)\n"
               "  -r, --reset    reset the statistics (root and SlurmUser only)\n"
               "  -i, --sort-by-id      RPC lines by message type and user id\n"
               "  -t, --sort-by-time    RPC lines by total time\n"
               "  -T, --sort-by-time2   RPC lines by average time\n"
               "  -h, --help     show this help\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rota::cli::sdiag_options;  // kLong, kShort and the option ids
  bool reset = false;
  rota::cli::SdiagRpcOrder order = rota::cli::SdiagRpcOrder::kCount;
  // -M, else SLURM_CLUSTERS: checked before anything is contacted.
  std::string clusters = rota::cli::ClustersFromEnvironment();
  int c;
  int long_index = -1;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'a':
        break;
      case 'r':
        reset = true;
        break;
      case 'i':
        order = rota::cli::SdiagRpcOrder::kId;
        break;
      case 't':
        order = rota::cli::SdiagRpcOrder::kTotalTime;
        break;
      case 'T':
        order = rota::cli::SdiagRpcOrder::kAverageTime;
        break;
      case 'M':
        clusters = optarg;
        break;
      case 'h':
        Usage();
        return 0;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      default:
        if (rota::cli::ReportRefusedOption("sdiag", c, kLong, long_index, kRefused)) return 1;
        std::cerr << "Try \"sdiag --help\" for more information\n";
        return 1;
    }
  }
  if (!clusters.empty()) {
    if (rota::Status s = rota::cli::CheckClusterOption(clusters, rota::cli::CommandSlurmConfPath());
        !s.ok()) {
      std::cerr << "sdiag: error: " << s.message() << "\n";
      return 1;
    }
  }
  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "sdiag: error: " << client.status().message() << "\n";
    return 1;
  }
  rota::wire::DiagRequest request;
  request.set_reset(reset);
  rota::wire::DiagResponse response;
  rota::Status s = (*client)->Call(rota::api::kDiag, request, &response);
  if (reset) {
    if (!s.ok()) {
      std::cerr << "slurm_reset_statistics: " << s.message() << "\n";
      return 1;
    }
    std::cout << "Reset scheduling statistics\n";
    return 0;
  }
  if (!s.ok()) {
    std::cerr << "slurm_get_statistics: " << s.message() << "\n";
    return 1;
  }
  rota::cli::SortRpcCounts(response, order);
  std::cout << rota::cli::FormatSdiag(response, rota::cli::UtcOffsetSeconds);
  return 0;
}
