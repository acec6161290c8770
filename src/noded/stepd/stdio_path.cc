#include "noded/stepd/stdio_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace rota::noded {
namespace {

// Slurm prints NO_VAL-1 for %a of a job that is not an array task.
constexpr uint64_t kNoArrayTask = 4294967294ULL;

std::string Padded(uint64_t n, int width) { return fmt::format("{:0{}}", n, width); }

std::string Absolute(const std::string& path, const std::string& work_dir) {
  if (path.empty() || path[0] == '/') return path;
  return (std::filesystem::path(work_dir.empty() ? "/" : work_dir) / path).string();
}

}  // namespace

std::string ExpandStdioPattern(std::string_view pattern, const wire::JobRecord& job,
                               const std::string& node) {
  const bool array = job.array_job_id() != 0;
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 >= pattern.size()) {
      out += pattern[i];
      continue;
    }
    size_t j = i + 1;
    int width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) {
      width = std::min(width * 10 + (pattern[j] - '0'), 10);
      ++j;
    }
    if (j >= pattern.size()) {
      out += pattern.substr(i);
      break;
    }
    switch (pattern[j]) {
      case '%':
        out += '%';
        break;
      case 'J':  // jobid.stepid, but the batch step adds no ".step" (as in Slurm)
      case 'j':
        out += Padded(job.job_id(), width);
        break;
      case 'A':
        out += Padded(array ? job.array_job_id() : job.job_id(), width);
        break;
      case 'a':
        out += Padded(array ? job.array_task_id() : kNoArrayTask, width);
        break;
      case 'x':
        out += job.spec().name();
        break;
      case 'u':
        out += job.spec().user();
        break;
      case 'N':
        out += node;
        break;
      default:
        out += pattern.substr(i, j - i + 1);
    }
    i = j;
  }
  return out;
}

StdioPaths ResolveStdioPaths(const wire::JobRecord& job, const std::string& node) {
  const wire::JobSpec& spec = job.spec();
  std::string out_pattern = spec.std_out();
  if (out_pattern.empty()) {
    out_pattern = job.array_job_id() != 0 ? "slurm-%A_%a.out" : "slurm-%j.out";
  }
  StdioPaths paths;
  paths.out = Absolute(ExpandStdioPattern(out_pattern, job, node), spec.work_dir());
  paths.err = spec.std_err().empty()
                  ? paths.out
                  : Absolute(ExpandStdioPattern(spec.std_err(), job, node), spec.work_dir());
  paths.append = spec.open_mode() == "append";
  return paths;
}

}  // namespace rota::noded
