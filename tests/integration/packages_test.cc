// The Debian packages (scripts/make-packages.sh) made from this build tree:
// installed with dpkg into a scratch root, their layout, control fields and
// systemd units checked, and the namespace cluster (netns_cluster_fixture.h)
// run with every daemon and command started from the installed paths.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "common/strings.h"
#include "tests/integration/netns_cluster_fixture.h"

namespace rota::testing {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kPackages = {"rota-controller", "rota-node", "rota-accounting",
                                            "rota-rest", "rota-client"};

class InstalledPackagesTest : public NetnsClusterTest {
 protected:
  void SetUp() override {
    const std::string packages = packages_dir_.path().string();
    CommandResult made =
        RunShell(std::string(ROTA_SOURCE_DIR) + "/scripts/make-packages.sh --fast --build-dir " +
                 ROTA_BINARY_DIR + " --out " + packages + " 2>&1");
    ASSERT_EQ(made.exit_code, 0) << made.out;
    for (const std::string& package : kPackages) {
      const std::string deb = Deb(package);
      ASSERT_FALSE(deb.empty()) << package << " not made: " << made.out;
    }
    // A scratch root with an empty dpkg database; the maintainer scripts run
    // outside it (chrootless) and make their directories under it.
    const std::string root = Root();
    fs::create_directories(root + "/var/lib/dpkg/info");
    fs::create_directories(root + "/var/lib/dpkg/updates");
    RunShell("touch " + root + "/var/lib/dpkg/status " + root + "/var/lib/dpkg/available");
    CommandResult installed = RunShell(
        "dpkg --root=" + root + " --force-depends --force-script-chrootless --log=/dev/null -i " +
        packages + "/*.deb 2>&1");
    ASSERT_EQ(installed.exit_code, 0) << installed.out;
    // What the commands and the cluster run: the installed programs.
    const std::string links = packages + "/bin";
    fs::create_directories(links);
    for (const char* dir : {"/usr/sbin", "/usr/bin"}) {
      for (const auto& entry : fs::directory_iterator(root + dir)) {
        fs::create_symlink(entry.path(), links + "/" + entry.path().filename().string());
      }
    }
    setenv("ROTA_BIN_DIR", links.c_str(), 1);
    NetnsClusterTest::SetUp();
  }
  void TearDown() override {
    NetnsClusterTest::TearDown();
    unsetenv("ROTA_BIN_DIR");
  }

  std::string Root() const { return packages_dir_.path().string() + "/root"; }
  std::string Deb(const std::string& package) const {
    for (const auto& entry : fs::directory_iterator(packages_dir_.path())) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with(package + "_") && name.ends_with(".deb")) return entry.path().string();
    }
    return "";
  }
  std::string Field(const std::string& package, const std::string& field) const {
    return std::string(Trim(RunShell("dpkg-deb -f " + Deb(package) + " " + field).out));
  }

  TempDir packages_dir_;
};

TEST_F(InstalledPackagesTest, InstallRunAJobAndVerifyTheUnits) {
  const std::string root = Root();
  // Each package holds its programs, units and docs, and is installed.
  const std::vector<std::pair<std::string, std::vector<std::string>>> layout = {
      {"rota-controller", {"/usr/sbin/rotactld", "/usr/lib/systemd/system/rotactld.service"}},
      {"rota-node",
       {"/usr/sbin/rotad", "/usr/sbin/rota-stepd", "/usr/sbin/rota-task", "/usr/sbin/rota-pmix",
        "/usr/sbin/rota-image", "/usr/sbin/rota-container-hook",
        "/usr/lib/systemd/system/rotad.service"}},
      {"rota-accounting", {"/usr/sbin/rotadbd", "/usr/lib/systemd/system/rotadbd.service"}},
      {"rota-rest", {"/usr/sbin/rotarestd", "/usr/lib/systemd/system/rotarestd.service"}},
      {"rota-client",
       {"/usr/bin/sbatch", "/usr/bin/srun", "/usr/bin/squeue", "/usr/bin/scontrol",
        "/usr/bin/sacct", "/usr/bin/rota", "/usr/sbin/rota-authd",
        "/usr/lib/systemd/system/rota-authd.service", "/usr/share/doc/rota/running.md"}},
  };
  for (const auto& [package, files] : layout) {
    const std::string listed = RunShell("dpkg-deb -c " + Deb(package)).out;
    for (const std::string& file : files) {
      EXPECT_NE(listed.find("." + file + "\n"), std::string::npos) << package << ": " << file;
      EXPECT_TRUE(fs::exists(root + file)) << file;
    }
    EXPECT_EQ(
        RunShell("dpkg-query --admindir=" + root + "/var/lib/dpkg -W -f='${Status}' " + package)
            .out,
        "install ok installed")
        << package;
    EXPECT_NE(Field(package, "Depends").find("libc6"), std::string::npos) << package;
  }
  EXPECT_EQ(Field("rota-client", "Conflicts"), "slurm-client");
  // The daemons are not in the commands' package, nor the commands in theirs.
  EXPECT_EQ(RunShell("dpkg-deb -c " + Deb("rota-client")).out.find("rotactld"), std::string::npos);
  // The postinst made Slurm's default directories under the root, not on the host.
  struct stat st {};
  ASSERT_EQ(stat((root + "/var/spool/slurmctld").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_TRUE(fs::is_directory(root + "/var/spool/slurmd"));

  // The units name the installed programs and pass systemd's own check,
  // warnings included, in the root (the host's own units and kill copied
  // in: what every system has and the scratch root lacks).
  const std::string units = root + "/usr/lib/systemd/system";
  ASSERT_EQ(RunShell("cp -an /usr/lib/systemd/system/. " + units + "/ && ln -sfn usr/bin " + root +
                     "/bin && cp /usr/bin/kill " + root + "/usr/bin/kill")
                .exit_code,
            0);
  for (const char* unit : {"rotactld", "rotad", "rotadbd", "rotarestd", "rota-authd"}) {
    const std::string text = ReadFileText(units + "/" + unit + ".service");
    EXPECT_NE(text.find("ExecStart=/usr/sbin/" + std::string(unit)), std::string::npos) << text;
    EXPECT_NE(text.find("Type=notify"), std::string::npos) << unit;
    CommandResult verified = RunShell("systemd-analyze verify --root=" + root + " " + units + "/" +
                                      unit + ".service 2>&1");
    EXPECT_EQ(verified.exit_code, 0) << unit << ": " << verified.out;
    EXPECT_EQ(verified.out, "") << unit;
  }
  EXPECT_NE(ReadFileText(units + "/rotad.service").find("Delegate=yes"), std::string::npos);
  EXPECT_NE(ReadFileText(units + "/rotad.service").find("KillMode=process"), std::string::npos);

  // The cluster runs from the installed programs: a step over the four
  // hosts, started from the login host.
  EXPECT_NE(RunShell("readlink " + BinDir() + "/rotactld").out.find(root + "/usr/sbin/rotactld"),
            std::string::npos);
  CommandResult step = Login("srun -N4 -n4 hostname 2>/dev/null | sort | tr '\\n' ' '");
  EXPECT_EQ(step.exit_code, 0) << step.out << Logs();
  EXPECT_EQ(Trim(step.out), "node1 node2 node3 node4") << Logs();
  const std::string id = Submit("-N1", "echo installed\n");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << Logs();
  EXPECT_EQ(Output(id), "installed\n");
}

}  // namespace
}  // namespace rota::testing
