#include "noded/stepd/task_starter.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Script(const rota::testing::TempDir& dir, const std::string& name,
                   const std::string& body) {
  std::string path = dir.Write(name, "#!/bin/sh\n" + body);
  chmod(path.c_str(), 0755);
  return path;
}

TEST(TaskStarterTest, ThePrologSeesTheTaskPidAndItsContext) {
  rota::testing::TempDir dir;
  Result<TaskPrologRun> run =
      RunTaskProlog(Script(dir, "p.sh", "echo \"$SLURM_TASK_PID $SLURM_SCRIPT_CONTEXT $FOO\"\n"),
                    {"FOO=bar", "SLURM_TASK_PID=1"});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->exit_code, 0);
  EXPECT_EQ(run->output, std::to_string(getpid()) + " prolog_task bar\n");
}

TEST(TaskStarterTest, ExitStatusesFollowSlurm) {
  rota::testing::TempDir dir;
  EXPECT_EQ(RunTaskProlog(Script(dir, "a.sh", "exit 4\n"), {})->exit_code, 4);
  EXPECT_EQ(RunTaskProlog(Script(dir, "b.sh", "kill -9 $$\n"), {})->exit_code, 1);
  EXPECT_EQ(RunTaskProlog(dir.path().string() + "/missing", {})->exit_code, 127);
}

// Runs StartTaskAfterProlog in a child whose stdout and stderr go to files;
// returns the exit code.
int StartInChild(const rota::testing::TempDir& dir, const std::string& prolog,
                 const std::vector<std::string>& command, const std::vector<std::string>& env) {
  pid_t pid = fork();
  if (pid == 0) {
    int out = open((dir.path() / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open((dir.path() / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    _exit(StartTaskAfterProlog(prolog, command, env));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TaskStarterTest, TheTaskRunsWithWhatThePrologAsked) {
  rota::testing::TempDir dir;
  std::string prolog = Script(dir, "p.sh",
                              "echo print before the task\n"
                              "echo export GREETING=hello world\n"
                              "echo unset DROPPED\n"
                              "echo ignored line\n");
  // The command is found in the PATH the task has.
  int code = StartInChild(
      dir, prolog, {"sh", "-c", "echo \"$GREETING|${DROPPED-gone}|$KEPT|${SLURM_TASK_PID-}\""},
      {"PATH=/usr/bin:/bin", "DROPPED=1", "KEPT=yes"});
  EXPECT_EQ(code, 0);
  std::string out = ReadFile((dir.path() / "out").string());
  // SLURM_TASK_PID is the prolog's alone.
  EXPECT_EQ(out, "before the task\nhello world|gone|yes|\n");
  EXPECT_EQ(ReadFile((dir.path() / "err").string()), "");
}

TEST(TaskStarterTest, AFailingPrologFailsTheTaskWithItsStatus) {
  rota::testing::TempDir dir;
  std::string marker = (dir.path() / "ran").string();
  int code = StartInChild(dir, Script(dir, "p.sh", "echo export X=1\nexit 3\n"),
                          {"/bin/sh", "-c", "touch " + marker}, {"PATH=/usr/bin:/bin"});
  EXPECT_EQ(code, 3);
  EXPECT_NE(access(marker.c_str(), F_OK), 0);
  EXPECT_NE(ReadFile((dir.path() / "err").string()).find("failed with status 3"),
            std::string::npos);
}

TEST(TaskStarterTest, ACommandThatCannotRunSaysWhy) {
  rota::testing::TempDir dir;
  int code = StartInChild(dir, Script(dir, "p.sh", "true\n"), {"no-such-command-here"},
                          {"PATH=/usr/bin:/bin"});
  EXPECT_EQ(code, 127);
  EXPECT_NE(ReadFile((dir.path() / "err").string()).find("cannot execute no-such-command-here"),
            std::string::npos);
}

// In a container the runtime reads the environment from config.json: what
// the TaskProlog set, changed or unset is written there; the rest of the
// container's environment (the image's PATH) stays.
TEST(TaskStarterTest, ThePrologsVariablesReachTheContainersConfiguration) {
  rota::testing::TempDir dir;
  const std::string config = dir.Write(
      "bundle/config.json",
      R"({"process":{"args":["sh"],"env":["PATH=/image/bin","DROPPED=1","KEPT=yes","CHANGED=old"]},)"
      R"("root":{"path":"/r"}})");
  ASSERT_TRUE(PassVariablesIntoContainer(config, {"PATH=/host", "DROPPED=1", "CHANGED=old"},
                                         {"PATH=/host", "CHANGED=new", "ADDED=1"})
                  .ok());
  nlohmann::json written = nlohmann::json::parse(std::ifstream(config));
  EXPECT_EQ(written["process"]["env"],
            nlohmann::json({"PATH=/image/bin", "KEPT=yes", "ADDED=1", "CHANGED=new"}));
  EXPECT_EQ(written["root"]["path"], "/r");
  EXPECT_EQ(written["process"]["args"], nlohmann::json({"sh"}));
  // Nothing changed: the file is not touched; a file that is no
  // configuration is refused.
  EXPECT_TRUE(PassVariablesIntoContainer(dir.Write("junk.json", "x"), {"A=1"}, {"A=1"}).ok());
  EXPECT_FALSE(PassVariablesIntoContainer(dir.Write("junk2.json", "x"), {}, {"A=1"}).ok());
  EXPECT_EQ(
      TaskStarterCommand("/p.sh", config),
      (std::vector<std::string>{TaskStarterProgram(), "--container-config=" + config, "/p.sh"}));
  EXPECT_EQ(TaskStarterCommand("/p.sh", ""),
            (std::vector<std::string>{TaskStarterProgram(), "/p.sh"}));
}

}  // namespace
}  // namespace rota::noded
