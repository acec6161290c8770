// Containers end to end (docs/containers.md): a real rotactld and two rotad
// (cgroups v1, fake GPUs), sbatch jobs whose scripts run srun with pyxis'
// options, crun underneath, and an image made here from busybox-static as a
// squashfs file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "testing/temp_dir.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/test_user.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::ReadFileText;
using testing::WaitUntil;

// Opening a file, told apart: ENXIO (allowed, no driver), EPERM (forbidden).
constexpr const char* kTryOpen =
    "try() { m=$( (exec 3<\"$1\") 2>&1 ); case \"$m\" in"
    " *'No such device'*) echo ENXIO;; *'not permitted'*) echo EPERM;; *) echo \"?$m\";; esac; }";

class ContainerTest : public testing::TwoNodeClusterTest {
 protected:
  // The test user's commands get their credentials from this cluster's own
  // node daemons, not from another test's cluster running at the same time.
  ContainerTest() { chmod(socket_dir_.path().c_str(), 0755); }
  std::string Settings() const override {
    return "AuthInfo=socket=" + (socket_dir_.path() / "auth.socket").string() + "\n";
  }
  void SetUp() override {
    TwoNodeClusterTest::SetUp();
    if (HasFatalFailure()) return;
    // A root file system of busybox with its applets, made into a squashfs.
    const std::string root = cluster_->dir().path() / "image-root";
    image_ = cluster_->dir().path() / "images/busybox.sqsh";
    const std::string make = "set -e; r=" + root +
                             "; mkdir -p $r/bin $r/etc $r/proc $r/sys $r/dev $r/srv " +
                             cluster_->dir().path().string() +
                             "/images; install -m 1777 -d $r/tmp;"
                             " cp /bin/busybox $r/bin/; for a in $(/bin/busybox --list); do"
                             " [ -e $r/bin/$a ] || ln -s busybox $r/bin/$a; done;"
                             " echo 'PRETTY_NAME=\"Rota test image\"' > $r/etc/os-release;"
                             " mksquashfs $r " +
                             image_ +
                             " -noappend -quiet -all-root >/dev/null;"
                             " chmod 0755 " +
                             cluster_->dir().path().string() + " " +
                             cluster_->dir().path().string() + "/images; chmod 0644 " + image_;
    ASSERT_EQ(std::system(make.c_str()), 0) << make;
  }
  std::string Image() const { return image_; }
  std::string DevDir() const { return (cluster_->dir().path() / "dev").string(); }
  static std::string LineOf(const std::string& out, const std::string& prefix) {
    for (std::string_view line : Split(out, '\n')) {
      if (line.rfind(prefix, 0) == 0) return std::string(line);
    }
    return "";
  }

  void WriteScript(const std::string& name, const std::string& text) const {
    const std::string path = cluster_->work_dir() + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), 0755);
  }
  std::string MakeBundleAndOciConf() const;
  std::filesystem::path SpoolOf(int node) const {
    return cluster_->dir().path() / "spool" / cluster_->Node(node);
  }

  testing::TempDir socket_dir_;
  std::string image_;
};

