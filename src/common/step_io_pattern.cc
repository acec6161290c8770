#include "common/step_io_pattern.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace rota {
namespace {

// What Slurm prints for %a of a job that is not an array task (NO_VAL - 1).
constexpr uint64_t kNotAnArrayTask = 4294967294ULL;

// Calls `symbol(letter, width)` for each "%[width]letter" of `pattern` and
// `literal(text)` for the rest.
template <typename Literal, typename Symbol>
void Scan(std::string_view pattern, Literal literal, Symbol symbol) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 >= pattern.size()) {
      literal(pattern.substr(i, 1));
      continue;
    }
    size_t j = i + 1;
    int width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) {
      width = std::min(width * 10 + (pattern[j] - '0'), 10);
      ++j;
    }
    if (j >= pattern.size()) {
      literal(pattern.substr(i));
      return;
    }
    symbol(pattern[j], width, pattern.substr(i, j - i + 1));
    i = j;
  }
}

}  // namespace

std::string ExpandStepIoPattern(std::string_view pattern, const StepIoFields& f) {
  std::string out;
  auto number = [&](uint64_t n, int width) { out += fmt::format("{:0{}}", n, width); };
  Scan(
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
  Scan(
      pattern, [](std::string_view) {},
      [&](char letter, int, std::string_view) {
        per_task = per_task || letter == 't' || letter == 'n' || letter == 'N';
      });
  return per_task;
}

}  // namespace rota
