#include "common/step_io_pattern.h"

#include "common/io_pattern.h"

namespace rota {
std::string ExpandStepIoPattern(std::string_view pattern, const StepIoFields& f) {
  std::string out;
  auto number = [&](uint64_t n, int width) { out += PaddedIoNumber(n, width); };
  ScanIoPattern(
      pattern, [&](std::string_view text) { out += text; },
      [&](char letter, int width, std::string_view as_written) {
        switch (letter) {
          case '%':
            out += '%';
            break;
          case 't':
            number(f.task_id, width);
            break;
          case 'n':
            number(f.node_index, width);
            break;
          case 'j':
            number(f.job_id, width);
            break;
          case 'A':
            number(f.array_job_id != 0 ? f.array_job_id : f.job_id, width);
            break;
          case 'a':
            number(f.array_job_id != 0 ? f.array_task_id : kNotAnArrayTask, width);
            break;
          case 's':
            number(f.step_id, width);
            break;
          case 'J':
            number(f.job_id, width);
            out += '.';
            out += std::to_string(f.step_id);
            break;
          case 'N':
            out += f.node;
            break;
          case 'u':
            out += f.user;
            break;
          case 'x':
            out += f.job_name;
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
