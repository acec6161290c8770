// rota: the home of Rota's own commands, those Slurm has no name for.
//   rota why [--json] JOBID   every cause that holds a pending job (docs/why.md)
#include <getopt.h>

#include <iostream>
#include <string>

#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "cli/query/why_format.h"
#include "cli/slurm_version.h"
#include "common/strings.h"
#include "why.pb.h"

namespace {

constexpr char kUsage[] =
    "Usage: rota COMMAND [OPTIONS]\n"
    "Commands:\n"
    "  why [--json] JOBID   why a pending job waits: every cause, with its numbers,\n"
    "                       the jobs ahead of it and its planned start\n"
    "  help                 show this help message\n"
    "  version, --version   the Slurm release whose commands Rota follows\n";

int Why(int argc, char** argv) {
  bool json = false;
  const option long_options[] = {
      {"json", no_argument, nullptr, 'j'},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "+jh", long_options, nullptr)) != -1) {
    switch (c) {
      case 'j':
        json = true;
        break;
      case 'h':
        std::cout << "Usage: rota why [--json] JOBID\n";
        return 0;
      default:
        std::cerr << "Try \"rota help\" for more information\n";
        return 1;
    }
  }
  if (optind + 1 != argc) {
    std::cerr << "rota why: error: give one job id\n";
    return 1;
  }
  std::optional<uint64_t> id = rota::ParseUint(argv[optind]);
  if (!id || *id == 0 || *id > UINT32_MAX) {
    std::cerr << "rota why: error: Invalid job id: " << argv[optind] << "\n";
    return 1;
  }
  rota::wire::WhyRequest request;
  request.set_job_id(static_cast<uint32_t>(*id));
  rota::wire::WhyResponse response;
  if (!rota::cli::CallControllerOnce("rota why", rota::api::kExplainJob, request, &response)) {
    return 1;
  }
  std::cout << (json ? rota::cli::FormatWhyJson(response) : rota::cli::FormatWhyText(response));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 1;
  }
  const std::string command = argv[1];
  if (command == "why") return Why(argc - 1, argv + 1);
  if (command == "--version" || command == "-V" || command == "version") {
    std::cout << rota::cli::kSlurmVersionLine;
    return 0;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return 0;
  }
  std::cerr << "rota: error: unknown command: " << command << "\n" << kUsage;
  return 1;
}
