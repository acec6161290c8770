#include "noded/stepd/stdio_path.h"

#include <filesystem>

#include "common/io_pattern.h"

namespace rota::noded {
namespace {

// The batch step's id as Slurm numbers it (SLURM_BATCH_SCRIPT): what %s gives.
constexpr uint64_t kBatchStepId = 0xfffffffbULL;

std::string Absolute(const std::string& path, const std::string& work_dir) {
  if (path.empty() || path[0] == '/') return path;
  return (std::filesystem::path(work_dir.empty() ? "/" : work_dir) / path).string();
}

}  // namespace

std::string ExpandStdioPattern(std::string_view pattern, const wire::JobLaunch& job,
                               const std::string& node) {
  const JobIoSymbols symbols{job.job_id(), job.array_job_id(), job.array_task_id(),
                             job.spec().user(), job.spec().name()};
  std::string out;
  ScanIoPattern(
      pattern, [&](std::string_view text) { out += text; },
      [&](char letter, int width, std::string_view as_written) {
        if (AppendJobIoSymbol(letter, width, symbols, out)) return;
        switch (letter) {
          case 'J':  // jobid.stepid, but the batch step adds no ".step" (as in Slurm)
            out += PaddedIoNumber(job.job_id(), width);
            break;
          case 'N':
            out += node;
            break;
          case 'n':  // The batch script runs on the job's node 0, as its task 0
          case 't':
            out += PaddedIoNumber(0, width);
            break;
          case 's':
            out += PaddedIoNumber(kBatchStepId, width);
            break;
          default:
            out += as_written;
        }
      });
  return out;
}

StdioPaths ResolveStdioPaths(const wire::JobLaunch& job, const std::string& node) {
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
