// The commands' own contract, checked with no controller, no rotadbd and
// often no slurm.conf: what they answer before they would contact anything
// (--version, -M/--clusters, value forms, option checks), as Slurm 22.05's
// commands answer it (docs/options.md).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "testing/temp_dir.h"
#include "tests/integration/run_command.h"

namespace rota {
namespace {

using RunResult = testing::CommandResult;
using testing::RunProgram;

const std::vector<std::string> kNoConfig = {"SLURM_CONF=/nonexistent/slurm.conf"};

const char* const kCommands[] = {"sbatch",   "srun",    "salloc",  "squeue",   "sinfo",
                                 "scontrol", "scancel", "sacct",   "sacctmgr", "sprio",
                                 "sshare",   "sdiag",   "sreport", "rota"};

TEST(VersionTest, EveryCommandPrintsSlurmsVersionWithoutConfiguration) {
  for (const char* command : kCommands) {
    for (const char* flag : {"--version", "-V"}) {
      RunResult r = RunProgram(command, {flag}, kNoConfig);
      EXPECT_EQ(r.exit_code, 0) << command << " " << flag << "\n" << r.out;
      EXPECT_EQ(r.out, "slurm 22.05.8\n") << command << " " << flag;
    }
  }
}

TEST(VersionTest, VersionWordsOfTheInteractiveCommands) {
  for (const char* command : {"scontrol", "sacctmgr", "sreport", "rota"}) {
    RunResult r = RunProgram(command, {"version"}, kNoConfig);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.out;
    EXPECT_EQ(r.out, "slurm 22.05.8\n") << command;
  }
}

TEST(VersionTest, SbatchAnswersBeforeLookingForItsScript) {
  RunResult r = RunProgram("sbatch", {"--version", "/nonexistent/script.sh"}, kNoConfig);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "slurm 22.05.8\n");
}

// A cluster whose controller does not answer: port 1 on the loopback is closed.
class ClusterOptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    conf_ = dir_.Write("slurm.conf",
                       "ClusterName=anchor\n"
                       "SlurmctldHost=localhost(127.0.0.1)\n"
                       "SlurmctldPort=1\n"
                       "AuthType=auth/slurm\n"
                       "NodeName=n1 CPUs=4\n"
                       "PartitionName=p Nodes=n1 Default=YES\n");
    env_ = {"SLURM_CONF=" + conf_, "SLURM_CLIENT_TIMEOUT=2"};
  }

  testing::TempDir dir_;
  std::string conf_;
  std::vector<std::string> env_;
};

constexpr char kUnreachable[] =
    "' can't be reached now, or it is an invalid entry for --cluster.  Use 'sacctmgr list "
    "clusters' to see available clusters.\n";

TEST_F(ClusterOptionTest, AnotherClusterIsRefusedBeforeAnythingIsContacted) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> calls = {
      {"sbatch", {"-M", "elsewhere", "--wrap=true"}},
      {"salloc", {"--clusters=elsewhere", "true"}},
      {"srun", {"-M", "elsewhere", "true"}},
      {"squeue", {"-M", "elsewhere"}},
      {"sinfo", {"--clusters=elsewhere"}},
      {"scancel", {"-M", "elsewhere", "12"}},
      {"sprio", {"-M", "elsewhere"}},
      {"sshare", {"-M", "elsewhere"}},
      {"sdiag", {"--cluster=elsewhere"}},
      {"scontrol", {"-M", "elsewhere", "show", "job"}},
  };
  for (const auto& [command, args] : calls) {
    RunResult r = RunProgram(command, args, env_);
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.out;
    EXPECT_EQ(r.out, command + ": error: 'elsewhere" + kUnreachable) << command;
  }
  // A list with one other name is refused whole, named as given.
  RunResult r = RunProgram("squeue", {"-M", "anchor,elsewhere"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, std::string("squeue: error: 'anchor,elsewhere") + kUnreachable);
}

