#pragma once

// The shape of Slurm's file name patterns (-o/-e/-i): text with
// "%[width]letter" symbols. Each user expands the symbols it knows.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace rota {

// Calls `symbol(letter, width, as_written)` for each "%[width]letter" of
// `pattern` ("%%" is letter '%'; widths stop at 10, as Slurm's) and
// `literal(text)` for the rest, a '%' at the end included.
template <typename Literal, typename Symbol>
void ScanIoPattern(std::string_view pattern, Literal literal, Symbol symbol) {
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

// What Slurm prints for %a of a job that is not an array task (NO_VAL - 1).
inline constexpr uint32_t kNotAnArrayTask = 4294967294U;

// `n` zero-padded to `width` digits.
inline std::string PaddedIoNumber(uint64_t n, int width) { return fmt::format("{:0{}}", n, width); }

// What every expander knows of the job itself.
struct JobIoSymbols {
  uint32_t job_id = 0;
  uint32_t array_job_id = 0;  // 0: not an array task
  uint32_t array_task_id = 0;
  std::string_view user;
  std::string_view name;
};

// Appends the expansion of the job's own symbols (%%, %j, %A: the array's
// job id, else the job id; %a: the array task id, else kNotAnArrayTask; %u,
// %x) to `out`. False, appending nothing, for any other letter.
inline bool AppendJobIoSymbol(char letter, int width, const JobIoSymbols& job, std::string& out) {
  const bool array = job.array_job_id != 0;
  switch (letter) {
    case '%':
      out += '%';
      return true;
    case 'j':
      out += PaddedIoNumber(job.job_id, width);
      return true;
    case 'A':
      out += PaddedIoNumber(array ? job.array_job_id : job.job_id, width);
      return true;
    case 'a':
      out += PaddedIoNumber(array ? job.array_task_id : kNotAnArrayTask, width);
      return true;
    case 'u':
      out += job.user;
      return true;
    case 'x':
      out += job.name;
      return true;
    default:
      return false;
  }
}

}  // namespace rota
