#include "cli/format/job_stdio_paths.h"

#include "common/io_pattern.h"

namespace rota::cli {
namespace {

bool IsBatch(const wire::JobRecord& job) { return !job.spec().interactive(); }

}  // namespace

std::string ExpandJobStdioPattern(std::string_view pattern, const wire::JobRecord& job) {
  const JobIoSymbols symbols{job.job_id(), job.array_job_id(), job.array_task_id(),
                             job.spec().user(), job.spec().name()};
  std::string out;
  ScanIoPattern(
      pattern, [&](std::string_view text) { out += text; },
      [&](char letter, int width, std::string_view as_written) {
        if (AppendJobIoSymbol(letter, width, symbols, out)) return;
        if (letter == 'b') {  // The array task id modulo 10
          const bool array = job.array_job_id() != 0;
          out += PaddedIoNumber((array ? job.array_task_id() : kNotAnArrayTask) % 10, width);
        } else {
          out += as_written;  // Known only where the job runs
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