// SLURM_CLUSTERS is the query commands' -M, as in Slurm; -M replaces it.
TEST_F(ClusterOptionTest, SlurmClustersIsTheQueryCommandsDefault) {
  std::vector<std::string> env = env_;
  env.push_back("SLURM_CLUSTERS=elsewhere");
  for (const char* command :
       {"squeue", "sinfo", "sprio", "sshare", "sdiag", "scancel", "scontrol"}) {
    std::vector<std::string> args;
    if (std::string(command) == "scancel") args = {"12"};
    if (std::string(command) == "scontrol") args = {"show", "job"};
    RunResult r = RunProgram(command, args, env);
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.out;
    EXPECT_EQ(r.out, std::string(command) + ": error: 'elsewhere" + kUnreachable) << command;
  }
  RunResult r = RunProgram("squeue", {"-M", "anchor"}, env);
  EXPECT_EQ(r.out.find("invalid entry for --cluster"), std::string::npos) << r.out;
}

TEST_F(ClusterOptionTest, TheLocalClusterAndAllAreTaken) {
  for (const char* value : {"anchor", "ANCHOR", "all", "anchor,anchor"}) {
    for (const char* command : {"squeue", "sinfo", "sprio", "sshare", "sdiag"}) {
      RunResult r = RunProgram(command, {"-M", value}, env_);
      // On to the controller, which does not answer.
      EXPECT_EQ(r.exit_code, 1) << command << " -M " << value << "\n" << r.out;
      EXPECT_EQ(r.out.find("invalid entry for --cluster"), std::string::npos)
          << command << " -M " << value << "\n"
          << r.out;
      EXPECT_EQ(r.out.rfind(std::string(command) + ": error: ", 0), 0u) << r.out;
    }
  }
  RunResult r = RunProgram("sbatch", {"-M", "anchor", "--wrap=true"}, env_);
  EXPECT_EQ(r.out.find("invalid entry for --cluster"), std::string::npos) << r.out;
}

TEST_F(ClusterOptionTest, FederationAndUnitOptionsAreAccepted) {
  for (const char* command : {"squeue", "sinfo", "sacct"}) {
    for (const char* option : {"--local", "--federation", "--noconvert"}) {
      RunResult r = RunProgram(command, {option}, env_);
      EXPECT_EQ(r.out.find("unrecognized option"), std::string::npos)
          << command << " " << option << "\n"
          << r.out;
    }
  }
}

