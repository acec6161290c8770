#include "ctld/core/job_script_env.h"

#include "common/hostlist.h"
#include "model/job_state.h"

namespace rota::ctld {

std::vector<std::string> JobScriptEnvironment(const wire::JobRecord& job,
                                              const std::string& cluster_name, bool ended) {
  const wire::JobSpec& s = job.spec();
  std::vector<std::string> env;
  auto set = [&](const char* name, const std::string& value) {
    env.push_back(std::string(name) + "=" + value);
  };
  // No search path of its own: the programs name what they run, as Slurm's
  // documentation asks; these directories cover a shell's usual tools.
  set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  set("SLURM_JOB_ID", std::to_string(job.job_id()));
  set("SLURM_JOBID", std::to_string(job.job_id()));
  set("SLURM_JOB_NAME", s.name());
  set("SLURM_JOB_USER", s.user());
  set("SLURM_JOB_UID", std::to_string(s.uid()));
  set("SLURM_JOB_GID", std::to_string(s.gid()));
  set("SLURM_JOB_GROUP", s.group());
  set("SLURM_JOB_ACCOUNT", s.account());
  set("SLURM_JOB_PARTITION", s.partition());
  std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  set("SLURM_JOB_NODELIST", CompressHostlist(nodes));
  set("SLURM_CLUSTER_NAME", cluster_name);
  set("SLURM_JOB_WORK_DIR", s.work_dir());
  set("SLURM_JOB_STDOUT", s.std_out());
  set("SLURM_JOB_STDERR", s.std_err().empty() ? s.std_out() : s.std_err());
  set("SLURM_JOB_STDIN", s.std_in().empty() ? "/dev/null" : s.std_in());
  if (job.array_job_id() != 0) {
    set("SLURM_ARRAY_JOB_ID", std::to_string(job.array_job_id()));
    set("SLURM_ARRAY_TASK_ID", std::to_string(job.array_task_id()));
  }
  set("SLURM_JOB_STATE", std::string(model::JobStateName(job.state())));
  if (ended) {
    const uint32_t status = job.exit_code();
    set("SLURM_JOB_EXIT_CODE", std::to_string(status));
    set("SLURM_JOB_EXIT_CODE2",
        std::to_string((status >> 8) & 0xff) + ":" + std::to_string(status & 0x7f));
  }
  return env;
}

void AddEpilogSlurmctld(const wire::JobRecord& job, const conf::SlurmConf& settings,
                        Effects& effects) {
  if (settings.epilog_slurmctld.empty() || job.nodes().empty()) return;
  ControllerScript script;
  script.job_id = job.job_id();
  script.program = settings.epilog_slurmctld;
  script.environment = JobScriptEnvironment(job, settings.cluster_name, /*ended=*/true);
  script.environment.push_back("SLURM_SCRIPT_CONTEXT=epilog_slurmctld");
  effects.scripts.push_back(std::move(script));
}

void AddPrologSlurmctld(const wire::JobRecord& job, const conf::SlurmConf& settings,
                        Effects& effects) {
  ControllerScript script;
  script.job_id = job.job_id();
  script.program = settings.prolog_slurmctld;
  script.environment = JobScriptEnvironment(job, settings.cluster_name, /*ended=*/false);
  script.environment.push_back("SLURM_SCRIPT_CONTEXT=prolog_slurmctld");
  script.prolog = true;
  script.run = job.restart_count();
  effects.scripts.push_back(std::move(script));
}

}  // namespace rota::ctld
