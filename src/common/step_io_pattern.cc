#include "common/step_io_pattern.h"

#include "common/io_pattern.h"

namespace rota {
std::string ExpandStepIoPattern(std::string_view pattern, const StepIoFields& f) {
  const JobIoSymbols job{f.job_id, f.array_job_id, f.array_task_id, f.user, f.job_name};
  std::string out;
  ScanIoPattern(
      pattern, [&](std::string_view text) { out += text; },
      [&](char letter, int width, std::string_view as_written) {
        if (AppendJobIoSymbol(letter, width, job, out)) return;
        switch (letter) {
          case 't':
            out += PaddedIoNumber(f.task_id, width);
            break;
          case 'n':
            out += PaddedIoNumber(f.node_index, width);
            break;
          case 's':
            out += PaddedIoNumber(f.step_id, width);
            break;
          case 'J':
            out += PaddedIoNumber(f.job_id, width);
            out += '.';
            out += std::to_string(f.step_id);
            break;
          case 'N':
            out += f.node;
            break;
          default:
            out += as_written;
        }
      });
  return out;
}

bool StepIoPatternPerTask(std::string_view pattern) {
  bool per_task = false;
  ScanIoPattern(
      pattern, [](std::string_view) {},
      [&](char letter, int, std::string_view) {
        per_task = per_task || letter == 't' || letter == 'n' || letter == 'N';
      });
  return per_task;
}

}  // namespace rota
