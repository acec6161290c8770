#pragma once

// What `ps` shows for a process that was forked, not exec'd: the step daemons
// forked by the fork server (step_forker.h) would all show the server's
// command line. The title is written over the process's own argument strings,
// so it is cut to their length.

#include <string>

namespace rota::noded {

// Replaces the command line /proc/<pid>/cmdline shows with `title`, cut to the
// space the original arguments took. `argv` as main received it.
void SetProcessTitle(int argc, char** argv, const std::string& title);

}  // namespace rota::noded
