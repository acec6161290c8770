// sshare: the fair-share tree with shares and usage (priority/multifactor).
#include <getopt.h>

#include <iostream>
#include <string>

#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/cluster_option.h"
#include "cli/query/sshare_format.h"
#include "cli/query/sshare_option_table.h"
#include "cli/slurm_version.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "fairshare.pb.h"

namespace {

constexpr char kUsage[] =
    "Usage: sshare [OPTIONS]\n"
    "  -a, --all               list all users\n"
    "  -A, --accounts=list     comma separated list of accounts to show\n"
    "  -l, --long              long listing (NormUsage, and LevelFS under Fair Tree)\n"
    "  -n, --noheader          no headers on output\n"
    "  -o, --format=fields     comma separated fields (Account,User%12,...)\n"
    "  -p, --parsable          '|' delimited, with a '|' at the end\n"
    "  -P, --parsable2         '|' delimited, without a '|' at the end\n"
    "  -u, --users=list        comma separated list of users to show\n"
    "      --help              show this help message\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace rota::cli::sshare_options;  // kLong, kShort and the option ids
  rota::cli::SshareOptions options;
  rota::wire::FairshareRequest request;
  // -M, else SLURM_CLUSTERS: checked before anything is contacted.
  std::string clusters = rota::cli::ClustersFromEnvironment();
  int c;
  int long_index = -1;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'a':
        request.set_all_users(true);
        break;
      case 'A':
        for (const std::string& a : rota::SplitCommaList(optarg)) request.add_accounts(a);
        break;
      case 'l':
        options.long_format = true;
        break;
      case 'U':
        options.users_only = true;
        break;
      case 'm':
        options.partitions = true;
        break;
      case 'e':
        std::cout << rota::cli::SshareHelpFormat();
        return 0;
      case 'n':
        options.no_header = true;
        break;
      case 'o':
        for (const std::string& f : rota::SplitCommaList(optarg)) options.fields.push_back(f);
        break;
      case 'p':
        options.parsable = true;
        break;
      case 'P':
        options.parsable2 = true;
        break;
      case 'u':
        for (const std::string& u : rota::SplitCommaList(optarg)) {
          if (u == "all") {
            request.set_all_users(true);
          } else {
            request.add_users(u);
          }
        }
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
      default:
        if (rota::cli::ReportRefusedOption("sshare", c, kLong, long_index, kRefused)) return 1;
        std::cerr << "Try \"sshare --help\" for more information\n";
        return 1;
    }
  }

  if (!clusters.empty()) {
    if (rota::Status s = rota::cli::CheckClusterOption(clusters, rota::cli::CommandSlurmConfPath());
        !s.ok()) {
      std::cerr << "sshare: error: " << s.message() << "\n";
      return 1;
    }
  }
  rota::wire::FairshareResponse response;
  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  rota::Status called = client.ok() ? (*client)->Call(rota::api::kListFairshare, request, &response)
                                    : client.status();
  if (!called.ok()) {
    std::cerr << "sshare: error: " << called.message() << "\n";
    return 1;
  }
  options.cluster = (*client)->config().settings.cluster_name;
  if (response.priority_type() != "priority/multifactor") {
    std::cerr << "sshare: error: PriorityType is " << response.priority_type()
              << "; sshare shows shares only under priority/multifactor\n";
    return 1;
  }
  std::string error;
  std::string out = rota::cli::FormatSshare(response, options, &error);
  if (!error.empty()) {
    std::cerr << "sshare: error: " << error << "\n";
    return 1;
  }
  std::cout << out;
  return 0;
}
