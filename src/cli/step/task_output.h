#pragma once

// srun's view of its tasks' output: data arrives in pieces per task and
// stream; with --label every line is prefixed with its task id ("3: "), so
// pieces are held until their line is complete. Pure: bytes in, bytes out.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace rota::cli {

class TaskOutput {
 public:
  // `label`: prefix lines with the task id, right-aligned to the width of the
  // highest id (`num_tasks` - 1), as srun -l does.
  TaskOutput(bool label, uint32_t num_tasks);

  // What to write now for `data` from `task` on `stream` (1 stdout, 2 stderr).
  std::string Add(uint32_t task, int stream, std::string_view data);
  // What is left of `task`'s streams (an unfinished last line), once it ended.
  std::string Flush(uint32_t task, int stream);

 private:
  std::string Prefix(uint32_t task) const;

  const bool label_;
  const int width_;
  std::map<std::pair<uint32_t, int>, std::string> partial_;  // Unfinished lines
};

}  // namespace rota::cli
