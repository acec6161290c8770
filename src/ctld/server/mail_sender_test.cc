#include "ctld/server/mail_sender.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "ctld/server/controller_program.h"
#include "testing/temp_dir.h"

namespace rota::ctld {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Counts what it is handed to carry on.
class CountingSink : public EffectSink {
 public:
  void Carry(const Effects& effects) override { launches += effects.launches.size(); }
  size_t launches = 0;
};

TEST(MailSenderTest, RunsMailProgWithSubjectRecipientAndTheJobsVariables) {
  rota::testing::TempDir dir;
  const std::string log = (dir.path() / "mail.log").string();
  const std::string prog = dir.Write(
      "mailprog",
      "#!/bin/sh\nprintf '%s|%s|%s|%s\\n' \"$1\" \"$2\" \"$3\" \"$SLURM_JOB_ID\" >> " + log + "\n");
  chmod(prog.c_str(), 0755);
  auto counting = std::make_unique<CountingSink>();
  CountingSink* next = counting.get();
  {
    MailSender sender(prog, std::move(counting));
    Effects effects;
    effects.mails.push_back(
        {7, "ada", "Slurm Job_id=7 Name=x Began, Queued time 00:00:01", {"SLURM_JOB_ID=7"}});
    effects.launches.emplace_back();
    sender.Carry(effects);
    EXPECT_EQ(next->launches, 1u);  // The rest went on at once
  }                                 // Sends what is queued before it goes.
  EXPECT_EQ(ReadFile(log), "-s|Slurm Job_id=7 Name=x Began, Queued time 00:00:01|ada|7\n");
}

TEST(MailSenderTest, DefaultProgramIsSlurms) {
  EXPECT_EQ(MailProgram("/usr/local/bin/smail"), "/usr/local/bin/smail");
  const std::string fallback = MailProgram("");
  EXPECT_TRUE(fallback == "/bin/mail" || fallback == "/usr/bin/mail") << fallback;
}

TEST(ControllerProgramTest, OutcomesSayHowItEnded) {
  rota::testing::TempDir dir;
  const std::string prog = dir.Write("p", "#!/bin/sh\necho said $1 $FOO\nexit ${2:-0}\n");
  chmod(prog.c_str(), 0755);
  ProgramOutcome ok = RunControllerProgram({prog, "hi"}, {"FOO=bar"}, std::chrono::seconds(5));
  EXPECT_TRUE(ok.ok) << ok.problem;
  EXPECT_EQ(ok.output, "said hi bar\n");
  ProgramOutcome failed = RunControllerProgram({prog, "x", "3"}, {}, std::chrono::seconds(5));
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.problem, "exited with status 3");
  EXPECT_EQ(
      RunControllerProgram({(dir.path() / "none").string()}, {}, std::chrono::seconds(5)).problem,
      "could not be run");
  const std::string slow = dir.Write("slow", "#!/bin/sh\nsleep 30 &\nsleep 30\n");
  chmod(slow.c_str(), 0755);
  auto start = std::chrono::steady_clock::now();
  ProgramOutcome hung = RunControllerProgram({slow}, {}, std::chrono::seconds(1));
  EXPECT_EQ(hung.problem, "timed out after 1 s");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace rota::ctld
