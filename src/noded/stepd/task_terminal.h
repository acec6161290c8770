#pragma once

// The pseudo-terminal of a task started with srun --pty: the task gets the
// terminal side (its stdin, stdout, stderr and controlling terminal), rotad
// keeps the other side to relay bytes to and from srun and to pass on srun's
// window size.

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "common/status.h"

namespace rota::noded {

struct TaskTerminal {
  int master = -1;    // rotad's side: non-blocking, close-on-exec. The caller closes it.
  int terminal = -1;  // The task's side (/dev/pts/N), close-on-exec; closed once the task has it.
  std::string name;   // "/dev/pts/N"
};

// Opens a pseudo-terminal of `rows` x `cols` characters (0: left unset) whose
// terminal side belongs to `uid` (group tty where it exists, mode 0620, as a
// login's). Errors: no pseudo-terminal could be had.
Result<TaskTerminal> OpenTaskTerminal(uint32_t rows, uint32_t cols, uid_t uid);

// Sets the terminal's size; the kernel tells its foreground processes (SIGWINCH).
void ResizeTaskTerminal(int master, uint32_t rows, uint32_t cols);

// The terminal's end-of-file character (^D unless changed): what a reader of
// the terminal sees as the end of its input.
char TerminalEndOfFile(int master);

}  // namespace rota::noded
