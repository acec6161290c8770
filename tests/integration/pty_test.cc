// srun --pty end to end, driven through a real pseudo-terminal as a user at a
// terminal would: `salloc` then `srun --pty bash` on the two-node test
// cluster (real rotactld and rotad). The test holds the outer terminal's
// master side, types into it and reads what the session shows.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::DaemonProcess;
using testing::NodedCluster;
using testing::WaitUntil;

// A command running on a pseudo-terminal of its own (its session's
// controlling terminal), as if started from a terminal window.
class TerminalSession {
 public:
  TerminalSession(const std::string& command, unsigned short rows, unsigned short cols) {
    winsize size{};
    size.ws_row = rows;
    size.ws_col = cols;
    pid_ = forkpty(&master_, nullptr, nullptr, &size);
    if (pid_ == 0) {
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    if (pid_ > 0) {
      fcntl(master_, F_SETFL, fcntl(master_, F_GETFL) | O_NONBLOCK);
      // A second handle on the terminal side, to watch its mode.
      terminal_ = open(ptsname(master_), O_RDWR | O_NOCTTY | O_CLOEXEC);
    }
  }
  ~TerminalSession() {
    if (pid_ > 0 && !exit_status_) {
      kill(pid_, SIGKILL);
      int status;
      waitpid(pid_, &status, 0);
    }
    if (master_ >= 0) close(master_);
    if (terminal_ >= 0) close(terminal_);
  }
  bool started() const { return pid_ > 0 && terminal_ >= 0; }
  std::string name() const { return ptsname(master_); }

  void Type(const std::string& keys) { (void)!write(master_, keys.data(), keys.size()); }
  void Resize(unsigned short rows, unsigned short cols) {
    winsize size{};
    size.ws_row = rows;
    size.ws_col = cols;
    ioctl(master_, TIOCSWINSZ, &size);  // The foreground process group gets SIGWINCH.
  }
  termios Mode() const {
    termios mode{};
    tcgetattr(terminal_, &mode);
    return mode;
  }
  // Reads what the terminal shows until a whole line starting with `start`
  // appears after what earlier calls found (or `timeout`). Returns that line
  // without its end ("" when none).
  std::string WaitForLine(const std::string& start,
                          std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      size_t at = screen_.find(start, seen_);
      size_t end = at == std::string::npos ? at : screen_.find_first_of("\r\n", at);
      if (end != std::string::npos) {
        seen_ = end;
        return screen_.substr(at, end - at);
      }
      if (std::chrono::steady_clock::now() > deadline) return "";
      Pump(std::chrono::milliseconds(50));
    }
  }
  // The command's exit status once it ends (nullopt after `timeout`).
  std::optional<int> Wait(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exit_status_ && std::chrono::steady_clock::now() < deadline) {
      Pump(std::chrono::milliseconds(50));
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) exit_status_ = status;
    }
    Pump(std::chrono::milliseconds(50));
    return exit_status_;
  }
  const std::string& screen() const { return screen_; }

 private:
  void Pump(std::chrono::milliseconds wait) {
    pollfd p{master_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return;
    char buf[4096];
    ssize_t n;
    while ((n = read(master_, buf, sizeof buf)) > 0) screen_.append(buf, n);
  }

  pid_t pid_ = -1;
  int master_ = -1;
  int terminal_ = -1;
  std::string screen_;  // Everything the terminal showed
  size_t seen_ = 0;     // Where the next WaitFor starts looking
  std::optional<int> exit_status_;
};

class PtyTest : public testing::TwoNodeClusterTest {
 protected:
  // `command` as a user's terminal would run it, against this cluster.
  std::string InCluster(const std::string& command) const {
    return "cd " + cluster_->work_dir() + " && export SLURM_CONF=" + cluster_->conf() +
           " PATH=" + testing::BinDir() + ":$PATH TERM=dumb && unset SLURM_JOB_ID && " + command;
  }
};

