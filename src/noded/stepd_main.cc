// rota-stepd: runs one job for rotad and outlives it (step_daemon.h).
// Started by rotad as `rota-stepd -f slurm.conf -N NODENAME -j JOBID` in a
// session of its own, after rotad wrote the job's step record to the spool.
#include <getopt.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/log.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "noded/node_parts.h"
#include "noded/step_daemon.h"
#include "noded/step_files.h"

namespace {

int Fail(uint32_t job_id, const std::string& why) {
  spdlog::critical("job {}: {}", job_id, why);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rota;
  using namespace rota::noded;
  std::string conf_path = conf::DefaultSlurmConfPath();
  std::string node_name;
  uint32_t job_id = 0;
  int c;
  while ((c = getopt(argc, argv, "f:N:j:")) != -1) {
    switch (c) {
      case 'f':
        conf_path = optarg;
        break;
      case 'N':
        node_name = optarg;
        break;
      case 'j':
        job_id = static_cast<uint32_t>(ParseUint(optarg).value_or(0));
        break;
      default:
        std::fprintf(stderr, "Usage: rota-stepd -f slurm.conf -N NODENAME -j JOBID\n");
        return 1;
    }
  }
  if (node_name.empty() || job_id == 0) {
    std::fprintf(stderr, "Usage: rota-stepd -f slurm.conf -N NODENAME -j JOBID\n");
    return 1;
  }
  InitLogging("rota-stepd", "info");
  // rotad's fate is not the job's: a hangup or a stray terminal signal must not
  // end it. The job gets default handlers back (job_process.cc).
  signal(SIGPIPE, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);

  const char* fake_gpus = std::getenv("ROTA_FAKE_GPUS");
  Result<NodeParts> parts = BuildNodeParts(conf_path, node_name, fake_gpus ? fake_gpus : "");
  if (!parts.ok()) return Fail(job_id, parts.status().message());
  Result<wire::StepRecord> record = ReadStepRecord(parts->settings.spool_dir, job_id);
  if (!record.ok()) return Fail(job_id, record.status().message());
  StopFlag stop;  // Never set: a step daemon ends with its job.
  NodeContext context = parts->Context(&stop);

  StepDaemon step(context, std::move(record).value());
  Result<wire::JobExitedRequest> outcome = step.Run();
  if (!outcome.ok()) {
    // rotad finds no socket and no outcome, and reports the job as lost.
    return Fail(job_id, outcome.status().message());
  }
  spdlog::info("job {}: ended with wait status {:#x}; outcome recorded", job_id,
               outcome->wait_status());
  return 0;
}
