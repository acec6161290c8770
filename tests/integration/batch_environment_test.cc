// The environment of a batch job as Slurm 22.05 sets it, end to end (a real
// rotactld and two rotad, cgroups v1, fake GPUs): the script sees what the job
// asked for (SLURM_GPU_BIND, SLURM_GPUS_PER_TASK, the SLURM_ARRAY_* set, ...)
// and nothing it did not ask for, and the srun inside it takes those as its
// own options, so that "#SBATCH --gpu-bind=closest" binds the tasks of a
// plain "srun" to the GPUs beside their cores.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::NodedCluster;
using testing::ReadFileText;
using testing::WaitUntil;

// What `env` printed as "ENV NAME=value" lines.
std::map<std::string, std::string> EnvLines(const std::string& out) {
  std::map<std::string, std::string> vars;
  for (std::string_view line : Split(out, '\n')) {
    if (line.rfind("ENV ", 0) != 0) continue;
    line.remove_prefix(4);
    size_t eq = line.find('=');
    if (eq != std::string_view::npos) vars[std::string(line.substr(0, eq))] = line.substr(eq + 1);
  }
  return vars;
}

class BatchEnvironmentTest : public testing::TwoNodeClusterTest {
 protected:
  // task/affinity: srun binds each task to cores of its own by default, so
  // that --gpu-bind=closest has cores to go by.
  std::string Settings() const override { return "TaskPlugin=task/affinity,task/cgroup\n"; }

  // GPU g of each node sits beside core 1 - g: the closest GPU of a task is
  // never the one the plain index order would give it.
  std::string GresConf() const override {
    std::string gres;
    for (int n = 1; n <= NodedCluster::kNodes; ++n) {
      for (int g = 0; g < NodedCluster::kGpusPerNode; ++g) {
        gres += "NodeName=" + cluster_->Node(n) +
                " Name=gpu Type=a100 File=" + cluster_->Gpu(n, g) +
                " Cores=" + std::to_string(1 - g) + "\n";
      }
    }
    return gres;
  }

  std::string WriteScript(const std::string& name, const std::string& text) {
    std::string path = cluster_->work_dir() + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), 0755);
    return path;
  }
  // Submits a batch script: its #SBATCH lines, then `body`. Returns the job id.
  std::string Submit(const std::string& directives, const std::string& body) {
    std::string path =
        WriteScript("job" + std::to_string(++scripts_) + ".sh",
                    "#!/bin/sh\n" + directives + "export PATH=" + testing::BinDir() +
                        ":$PATH\nexport SLURM_CONF=" + cluster_->conf() + "\n" + body);
    CommandResult r =
        cluster_->Run("sbatch --parsable --chdir=" + cluster_->work_dir() + " " + path);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  }

  int scripts_ = 0;
};

// Every variable of the brief's list that the job was not given must be unset.
void ExpectUnset(const std::map<std::string, std::string>& env,
                 std::initializer_list<const char*> names, const std::string& out) {
  for (const char* name : names) EXPECT_EQ(env.count(name), 0u) << name << " in:\n" << out;
}

