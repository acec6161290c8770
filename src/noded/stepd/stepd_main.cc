// rota-stepd: runs one job for rotad and outlives it (step_daemon.h).
// Started by rotad as `rota-stepd -f slurm.conf -N NODENAME -j JOBID` in a
// session of its own, after rotad wrote the job's step record to the spool;
// or, usually, forked for each job from `rota-stepd -f slurm.conf -N NODENAME
// -S`, a server rotad keeps ready (step_forker.h).
#include <getopt.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/log.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "noded/node_parts.h"
#include "noded/stepd/process_title.h"
#include "noded/stepd/step_daemon.h"
#include "noded/stepd/step_files.h"
#include "noded/stepd/step_forker.h"

namespace {

int Fail(uint32_t job_id, const std::string& why) {
  spdlog::critical("job {}: {}", job_id, why);
  return 1;
}

// One job's step daemon, from its step record to its recorded outcome.
int RunStep(const rota::noded::NodeParts& parts, uint32_t job_id) {
  using namespace rota;
  using namespace rota::noded;
  Result<wire::StepRecord> record = ReadStepRecord(parts.settings.spool_dir, job_id);
  if (!record.ok()) return Fail(job_id, record.status().message());
  StopFlag stop;  // Never set: a step daemon ends with its job.
  NodeContext context = parts.Context(&stop);

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

constexpr char kUsage[] =
    "Usage: rota-stepd -f slurm.conf -N NODENAME -j JOBID\n"
    "       rota-stepd -f slurm.conf -N NODENAME -S   (fork server on descriptor 3)\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace rota;
  using namespace rota::noded;
  std::string conf_path = conf::DefaultSlurmConfPath();
  std::string node_name;
  uint32_t job_id = 0;
  bool serve = false;
  int c;
  while ((c = getopt(argc, argv, "f:N:j:S")) != -1) {
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
      case 'S':
        serve = true;
        break;
      default:
        std::fputs(kUsage, stderr);
        return 1;
    }
  }
  if (node_name.empty() || (job_id == 0) == !serve) {
    std::fputs(kUsage, stderr);
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
  if (!parts.ok()) {
    if (serve) {
      spdlog::critical("step daemon server: {}", parts.status().message());
      return 1;
    }
    return Fail(job_id, parts.status().message());
  }
  if (serve) {
    return ServeStepForks(3, [&](uint32_t job) {
      // As `ps` would show it had it been exec'd for the job (short form).
      SetProcessTitle(argc, argv,
                      std::string(argv[0]) + " -N " + node_name + " -j " + std::to_string(job));
      return RunStep(*parts, job);
    });
  }
  return RunStep(*parts, job_id);
}