// The image's files, the mounts and workdir asked for, the job's environment,
// and the job's GPU only: the allocated one opens (ENXIO, no driver), the
// node's other one is refused by the cage (EPERM) even when mounted in.
TEST_F(ContainerTest, TasksSeeTheImageTheirMountsAndOnlyTheirGpu) {
  const std::string data = cluster_->dir().Write("data/in.txt", "from the host\n");
  // Run inside from the work directory, mounted at /work.
  WriteScript("probe.sh", std::string(kTryOpen) +
                              "\ngrep PRETTY /etc/os-release\n"
                              "echo UID=$(id -u) PWD=$(pwd) PROCID=$SLURM_PROCID JOB=$SLURM_JOB_ID"
                              " CVD=$CUDA_VISIBLE_DEVICES\n"
                              "cat /data/in.txt\n"
                              "touch /data/x 2>/dev/null || echo DATA=RO\n"
                              "echo G0=$(try /hostdev/nvidia1_0) G1=$(try /hostdev/nvidia1_1)\n"
                              "[ -e /usr/lib/os-release ] || echo NOT_HOST_ROOT\n");
  std::string id = SubmitScript("-w " + cluster_->Node(1) + " -N1 -n1 --gpus-per-node=1",
                                "srun --container-image=" + Image() +
                                    " --container-workdir=/srv --container-mounts=" +
                                    std::filesystem::path(data).parent_path().string() +
                                    ":/data:ro," + DevDir() + ":/hostdev," + cluster_->work_dir() +
                                    ":/work sh /work/probe.sh\n"
                                    "echo rc=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  const std::string out = Output(id);
  EXPECT_NE(out.find("PRETTY_NAME=\"Rota test image\"\n"), std::string::npos) << out;
  EXPECT_NE(out.find("UID=0 PWD=/srv PROCID=0 JOB=" + id + " CVD=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("from the host\n"), std::string::npos) << out;
  EXPECT_NE(out.find("DATA=RO\n"), std::string::npos) << out;
  const std::string gpus = LineOf(out, "G0=");
  EXPECT_TRUE(gpus == "G0=ENXIO G1=EPERM" || gpus == "G0=EPERM G1=ENXIO") << out;
  EXPECT_NE(out.find("NOT_HOST_ROOT\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=0\n"), std::string::npos) << out;
}

// sbatch's pyxis options: the batch script itself runs in the container, as
// the job's user, with the job's environment and GPU, and --container-save
// keeps it once the job ended; a missing image fails
// the job with the message on its standard error and leaves the node idle.
TEST_F(ContainerTest, ABatchScriptRunsInItsContainer) {
  std::string id = SubmitScript(
      "-w " + cluster_->Node(1) + " -N1 -n1 --gpus-per-node=1 --container-image=" + Image(),
      "grep PRETTY /etc/os-release\n"
      "echo JOB=$SLURM_JOB_ID CVD=$CUDA_VISIBLE_DEVICES UID=$(id -u)\n"
      "[ -e /usr/lib/os-release ] || echo NOT_HOST_ROOT\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  std::string out = Output(id);
  EXPECT_NE(out.find("PRETTY_NAME=\"Rota test image\"\n"), std::string::npos) << out;
  EXPECT_NE(out.find("JOB=" + id + " CVD=0 UID=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("NOT_HOST_ROOT\n"), std::string::npos) << out;

  // --container-save on sbatch: the script's container, once it ended, in a
  // file named from the job's working directory; a later step starts from it.
  id = SubmitScript("-N1 -n1 --container-image=" + Image() + " --container-save=batch.sqsh",
                    "echo written > /etc/batch-note\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  const std::string saved = cluster_->work_dir() + "/batch.sqsh";
  ASSERT_TRUE(std::filesystem::exists(saved)) << Output(id) << cluster_->NodeLogs();
  id = SubmitScript("-N1 -n1", "srun --container-image=" + saved + " cat /etc/batch-note\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  EXPECT_EQ(Output(id), "written\n");

  id = SubmitScript("-N1 -n1 --container-image=/nonexistent/batch.sqsh", "echo RAN\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "FAILED")) << Output(id) << cluster_->NodeLogs();
  out = Output(id);
  EXPECT_NE(out.find("rotad: error: image '/nonexistent/batch.sqsh' does not exist"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("RAN"), std::string::npos) << out;
  EXPECT_EQ(Trim(cluster_->Run("sinfo -h -o %t").out), "idle") << cluster_->Run("sinfo").out;
}

// Slurm's --container: the user's own OCI bundle, run by the runtime
// oci.conf names, with the step's command and the task's environment.
TEST_F(ContainerTest, SrunRunsAnOciBundleThroughOciConf) {
  const std::string bundle = MakeBundleAndOciConf();
  std::string id = SubmitScript("-N1 -n1",
                                "export HIDDEN_ONE=1 SHOWN_ONE=2\n"
                                "srun --container=" +
                                    bundle +
                                    " sh -c 'grep PRETTY /etc/os-release; echo JOB=$SLURM_JOB_ID "
                                    "H=$HIDDEN_ONE S=$SHOWN_ONE'\n"
                                    "srun --container=" +
                                    cluster_->work_dir() + "/nobundle true; echo rcB=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  const std::string out = Output(id);
  EXPECT_NE(out.find("PRETTY_NAME=\"Rota test image\"\n"), std::string::npos) << out;
  EXPECT_NE(out.find("JOB=" + id + " H= S=2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("nobundle/config.json does not exist"), std::string::npos) << out;
  EXPECT_EQ(out.find("rcB=0\n"), std::string::npos) << out;
}

// sbatch --container: the script itself runs in the bundle (mounted at its
// own path), told the bundle in SLURM_CONTAINER as Slurm does; a bundle that
// is not there fails the job with the reason on its standard error.
TEST_F(ContainerTest, SbatchRunsTheScriptInAnOciBundle) {
  const std::string bundle = MakeBundleAndOciConf();
  std::string id = SubmitScript("-N1 -n1 --container=" + bundle,
                                "grep PRETTY /etc/os-release\n"
                                "echo JOB=$SLURM_JOB_ID C=$SLURM_CONTAINER\n"
                                "[ -e /usr/lib/os-release ] || echo NOT_HOST_ROOT\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  std::string out = Output(id);
  EXPECT_NE(out.find("PRETTY_NAME=\"Rota test image\"\n"), std::string::npos) << out;
  EXPECT_NE(out.find("JOB=" + id + " C=" + bundle + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("NOT_HOST_ROOT\n"), std::string::npos) << out;

  id = SubmitScript("-N1 -n1 --container=" + cluster_->work_dir() + "/nobundle", "echo RAN\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "FAILED")) << Output(id) << cluster_->NodeLogs();
  out = Output(id);
  EXPECT_NE(out.find("rotad: error: --container: " + cluster_->work_dir() +
                     "/nobundle/config.json does not exist"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("RAN"), std::string::npos) << out;
  EXPECT_EQ(Trim(cluster_->Run("sinfo -h -o %t").out), "idle") << cluster_->Run("sinfo").out;
}

// A bundle over the test image in the work directory ("bundle"), and an
// oci.conf that runs it with crun.
std::string ContainerTest::MakeBundleAndOciConf() const {
  const std::string bundle = cluster_->work_dir() + "/bundle";
  std::filesystem::create_directories(bundle);
  const std::string root = (cluster_->dir().path() / "image-root").string();
  std::ofstream(bundle + "/config.json")
      << R"({"ociVersion":"1.0.2","root":{"path":")" << root << R"(","readonly":true},)"
      << R"("process":{"cwd":"/","user":{"uid":0,"gid":0},"args":["sh"]},)"
      << R"("mounts":[{"destination":"/proc","type":"bind","source":"/proc","options":["rbind"]},)"
      << R"({"destination":"/dev","type":"tmpfs","source":"tmpfs","options":["nosuid"]}],)"
      << R"("linux":{"namespaces":[{"type":"mount"}]}})";
  cluster_->dir().Write("oci.conf", "RunTimeRun=\"crun --cgroup-manager=disabled --root=" +
                                        (cluster_->dir().path() / "crun").string() +
                                        " run --bundle %b rota-%j.%s.%t\"\n"
                                        "RunTimeEnvExclude=HIDDEN_.*\n");
  return bundle;
}

// A named container keeps what a step wrote for the job's next step; an
// unnamed one starts from the image each time.
TEST_F(ContainerTest, ANamedContainerKeepsAFileBetweenSteps) {
  const std::string opts = " --container-image=" + Image() + " ";
  std::string id = SubmitScript(
      "-N1 -n1", "srun" + opts +
                     "--container-name=keep sh -c 'echo kept > /etc/note'\n"
                     "srun --container-name=keep cat /etc/note\n"
                     "srun" +
                     opts +
                     "sh -c 'echo gone > /etc/note2'\n"
                     "srun" +
                     opts +
                     "sh -c 'cat /etc/note2 2>/dev/null || echo FRESH'\n"
                     "srun" +
                     opts +
                     "--container-readonly sh -c 'echo x > /etc/x 2>/dev/null || echo RO'\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  const std::string out = Output(id);
  EXPECT_NE(out.find("kept\n"), std::string::npos) << out;
  EXPECT_NE(out.find("FRESH\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("gone\n"), std::string::npos) << out;
  EXPECT_NE(out.find("RO\n"), std::string::npos) << out;
  // Nothing of the job's containers is left on the node once it ended.
  EXPECT_TRUE(WaitUntil([&] {
    for (int n : {1, 2}) {
      if (std::filesystem::exists(SpoolOf(n) / "containers" / ("job_" + id))) return false;
    }
    return true;
  })) << cluster_->NodeLogs();
}

// A missing image fails the step with a message naming it; the node is not
// drained for it. --container-save writes the container as a squashfs file.
TEST_F(ContainerTest, AMissingImageFailsTheStepAndSaveWritesASquashfs) {
  const std::string saved = cluster_->work_dir() + "/saved.sqsh";
  std::string id = SubmitScript("-N1 -n1",
                                "srun --container-image=/nonexistent/image.sqsh true; echo rcM=$?\n"
                                "srun --container-image=" +
                                    Image() + " --container-save=" + saved +
                                    " sh -c 'echo inside > /etc/saved-note'; echo rcS=$?\n"
                                    "srun --container-image=" +
                                    saved + " cat /etc/saved-note\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  const std::string out = Output(id);
  EXPECT_NE(out.find("/nonexistent/image.sqsh"), std::string::npos) << out;
  EXPECT_EQ(out.find("rcM=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rcS=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("inside\n"), std::string::npos) << out;
  EXPECT_EQ(Trim(cluster_->Run("sinfo -h -o %t").out), "idle") << cluster_->Run("sinfo").out;
}

// The container's memory is the step's: a process in it that outgrows the
// step's --mem is killed by the kernel and srun says Out Of Memory; scancel
// kills every process of a container.
TEST_F(ContainerTest, TheCageHoldsTheContainersMemoryAndScancelKillsIt) {
  // busybox's shell keeps what a command substitution printed: 300 MB.
  WriteScript("grow.sh", "a=$(head -c 300000000 /dev/zero | tr '\\0' x)\necho ${#a}\n");
  std::string id =
      SubmitScript("-N1 -n1 --mem=300M", "srun --mem=60M --container-image=" + Image() +
                                             " --container-mounts=" + cluster_->work_dir() +
                                             ":/work sh /work/grow.sh; echo rcO=$?\n"
                                             "srun --container-image=" +
                                             Image() + " sh -c 'sleep 4321 & sleep 4322'\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitUntil([&] { return Output(id).find("rcO=") != std::string::npos; },
                        std::chrono::seconds(60)))
      << Output(id);
  auto sleepers = [] {
    int found = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string cmdline = ReadFileText(entry.path().string() + "/cmdline");
      if (cmdline.find("sleep\0"
                       "432",
                       0, 9) != std::string::npos)
        ++found;
    }
    return found;
  };
  ASSERT_TRUE(WaitUntil([&] { return sleepers() == 2; }, std::chrono::seconds(30)))
      << Output(id) << cluster_->NodeLogs();
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return sleepers() == 0; }, std::chrono::seconds(30)));
  const std::string out = Output(id);
  EXPECT_NE(out.find(": task 0: Out Of Memory\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rcO=137\n"), std::string::npos) << out;
}

// An ordinary user's container runs as that user (user namespace, no
// privilege), or as uid 0 inside with --container-remap-root; the image is
// imported once for the user, as the user.
TEST_F(ContainerTest, AnOrdinaryUserRunsAsThemselvesOrRemappedToRoot) {
  testing::TestUser user("rota", "c");
  ASSERT_TRUE(user.ok());
  const std::string dir = cluster_->work_dir() + "/user";
  std::filesystem::create_directories(dir);
  chmod(dir.c_str(), 0777);
  const std::string script = dir + "/job.sh";
  std::ofstream(script) << "#!/bin/sh\nexport PATH=" << testing::BinDir() << ":$PATH\n"
                        << "srun --container-image=" << Image()
                        << " sh -c 'echo ME=$(id -u) && touch /etc/mine && echo WROTE'\n"
                        << "srun --container-image=" << Image()
                        << " --container-remap-root sh -c 'echo ROOT=$(id -u)'\n";
  chmod(script.c_str(), 0755);
  testing::CommandResult r =
      cluster_->Run(user.Line(cluster_->conf(), "sbatch --parsable -N1 -n1 -o " + dir +
                                                    "/out.txt -D " + dir + " " + script));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string id(Trim(r.out));
  ASSERT_TRUE(WaitForState(id, "COMPLETED"))
      << ReadFileText(dir + "/out.txt") << cluster_->NodeLogs();
  const std::string out = ReadFileText(dir + "/out.txt");
  EXPECT_NE(out.find("ME=" + std::to_string(user.uid()) + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("WROTE\n"), std::string::npos) << out;
  EXPECT_NE(out.find("ROOT=0\n"), std::string::npos) << out;
  // The cached image is the user's.
  bool cached = false;
  for (int n : {1, 2}) {
    const auto dir = SpoolOf(n) / "containers/images" / std::to_string(user.uid());
    struct stat st {};
    if (stat(dir.c_str(), &st) != 0) continue;
    cached = true;
    EXPECT_EQ(st.st_uid, user.uid());
  }
  EXPECT_TRUE(cached) << cluster_->NodeLogs();
}

// A node with libnvidia-container: crun runs nvidia-container-cli (here a
// script that records how it was called into the container's root, where a
// real one puts the driver's libraries) before each containerised task or
// batch script with GPUs, for exactly the job's GPU and the live container;
// a task without GPUs does not run it.
class ContainerDriverHookTest : public ContainerTest {
 protected:
  ContainerDriverHookTest() {
    const std::string cli =
        fake_bin_.Write("nvidia-container-cli",
                        "#!/bin/sh\n"
                        "for a; do case $a in --pid=*) pid=${a#--pid=};; esac; root=$a; done\n"
                        "{ echo \"CLI $*\"; [ -d /proc/$pid ] && echo LIVE_PID; }"
                        " > \"$root/etc/driver-hook\"\n");
    chmod(cli.c_str(), 0755);
    chmod(fake_bin_.path().c_str(), 0755);
  }
  std::vector<std::string> NodeEnvironment(int) const override {
    return {"PATH=" + fake_bin_.path().string() + ":" + std::getenv("PATH")};
  }
  testing::TempDir fake_bin_;
};

TEST_F(ContainerDriverHookTest, ContainersWithGpusGetTheDriverThroughTheCli) {
  const std::string show = "echo GPUS=$SLURM_JOB_GPUS; cat /etc/driver-hook || echo NO_HOOK";
  // The batch script in its container, then a step in one (the image has
  // no srun: the second job's script runs on the host).
  std::string id = SubmitScript(
      "-w " + cluster_->Node(1) + " -N1 -n1 --gpus-per-node=1 --container-image=" + Image(),
      show + "\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  std::string out = Output(id);
  id = SubmitScript("-w " + cluster_->Node(1) + " -N1 -n1 --gpus-per-node=1",
                    "srun --container-image=" + Image() + " sh -c '" + show + "'\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  out += Output(id);
  // The batch script's container and the step's: each the call for its GPU.
  size_t calls = 0;
  for (std::string_view line : Split(out, '\n')) calls += line.starts_with("CLI ") ? 1 : 0;
  EXPECT_EQ(calls, 2u) << out;
  for (std::string_view line : Split(out, '\n')) {
    if (!line.starts_with("GPUS=")) continue;
    EXPECT_TRUE(line == "GPUS=0" || line == "GPUS=1") << out;
    const unsigned minor = testing::NodedCluster::Minor(1, line.back() - '0');
    const std::string expected =
        "CLI --load-kmods configure --no-cgroups --ldconfig=@/sbin/ldconfig --device=" +
        std::to_string(minor) + " --compute --utility --pid=";
    EXPECT_NE(out.find(expected), std::string::npos) << out;
  }
  EXPECT_EQ(out.find("@PID@"), std::string::npos) << out;
  EXPECT_NE(out.find("LIVE_PID\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("NO_HOOK"), std::string::npos) << out;

  // A job without GPUs: no call.
  id = SubmitScript("-N1 -n1", "srun --container-image=" + Image() + " sh -c '" + show + "'\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  out = Output(id);
  EXPECT_NE(out.find("NO_HOOK\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("CLI "), std::string::npos) << out;
}

// A TaskProlog runs on the host before the runtime; what it exports or
// unsets is in the container's environment, for an srun task and for a
// batch script in its container alike.
class ContainerTaskPrologTest : public ContainerTest {
 protected:
  ContainerTaskPrologTest() {
    prolog_ = scripts_.Write("task_prolog.sh",
                             "#!/bin/sh\necho export FROM_PROLOG=yes\necho unset DROP_ME\n");
    chmod(prolog_.c_str(), 0755);
    chmod(scripts_.path().c_str(), 0755);
  }
  std::string Settings() const override {
    return ContainerTest::Settings() + "TaskProlog=" + prolog_ + "\n";
  }
  testing::TempDir scripts_;
  std::string prolog_;
};

TEST_F(ContainerTaskPrologTest, WhatThePrologExportsIsSeenInside) {
  const std::string show = "P=$FROM_PROLOG D=${DROP_ME-unset}";
  std::string id = SubmitScript("-N1 -n1 --container-image=" + Image(),
                                "echo BATCH $(grep -c Rota /etc/os-release) " + show + "\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  EXPECT_NE(Output(id).find("BATCH 1 P=yes D=unset\n"), std::string::npos) << Output(id);

  id = SubmitScript("-N1 -n1", "export DROP_ME=1\nsrun --container-image=" + Image() +
                                   " sh -c 'echo STEP $(grep -c Rota /etc/os-release) " + show +
                                   "'\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << cluster_->NodeLogs();
  EXPECT_NE(Output(id).find("STEP 1 P=yes D=unset\n"), std::string::npos) << Output(id);
}

}  // namespace
}  // namespace rota
