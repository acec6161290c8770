// seff JOBID: how efficiently a job used its CPUs, memory and GPUs, from
// rotadbd's record of it (cli/accounting/seff_report.h).
#include <getopt.h>

#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "cli/accounting/job_records_query.h"
#include "cli/accounting/sacct_job_selection.h"
#include "cli/accounting/seff_report.h"
#include "cli/client/accounting_client.h"
#include "cli/client/config_source.h"
#include "common/user_names.h"
#include "conf/config_loader.h"

namespace {

// Slurm's seff answers -h and a wrong command line alike: the usage, exit 1.
int Usage(FILE* to) {
  std::fprintf(to,
               "Usage: seff [-h] [-v] [-d] JOBID\n"
               "  JOBID  a job id, or ARRAYID_TASK for one task of an array\n"
               "  -h     this text\n"
               "  -v     the version of seff's layout\n"
               "  -d     also print the raw figures (\"Slurm data:\" lines)\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  rota::cli::SeffContext ctx;
  int c;
  while ((c = getopt(argc, argv, "hvd")) != -1) {
    switch (c) {
      case 'h':
        return Usage(stdout);
      case 'v':
        std::cout << rota::cli::kSeffVersionLine;
        return 1;
      case 'd':
        ctx.debug = true;
        break;
      default:
        return Usage(stderr);
    }
  }
  if (argc - optind != 1) return Usage(stderr);
  // One job or array task: "28", "30_2" (no lists, no steps).
  const std::string jobid = argv[optind];
  rota::cli::SacctJobSelection selection;
  if (jobid.find_first_of(",.") != std::string::npos || !selection.Add(jobid).ok()) {
    std::cerr << "seff: error: Invalid job id: " << jobid << "\n";
    return 1;
  }
  auto client = rota::cli::AccountingClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "seff: error: " << client.status().message() << "\n";
    return 1;
  }
  // Any user's job: rotadbd's PrivateData decides what an ordinary user sees.
  rota::wire::QueryJobsRequest query;
  for (uint32_t id : selection.QueryIds()) query.add_job_ids(id);
  auto jobs = rota::cli::QueryJobRecords(**client, query);
  if (!jobs.ok()) {
    std::cerr << "seff: error: " << jobs.status().message() << "\n";
    return 1;
  }
  std::map<uint32_t, std::vector<std::string>> only_steps;
  selection.Apply(*jobs, only_steps);
  const rota::wire::AccountingJob* job =
      rota::cli::SeffChooseJob(*jobs, selection.QueryIds().front());
  if (job == nullptr) {
    std::cerr << "Job not found.\n";
    return 2;
  }
  ctx.now = static_cast<int64_t>(std::time(nullptr));
  ctx.group = rota::GroupNameOrNumber(job->gid());
  std::cout << rota::cli::SeffReport(*job, ctx);
  return 0;
}