// The daily interactive workflow: salloc, then srun --pty bash inside it.
TEST_F(PtyTest, SallocThenSrunPtyBashIsAnInteractiveShell) {
  TerminalSession session(InCluster("salloc -N2 srun --pty bash --norc --noprofile"), 37, 111);
  ASSERT_TRUE(session.started());
  const termios cooked = session.Mode();
  ASSERT_NE(cooked.c_lflag & ICANON, 0u);
  ASSERT_NE(cooked.c_lflag & ECHO, 0u);
  ASSERT_FALSE(session.WaitForLine("salloc: Granted job allocation ").empty()) << session.screen();

  // What is typed reaches the shell; its terminal is a pseudo-terminal of its
  // own, not the one the test holds.
  session.Type("echo T$((1+1))T $(tty) $SLURM_PROCID $SLURM_STEP_ID\r");
  std::string tty_line = session.WaitForLine("T2T ");
  ASSERT_GT(tty_line.size(), 4u) << session.screen();
  EXPECT_EQ(tty_line.rfind("T2T /dev/pts/", 0), 0u) << tty_line;
  EXPECT_EQ(tty_line.substr(tty_line.size() - 4), " 0 0") << tty_line;
  EXPECT_NE(tty_line, "T2T " + session.name() + " 0 0");

  // While srun runs, the outer terminal is raw: keys pass through untouched.
  termios during = session.Mode();
  EXPECT_EQ(during.c_lflag & (ICANON | ECHO | ISIG), 0u);

  // The task's terminal has the outer one's size, and follows it.
  session.Type("echo S$((2+2))S $(stty size)\r");
  EXPECT_EQ(session.WaitForLine("S4S "), "S4S 37 111") << session.screen();
  session.Resize(41, 97);
  // SIGWINCH reaches srun asynchronously; ask until the new size shows.
  bool resized = false;
  for (int i = 0; i < 20 && !resized; ++i) {
    session.Type("echo R$((3+" + std::to_string(i) + "))R $(stty size)\r");
    const std::string mark = "R" + std::to_string(3 + i) + "R ";
    resized = session.WaitForLine(mark, std::chrono::seconds(1)) == mark + "41 97";
  }
  EXPECT_TRUE(resized) << session.screen();
  // /dev/tty is the task's terminal (its controlling terminal).
  session.Type("echo D$((7+1))D $(stty size </dev/tty)\r");
  EXPECT_EQ(session.WaitForLine("D8D "), "D8D 41 97") << session.screen();

  // ^C is the task terminal's: it interrupts the foreground command, the
  // shell and srun go on.
  session.Type("echo B$((4+5))B; sleep 60\r");
  ASSERT_FALSE(session.WaitForLine("B9B").empty()) << session.screen();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  session.Type("\x03");
  session.Type("echo C$((5+1))C\r");
  EXPECT_FALSE(session.WaitForLine("C6C", std::chrono::seconds(15)).empty()) << session.screen();

  // The shell's exit code is srun's, then salloc's.
  session.Type("exit 3\r");
  std::optional<int> status = session.Wait();
  ASSERT_TRUE(status.has_value()) << session.screen();
  ASSERT_TRUE(WIFEXITED(*status)) << *status;
  EXPECT_EQ(WEXITSTATUS(*status), 3) << session.screen();
  EXPECT_NE(session.screen().find("Relinquishing job allocation"), std::string::npos)
      << session.screen();

  // The outer terminal is as it was.
  termios after = session.Mode();
  EXPECT_EQ(after.c_lflag, cooked.c_lflag);
  EXPECT_EQ(after.c_iflag, cooked.c_iflag);
  EXPECT_EQ(after.c_oflag, cooked.c_oflag);
}

// Without a terminal (a pipe) --pty still gives task 0 one; the end of
// srun's input is the terminal's end-of-file. Other tasks' output is dropped,
// -o/-e/-i are refused, and outside an allocation srun gets one first.
TEST_F(PtyTest, PtyFromAPipeAndOtherTasksOutput) {
  CommandResult alloc = cluster_->Run("salloc --no-shell -N2");
  ASSERT_EQ(alloc.exit_code, 0) << alloc.out;
  const std::string granted = "salloc: Granted job allocation ";
  size_t at = alloc.out.find(granted);
  ASSERT_NE(at, std::string::npos) << alloc.out;
  const std::string id =
      alloc.out.substr(at + granted.size(), alloc.out.find('\n', at) - at - granted.size());
  CommandResult r =
      cluster_->Run("sh -c \"printf 'tty; echo P\\$((4+4))P; exit 5\\n' | srun --jobid=" + id +
                    " --pty bash --norc --noprofile\"");
  EXPECT_EQ(r.exit_code, 5) << r.out;
  EXPECT_NE(r.out.find("/dev/pts/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("P8P"), std::string::npos) << r.out;

  r = cluster_->Run("srun --jobid=" + id + " -n2 --pty sh -c 'echo X$SLURM_PROCID' </dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("X0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("X1"), std::string::npos) << r.out;

  r = cluster_->Run("srun --jobid=" + id + " --pty -o out.txt true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("srun: error: --error/--input/--output are incompatible with --pty"),
            std::string::npos)
      << r.out;
  cluster_->Run("scancel " + id);

  // Outside an allocation srun gets one first, as without --pty.
  r = cluster_->Run(
      "env -u SLURM_JOB_ID sh -c \"printf 'echo Q\\$((1+2))Q; exit 4\\n' | srun -N1 --pty bash "
      "--norc --noprofile\"");
  EXPECT_EQ(r.exit_code, 4) << r.out;
  EXPECT_NE(r.out.find("Q3Q"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rota
