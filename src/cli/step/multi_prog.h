#pragma once

// srun --multi-prog: the configuration file names a program (and arguments)
// per task rank. Rota's tasks all start the same command, so the file is
// turned into one: a small sh script that picks the line for the task's
// SLURM_PROCID and execs its program. Lines: "RANKS PROGRAM [ARGS...]" with
// RANKS a list of ranks and ranges ("0,2-4") or "*" (every rank no earlier
// line names); '#' starts a comment; in PROGRAM and ARGS "%t" is the task's
// rank and "%o" its offset within its line's ranks.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::cli {

// The command every task runs for `config` (the file's text, named
// `file_name` in messages). With `num_tasks` > 0 every rank below it must be
// named and none above it; 0 leaves that to the tasks ("*" lines aside, a
// task no line names fails with a message).
Result<std::vector<std::string>> MultiProgCommand(std::string_view config,
                                                  std::string_view file_name, uint32_t num_tasks);

}  // namespace rota::cli