TEST_F(ClusterOptionTest, ValueFormsOfSlurmsCommandsAreTaken) {
  for (const char* command : {"sbatch", "salloc", "srun"}) {
    std::vector<std::string> args = {"--mem=16GB", "--time=5-", "--time-min=-1"};
    args.push_back(std::string(command) == "sbatch" ? "--wrap=true" : "true");
    RunResult r = RunProgram(command, args, env_);
    // Past the options, on to the controller (which does not answer).
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.out;
    EXPECT_EQ(r.out.find("invalid memory"), std::string::npos) << command << "\n" << r.out;
    EXPECT_EQ(r.out.find("Invalid --time"), std::string::npos) << command << "\n" << r.out;
  }
  RunResult r = RunProgram("sbatch", {"--mem=16B", "--wrap=true"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "sbatch: error: invalid memory constraint: 16B\n");
  r = RunProgram("sbatch", {"--mem-per-cpu=99999999999999999999", "--wrap=true"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "sbatch: error: invalid memory constraint: 99999999999999999999\n");
  r = RunProgram("srun", {"--mem=16B", "true"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "srun: error: invalid memory constraint: 16B\n");
}

TEST_F(ClusterOptionTest, GpuOptionCombinationsAreRefusedAsSlurmRefusesThem) {
  struct Case {
    std::string command;
    std::vector<std::string> args;
    std::string out;
  };
  const std::string gres = "Invalid generic resource (gres) specification\n";
  const std::string per_task =
      "--gpus-per-task used without either --gpus or -n/--ntasks is not allowed.\n";
  const std::vector<Case> cases = {
      {"sbatch",
       {"--gpus-per-task=1", "--wrap=true"},
       "sbatch: error: " + per_task + "sbatch: error: Batch job submission failed: " + gres},
      {"srun",
       {"--gpus-per-task=1", "true"},
       "srun: error: " + per_task + "srun: error: Unable to allocate resources: " + gres},
      {"salloc",
       {"--gpus-per-task=1", "true"},
       "salloc: error: " + per_task + "salloc: error: Job submit/allocate failed: " + gres},
      {"sbatch",
       {"-n4", "--gpus-per-task=1", "--ntasks-per-gpu=2", "--wrap=true"},
       "sbatch: fatal: --gpus-per-task is mutually exclusive with --ntasks-per-gpu and "
       "SLURM_NTASKS_PER_GPU\n"},
      {"sbatch",
       {"-G1", "-c2", "--cpus-per-gpu=2", "--wrap=true"},
       "sbatch: fatal: --cpus-per-task and --cpus-per-gpu are mutually exclusive\n"},
      {"srun",
       {"--gpus-per-socket=1", "true"},
       "srun: error: --gpus-per-socket option requires --sockets-per-node specification\n"},
      {"sbatch",
       {"--mem-per-gpu=1G", "--wrap=true"},
       "sbatch: error: --mem-per-gpu used without a GPU request (--gpus, --gpus-per-node, "
       "--gpus-per-task, --gpus-per-socket or --gres=gpu).\nsbatch: error: Batch job submission "
       "failed: " +
           gres},
  };
  for (const Case& c : cases) {
    RunResult r = RunProgram(c.command, c.args, env_);
    EXPECT_EQ(r.exit_code, 1) << c.command << "\n" << r.out;
    EXPECT_EQ(r.out, c.out) << c.command;
  }
  // A script's task count counts.
  const std::string script = dir_.Write("job.sh", "#!/bin/sh\n#SBATCH -n 2\ntrue\n");
  RunResult r = RunProgram("sbatch", {"--gpus-per-task=1", script}, env_);
  EXPECT_EQ(r.out.find("--gpus-per-task used"), std::string::npos) << r.out;
}

// Slurm's options that Rota does not carry out say why, before anything is
// contacted (docs/options.md, "The other commands"); a mere verbose is taken.
TEST_F(ClusterOptionTest, RefusedOptionsSayWhyBeforeAnythingIsContacted) {
  struct Case {
    std::string command;
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"squeue",
       {"--yaml"},
       "squeue: error: --yaml: YAML output is not supported; --json gives the same records\n"},
      {"squeue", {"--iterate=0"}, "squeue: error: --iterate=0\n"},
      {"sinfo",
       {"--json"},
       "sinfo: error: --json: JSON output is not supported by sinfo yet; scontrol show node gives "
       "every field\n"},
      {"sacct",
       {"-c"},
       "sacct: error: --completion: not supported: there is no job completion log\n"},
      {"sacct",
       {"--units=x"},
       "sacct: error: Invalid unit type 'x'. Possible options are 'KMGTP'\n"},
      {"sprio", {"-S", "-x"}, "sprio: error: Invalid sort specification: x\n"},
      {"sshare", {"--json"}, "sshare: error: --json: JSON output is not supported by sshare yet\n"},
      {"sdiag", {"--yaml"}, "sdiag: error: --yaml: YAML output is not supported\n"},
      {"sacctmgr",
       {"--json", "list", "user"},
       "sacctmgr: error: --json: JSON output is not supported by sacctmgr yet\n"},
      // An option after the command words is still an option (getopt permutes).
      {"scontrol",
       {"show", "job", "--uid=5"},
       "scontrol: error: --uid: not supported: scontrol acts as the user who runs it\n"},
      {"sacct", {"-i", "2-1"}, "sacct: fatal: invalid --nnodes value: 2-1\n"},
  };
  for (const Case& c : cases) {
    RunResult r = RunProgram(c.command, c.args, env_);
    EXPECT_EQ(r.exit_code, 1) << c.command << " " << c.args[0];
    EXPECT_EQ(r.out, c.error) << c.command << " " << c.args[0];
  }
  // Accepted: they reach the (absent) controller, not an option error.
  for (const auto& [command, option] :
       std::vector<std::pair<std::string, std::string>>{{"squeue", "--verbose"},
                                                        {"sinfo", "--exact"},
                                                        {"scancel", "--ctld"},
                                                        {"sacct", "-T"},
                                                        {"scontrol", "--future"},
                                                        {"sreport", "--all_clusters"}}) {
    RunResult r = RunProgram(command, {option}, env_);
    EXPECT_EQ(r.out.find("unrecognized"), std::string::npos) << command << " " << option << r.out;
    EXPECT_EQ(r.out.find("not supported"), std::string::npos) << command << " " << option << r.out;
  }
  RunResult readonly = RunProgram("sacctmgr", {"-r", "-i", "add", "account", "x"}, env_);
  EXPECT_EQ(readonly.exit_code, 1);
  EXPECT_EQ(readonly.out, "sacctmgr: error: read-only (-r): only list and show are allowed\n");
}

TEST_F(ClusterOptionTest, StateNamesAreCheckedBeforeAnythingIsContacted) {
  RunResult r = RunProgram("squeue", {"-t", "R,bogus"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.rfind("squeue: error: Invalid job state specified: bogus\n"
                        "squeue: error: Valid job states include: PENDING,RUNNING,",
                        0),
            0u)
      << r.out;
  // Slurm's names for states Rota never reaches are taken.
  r = RunProgram("squeue", {"-t", "CONFIGURING,se,all,PD"}, env_);
  EXPECT_EQ(r.out.find("Invalid job state"), std::string::npos) << r.out;

  r = RunProgram("sacct", {"-s", "CD,bogus"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "sacct: fatal: unrecognized job state value bogus\n");
}

TEST_F(ClusterOptionTest, JobIdsAreCheckedBeforeAnythingIsContacted) {
  RunResult r = RunProgram("scancel", {"12", "abc"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "scancel: error: Invalid job id abc\n");
  for (const char* id : {"12", "12_3", "12_[1-3]", "12.0", "12+1"}) {
    r = RunProgram("scancel", {id}, env_);
    EXPECT_EQ(r.out.find("Invalid job id"), std::string::npos) << id << "\n" << r.out;
  }
  r = RunProgram("squeue", {"-j", "12,x1"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "squeue: error: Invalid job id: x1\n");
  r = RunProgram("sacct", {"-j", "12,x1"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "sacct: fatal: Bad job/step specified: x1\n");
}

TEST_F(ClusterOptionTest, UnknownFormatFieldsAreToldBeforeAnythingIsContacted) {
  RunResult r = RunProgram("squeue", {"-O", "JobId,NoSuchField"}, env_);
  EXPECT_EQ(r.out.rfind("squeue: error: Invalid job format specification: NoSuchField\n", 0), 0u)
      << r.out;
  r = RunProgram("sinfo", {"-O", "NodeList,NoSuchField"}, env_);
  EXPECT_EQ(r.out.rfind("sinfo: error: Invalid node format specification: NoSuchField\n", 0), 0u)
      << r.out;
  r = RunProgram("sacct", {"-o", "JobID,NoSuchField"}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "sacct: error: Invalid field requested: \"NoSuchField\"\n");
}

TEST(ScontrolHostnamesTest, WithoutAListReadsTheJobNodeListThenTheNodeList) {
  // No slurm.conf needed: prologs and batch scripts call it on any host.
  RunResult r = RunProgram("scontrol", {"show", "hostnames"},
                           {"SLURM_CONF=/nonexistent/slurm.conf", "SLURM_NODELIST=m[3-4]"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "m3\nm4\n");
  r = RunProgram("scontrol", {"show", "hostnames"},
                 {"SLURM_JOB_NODELIST=n[1-2]", "SLURM_NODELIST=m[3-4]"});
  EXPECT_EQ(r.out, "n1\nn2\n");
}

}  // namespace
}  // namespace rota