TEST_F(BatchEnvironmentTest, GpuBindClosestReachesTheStepsOfThePlainSrunInside) {
  // Each task: its CPUs, the GPU its step gave it and which GPU of its node
  // it may open (ENXIO: allowed, no driver; EPERM: the cage forbids it).
  WriteScript("task.sh",
              "#!/bin/sh\n"
              "try() { m=$( (exec 3<\"$1\") 2>&1 ); case \"$m\" in\n"
              "  *'No such device'*) echo ENXIO;; *'not permitted'*) echo EPERM;; *) echo \"?$m\";;"
              " esac; }\n"
              "n=${SLURMD_NODENAME##*n}\n"
              "echo TASK$SLURM_PROCID CPUS=$(grep Cpus_allowed_list /proc/self/status | cut -f2)"
              " STEP_GPUS=$SLURM_STEP_GPUS CVD=$CUDA_VISIBLE_DEVICES"
              " G0=$(try " +
                  (cluster_->dir().path() / "dev").string() + "/nvidia${n}_0) G1=$(try " +
                  (cluster_->dir().path() / "dev").string() + "/nvidia${n}_1) END\n");
  std::string id = Submit(
      "#SBATCH -N1 -n2 --gpus-per-task=1\n"
      "#SBATCH --gpu-bind=closest\n"
      "#SBATCH --gpu-freq=high --mem-per-cpu=100 --account=physics --qos=normal\n",
      "env | sed 's/^/ENV /'\n"
      "srun " +
          cluster_->work_dir() + "/task.sh\necho rc=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitUntil(
      [&] { return Trim(cluster_->Run("squeue -h -t all -o %T -j " + id).out) == "COMPLETED"; },
      std::chrono::seconds(40)))
      << Output(id);
  const std::string out = Output(id);
  EXPECT_NE(out.find("rc=0\n"), std::string::npos) << out;

  const std::map<std::string, std::string> env = EnvLines(out);
  auto value = [&](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? std::string("<unset>") : it->second;
  };
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(value("SLURM_GPU_BIND"), "closest") << out;
  EXPECT_EQ(value("SLURM_GPUS_PER_TASK"), "1") << out;
  EXPECT_EQ(value("SLURM_GPU_FREQ"), "high") << out;
  EXPECT_EQ(value("SLURM_MEM_PER_CPU"), "100") << out;
  EXPECT_EQ(value("SLURM_NTASKS"), "2") << out;
  EXPECT_EQ(value("SLURM_NPROCS"), "2") << out;
  EXPECT_EQ(value("SLURM_TASKS_PER_NODE"), "2") << out;
  EXPECT_EQ(value("SLURM_JOB_NUM_NODES"), "1") << out;
  EXPECT_EQ(value("SLURM_CLUSTER_NAME"), "ndtest") << out;
  EXPECT_EQ(value("SLURM_JOB_ACCOUNT"), "physics") << out;
  EXPECT_EQ(value("SLURM_JOB_QOS"), "normal") << out;
  EXPECT_EQ(value("SLURM_JOB_PARTITION"), "batch") << out;
  EXPECT_EQ(value("SLURM_SUBMIT_DIR"), cluster_->work_dir()) << out;
  EXPECT_EQ(value("SLURM_SUBMIT_HOST"), host) << out;
  EXPECT_EQ(value("SLURM_GPUS_ON_NODE"), "2") << out;
  EXPECT_EQ(value("CUDA_VISIBLE_DEVICES"), "0,1") << out;
  ExpectUnset(
      env,
      {"SLURM_GPUS", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_SOCKET", "SLURM_CPUS_PER_GPU",
       "SLURM_MEM_PER_GPU", "SLURM_NTASKS_PER_GPU", "SLURM_CPUS_PER_TASK", "SLURM_MEM_PER_NODE",
       "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
       "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"},
      out);

  // Each task: bound to one core of its own, holding the GPU beside it and
  // only that one; CUDA numbers it 0.
  std::set<std::string> cores;
  for (int task = 0; task < 2; ++task) {
    std::string line;
    for (std::string_view l : Split(out, '\n')) {
      if (l.rfind("TASK" + std::to_string(task) + " ", 0) == 0) line = l;
    }
    ASSERT_FALSE(line.empty()) << "task " << task << " in:\n" << out;
    const std::string core = line.find("CPUS=0 ") != std::string::npos   ? "0"
                             : line.find("CPUS=1 ") != std::string::npos ? "1"
                                                                         : "";
    ASSERT_FALSE(core.empty()) << "bound to one core: " << line;
    cores.insert(core);
    const std::string gpu = core == "0" ? "1" : "0";  // gres.conf: GPU g beside core 1 - g.
    EXPECT_NE(line.find(" STEP_GPUS=" + gpu + " CVD=0 "), std::string::npos) << line;
    EXPECT_NE(line.find(gpu == "0" ? "G0=ENXIO G1=EPERM END" : "G0=EPERM G1=ENXIO END"),
              std::string::npos)
        << line;
  }
  EXPECT_EQ(cores.size(), 2u) << out;
}

// An array task sees the whole array (SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP),
// the options as typed ("a100:1"), and its srun asks the job's GPUs per node.
TEST_F(BatchEnvironmentTest, ArrayTasksSeeTheWholeArrayAndTheirRequest) {
  std::string id = Submit("#SBATCH --array=1-5:2 -N1 -n1 --gpus-per-node=a100:1 --mem=150M\n",
                          "env | sed 's/^/ENV /'\n"
                          "srun sh -c 'echo STEP $SLURM_STEP_GPUS $CUDA_VISIBLE_DEVICES'\n"
                          "echo DONE\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const char* task : {"1", "3", "5"}) {
          if (Output(id + "_" + task).find("DONE\n") == std::string::npos) return false;
        }
        return true;
      },
      std::chrono::seconds(40)))
      << Output(id + "_1") << Output(id + "_3") << Output(id + "_5");
  for (const char* task : {"1", "3", "5"}) {
    const std::string out = Output(id + "_" + task);
    const std::map<std::string, std::string> env = EnvLines(out);
    auto value = [&](const char* name) {
      auto it = env.find(name);
      return it == env.end() ? std::string("<unset>") : it->second;
    };
    EXPECT_EQ(value("SLURM_ARRAY_JOB_ID"), id) << out;
    EXPECT_EQ(value("SLURM_ARRAY_TASK_ID"), task) << out;
    EXPECT_EQ(value("SLURM_ARRAY_TASK_COUNT"), "3") << out;
    EXPECT_EQ(value("SLURM_ARRAY_TASK_MIN"), "1") << out;
    EXPECT_EQ(value("SLURM_ARRAY_TASK_MAX"), "5") << out;
    EXPECT_EQ(value("SLURM_ARRAY_TASK_STEP"), "2") << out;
    EXPECT_EQ(value("SLURM_GPUS_PER_NODE"), "a100:1") << out;
    EXPECT_EQ(value("SLURM_MEM_PER_NODE"), "150") << out;
    EXPECT_EQ(value("SLURM_NTASKS"), "1") << out;
    EXPECT_EQ(value("SLURM_TASKS_PER_NODE"), "1") << out;
    ExpectUnset(env, {"SLURM_GPUS_PER_TASK", "SLURM_GPU_BIND", "SLURM_GPUS", "SLURM_MEM_PER_CPU"},
                out);
    // The step holds the job's one GPU here; confined to it, CUDA numbers it 0.
    EXPECT_EQ(value("SLURM_JOB_GPUS").size(), 1u) << out;
    EXPECT_NE(out.find("STEP " + value("SLURM_JOB_GPUS") + " 0\n"), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace rota
