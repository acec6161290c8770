#include "cli/format/job_stdio_paths.h"

#include "common/io_pattern.h"

namespace rota::cli {
namespace {

bool IsBatch(const wire::JobRecord& job) { return !job.spec().interactive(); }

}  // namespace

std::string ExpandJobStdioPattern(std::string_view pattern, const wire::JobRecord& job) {
  const bool array = job.array_job_id() != 0;
  const uint32_t task = array ? job.array_task_id() : kNotAnArrayTask;
  std::string out;
  ScanIoPattern(
      pattern, [&](std::string_view text) { out += text; },
      [&](char letter, int width, std::string_view as_written) {
        switch (letter) {
          case '%':
            out += '%';
            break;
          case 'A':
            out += PaddedIoNumber(array ? job.array_job_id() : job.job_id(), width);
            break;
          case 'a':
            out += PaddedIoNumber(task, width);
            break;
          case 'b':
            out += PaddedIoNumber(task % 10, width);
            break;
          case 'j':
            out += PaddedIoNumber(job.job_id(), width);
            break;
          case 'u':
            out += job.spec().user();
            break;
          case 'x':
            out += job.spec().name();
            break;
          default:  // Known only where the job runs
            out += as_written;
        }
      });
  if (!out.empty() && out[0] == '/') return out;
  return job.spec().work_dir() + "/" + out;
}

std::string JobStdoutPath(const wire::JobRecord& job) {
  const std::string& given = job.spec().std_out();
  if (!given.empty()) return ExpandJobStdioPattern(given, job);
  if (!IsBatch(job)) return "";
  return ExpandJobStdioPattern(job.array_job_id() != 0 ? "slurm-%A_%a.out" : "slurm-%j.out", job);
}

std::string JobStderrPath(const wire::JobRecord& job) {
  const std::string& given = job.spec().std_err();
  if (!given.empty()) return ExpandJobStdioPattern(given, job);
  return JobStdoutPath(job);
}

std::string JobStdinPath(const wire::JobRecord& job) {
  const std::string& given = job.spec().std_in();
  if (!given.empty()) return ExpandJobStdioPattern(given, job);
  return IsBatch(job) ? "/dev/null" : "";
}

}  // namespace rota::cli
