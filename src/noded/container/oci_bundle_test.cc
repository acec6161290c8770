#include "noded/container/oci_bundle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(OciConfTest, RunTimeRunIsReadAndTheKeysNotActedOnAreWarnedAbout) {
  testing::TempDir dir;
  const std::string path = dir.Write("oci.conf",
                                     "# a site's oci.conf\n"
                                     "RunTimeRun=\"crun run --bundle %b %n.%u.%j.%s.%t\"\n"
                                     "RunTimeEnvExclude=^(SLURM_CONF|SLURM_CONF_SERVER)$\n"
                                     "RunTimeQuery=\"crun state %n\"\n"
                                     "Flavour=mint\n");
  conf::Diagnostics diags;
  Result<OciConf> oci = LoadOciConf(path, diags);
  ASSERT_TRUE(oci.ok()) << oci.status().message();
  EXPECT_EQ(oci->run, "crun run --bundle %b %n.%u.%j.%s.%t");
  EXPECT_EQ(oci->env_exclude, "^(SLURM_CONF|SLURM_CONF_SERVER)$");
  EXPECT_FALSE(diags.has_errors());
  EXPECT_THAT(diags.ToString(), HasSubstr("line 4: RunTimeQuery is accepted, has no effect"));
  EXPECT_THAT(diags.ToString(), HasSubstr("line 5: unknown key Flavour"));

  conf::Diagnostics bad;
  ASSERT_TRUE(LoadOciConf(dir.Write("bad.conf", "RunTimeEnvExclude=(\n"), bad).ok());
  EXPECT_THAT(bad.ToString(), HasSubstr("bad.conf line 1: RunTimeEnvExclude=( is not a regular"));
  conf::Diagnostics none;
  EXPECT_EQ(LoadOciConf(dir.path() / "missing.conf", none).status().code(), StatusCode::kNotFound);
}

TEST(OciConfTest, PatternsStandForTheTask) {
  OciPatternValues v{.bundle = "/b",
                     .rootfs = "/b/rootfs",
                     .node = "gpu01",
                     .user = "ada",
                     .uid = 1000,
                     .job_id = 7,
                     .step_id = 2,
                     .task_id = 3,
                     .spool = "/var/spool"};
  EXPECT_EQ(ExpandOciPattern("run %b %r %n.%u.%U.%j.%s.%t %m 100%% %q", v),
            "run /b /b/rootfs gpu01.ada.1000.7.2.3 /var/spool 100% %q");
}

class OciBundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bundle_ = (dir_.path() / "bundle").string();
    dir_.Write("bundle/config.json",
               R"({"ociVersion":"1.0.2","root":{"path":"rootfs","readonly":true},
                   "process":{"args":["sh"],"env":["A=1"],"cwd":"/srv"},
                   "mounts":[{"destination":"/proc","type":"proc","source":"proc"}]})");
  }
  OciBundleTask Task() {
    OciBundleTask task;
    task.bundle = bundle_;
    task.task_dir = (dir_.path() / "task").string();
    task.argv = {"python", "train.py"};
    task.env = {"SLURM_PROCID=0", "SLURM_CONF=/etc/slurm/slurm.conf", "PATH=/bin"};
    task.pattern.job_id = 7;
    return task;
  }
  testing::TempDir dir_;
  std::string bundle_;
};

TEST_F(OciBundleTest, TheTasksCopyRunsItsCommandWithItsEnvironment) {
  OciConf oci{.run = "crun run --bundle %b job%j", .env_exclude = "SLURM_CONF"};
  Result<ContainerCommand> command = OciBundleCommand(oci, Task());
  ASSERT_TRUE(command.ok()) << command.status().message();
  const std::string task_dir = (dir_.path() / "task").string();
  EXPECT_THAT(command->argv,
              ElementsAre("/bin/sh", "-c", "crun run --bundle " + task_dir + " job7"));
  EXPECT_EQ(command->config, task_dir + "/config.json");
  nlohmann::json config = nlohmann::json::parse(std::ifstream(task_dir + "/config.json"));
  EXPECT_EQ(config["process"]["args"], nlohmann::json({"python", "train.py"}));
  EXPECT_EQ(config["process"]["env"], nlohmann::json({"SLURM_PROCID=0", "PATH=/bin"}));
  EXPECT_EQ(config["process"]["cwd"], "/srv");
  EXPECT_EQ(config["root"]["path"], bundle_ + "/rootfs");
  EXPECT_EQ(config["root"]["readonly"], true);
  EXPECT_EQ(config["mounts"][0]["destination"], "/proc");  // The bundle's own, kept
}

TEST_F(OciBundleTest, ABundleTheUserCannotReadOrThatIsNoConfigIsRefused) {
  OciConf oci{.run = "crun run --bundle %b x"};
  OciBundleTask task = Task();
  task.uid = 4242;
  task.gid = 4242;
  chmod((bundle_ + "/config.json").c_str(), 0600);  // root's only
  Result<ContainerCommand> refused = OciBundleCommand(oci, task);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("is not readable by the job's user"));
  dir_.Write("bundle/config.json", "[1, 2]");
  Result<ContainerCommand> junk = OciBundleCommand(oci, Task());
  ASSERT_FALSE(junk.ok());
  EXPECT_THAT(junk.status().message(), HasSubstr("is not an OCI runtime configuration"));
  task = Task();
  task.bundle = dir_.path() / "nowhere";
  EXPECT_EQ(OciBundleCommand(oci, task).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace rota::noded
