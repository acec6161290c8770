#include "noded/stepd/task_terminal.h"

#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace rota::noded {

Result<TaskTerminal> OpenTaskTerminal(uint32_t rows, uint32_t cols, uid_t uid) {
  TaskTerminal t;
  t.master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (t.master < 0) return Internal(std::string("no pseudo-terminal: ") + strerror(errno));
  auto fail = [&](const char* what) -> Status {
    Status s = Internal(std::string(what) + ": " + strerror(errno));
    if (t.terminal >= 0) close(t.terminal);
    close(t.master);
    return s;
  };
  char name[128];
  if (unlockpt(t.master) != 0) return fail("unlockpt");
  if (ptsname_r(t.master, name, sizeof name) != 0) return fail("ptsname");
  t.name = name;
  t.terminal = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (t.terminal < 0) return fail(name);
  // The task (not root) owns its terminal, as a login does: programs that
  // check or reopen it (mesg, ssh, /dev/tty) work.
  gid_t tty_gid = static_cast<gid_t>(-1);
  group gr{};
  group* found = nullptr;
  std::vector<char> buf(4096);
  if (getgrnam_r("tty", &gr, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
    tty_gid = gr.gr_gid;
  }
  if (fchown(t.terminal, uid, tty_gid) != 0 && getuid() == 0) return fail("fchown");
  fchmod(t.terminal, 0620);
  fcntl(t.master, F_SETFL, fcntl(t.master, F_GETFL) | O_NONBLOCK);
  if (rows > 0 && cols > 0) ResizeTaskTerminal(t.master, rows, cols);
  return t;
}

void ResizeTaskTerminal(int master, uint32_t rows, uint32_t cols) {
  winsize size{};
  size.ws_row = static_cast<unsigned short>(rows);
  size.ws_col = static_cast<unsigned short>(cols);
  ioctl(master, TIOCSWINSZ, &size);
}

char TerminalEndOfFile(int master) {
  termios mode{};
  if (tcgetattr(master, &mode) == 0 && mode.c_cc[VEOF] != _POSIX_VDISABLE) {
    return static_cast<char>(mode.c_cc[VEOF]);
  }
  return '\x04';
}

}  // namespace rota::noded
