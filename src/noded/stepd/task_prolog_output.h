#pragma once

// What a TaskProlog's standard output asks of the task it runs before
// (slurm.conf TaskProlog, Slurm's documented protocol), one request a line:
//   export NAME=value   the task's environment gains NAME (value: the rest of the line)
//   unset NAME          the task's environment loses NAME
//   print TEXT          TEXT goes to the task's standard output
// Other lines, and malformed ones, are ignored, as Slurm ignores them.

#include <string>
#include <string_view>
#include <vector>

namespace rota::noded {

// Applies `output` to `env` (NAME=value entries) and returns what the task's
// standard output gets: each print line's text with its newline.
std::string ApplyTaskPrologOutput(std::string_view output, std::vector<std::string>& env);

}  // namespace rota::noded
