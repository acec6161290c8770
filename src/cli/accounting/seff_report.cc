#include "cli/accounting/seff_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cli/accounting/sacct_fields.h"
#include "cli/accounting/step_usages.h"
#include "common/tres.h"
#include "model/job_state.h"

namespace rota::cli {
namespace {

uint32_t Requested(const wire::AccountingJob& job, std::string_view tres) {
  Result<TresCounts> req = TresCounts::Parse(job.req_tres());
  return req.ok() ? static_cast<uint32_t>(req->Get(tres)) : 0;
}

// What the report is computed from, before it is worded.
struct SeffFigures {
  uint32_t cpus = 1;
  uint32_t nodes = 1;
  int64_t walltime_s = 0;
  int64_t cpu_s = 0;                          // The steps' CPU time, rounded to seconds
  uint64_t mem_kb = 0;                        // The largest step's summed task peaks
  const wire::StepUsage* mem_step = nullptr;  // That step's usage
  uint64_t req_mem_kb = 0;                    // For the whole job
  const wire::StepUsage* gpu_step = nullptr;  // The step with the most GPU samples
};

SeffFigures Figures(const wire::AccountingJob& job, int64_t now) {
  SeffFigures f;
  f.cpus = job.alloc_cpus() > 0 ? job.alloc_cpus() : std::max<uint32_t>(Requested(job, "cpu"), 1);
  f.nodes =
      job.alloc_nodes() > 0 ? job.alloc_nodes() : std::max<uint32_t>(Requested(job, "node"), 1);
  if (job.start_time() > 0) {
    const int64_t end = job.end_time() > 0 ? job.end_time() : now;
    f.walltime_s = std::max<int64_t>(0, end - job.start_time());
  }
  uint64_t cpu_us = 0;
  for (const wire::StepUsage* u : StepUsages(job)) {
    cpu_us += u->user_cpu_us() + u->system_cpu_us();
    // A step's memory is the sum of its tasks' peaks (sacct's
    // TRESUsageInTot mem); the job's, the largest of its steps'.
    const uint64_t kb = u->ave_rss_kb() * u->tasks();
    if (u->tasks() > 0 && (f.mem_step == nullptr || kb > f.mem_kb)) {
      f.mem_kb = kb;
      f.mem_step = u;
    }
  }
  f.gpu_step = MostSampledGpuStep(job);
  f.cpu_s = static_cast<int64_t>((cpu_us + 500'000) / 1'000'000);
  f.req_mem_kb = job.req_mem_mb() * 1024;
  return f;
}

std::string Percent(double part, double whole) {
  return fmt::format("{:.2f}", whole > 0 ? part / whole * 100 : 0.0);
}

// Perl's print of a number: whole ones without decimals.
std::string Number(double value) { return fmt::format("{:.15g}", value); }

void AppendDebug(std::string& out, const wire::AccountingJob& job, const SeffContext& ctx,
                 const SeffFigures& f) {
  const std::string array =
      job.array_job_id() != 0 ? fmt::format("{}_{}", job.array_job_id(), job.array_task_id()) : "";
  const uint32_t ntasks = f.mem_step != nullptr ? f.mem_step->tasks() : 1;
  out +=
      "Slurm data: JobID ArrayJobID User Group State Clustername Ncpus Nnodes Ntasks Reqmem "
      "PerNode Cput Walltime Mem ExitStatus\n";
  out += fmt::format("Slurm data: {} {} {} {} {} {} {} {} {} {} 1 {} {} {} {}\n", job.job_id(),
                     array, job.user(), ctx.group, model::JobStateName(job.state()), job.cluster(),
                     f.cpus, f.nodes, ntasks, f.req_mem_kb, f.cpu_s, f.walltime_s, f.mem_kb,
                     (job.exit_code() >> 8) & 0xff);
}

// Rota's own lines: what the GPUs of the step watched longest did.
void AppendGpu(std::string& out, const wire::GpuUsage& g) {
  const double gpus = std::max<uint32_t>(g.gpus(), 1);
  out += fmt::format("GPUs: {}\n", g.gpus());
  out += fmt::format("GPU Utilization: {:.2f}% (mean of the GPUs; peak {:.0f}%)\n",
                     g.util_ave() / gpus, g.util_max() / gpus);
  const std::string of =
      g.mem_total_bytes() > 0 ? ", of " + SeffKbytes(g.mem_total_bytes() / 1024.0) : "";
  out +=
      fmt::format("GPU Memory Utilized: {} (peak{})\n", SeffKbytes(g.mem_max_bytes() / 1024.0), of);
  out += fmt::format("GPU Energy: {} J\n", std::llround(g.energy_j()));
}

}  // namespace

std::string SeffKbytes(double kb) {
  static constexpr char kUnits[] = {'K', 'M', 'G', 'T', 'P', 'E'};
  if (kb <= 0) return "0.00 MB";
  size_t unit = 0;
  while (kb >= 1024 && unit + 1 < sizeof kUnits) {
    kb /= 1024;
    ++unit;
  }
  return fmt::format("{:.2f} {}B", kb, kUnits[unit]);
}

const wire::AccountingJob* SeffChooseJob(const std::vector<wire::AccountingJob>& jobs,
                                         uint32_t id) {
  for (const wire::AccountingJob& job : jobs) {
    if (job.job_id() == id) return &job;
  }
  return jobs.empty() ? nullptr : &jobs.front();
}

std::string SeffReport(const wire::AccountingJob& job, const SeffContext& ctx) {
  const SeffFigures f = Figures(job, ctx.now);
  const wire::JobState state = job.state();
  const std::string_view state_name = model::JobStateName(state);
  std::string out;
  if (ctx.debug) AppendDebug(out, job, ctx, f);
  out += fmt::format("Job ID: {}\n", job.job_id());
  if (job.array_job_id() != 0) {
    out += fmt::format("Array Job ID: {}_{}\n", job.array_job_id(), job.array_task_id());
  }
  out += fmt::format("Cluster: {}\n", job.cluster());
  const std::string user = job.user().empty() ? std::to_string(job.uid()) : job.user();
  out += fmt::format("User/Group: {}/{}\n", user, ctx.group);
  if (state == wire::JOB_STATE_PENDING || state == wire::JOB_STATE_RUNNING) {
    out += fmt::format("State: {}\n", state_name);
  } else {
    out += fmt::format("State: {} (exit code {})\n", state_name, (job.exit_code() >> 8) & 0xff);
  }
  if (f.cpus == 1) {
    out += "Cores: 1\n";
  } else {
    out += fmt::format("Nodes: {}\n", f.nodes);
    out += fmt::format("Cores per node: {}\n", Number(static_cast<double>(f.cpus) / f.nodes));
  }
  if (state == wire::JOB_STATE_PENDING) {
    out += "Efficiency not available for jobs in the PENDING state.\n";
    return out;
  }
  const int64_t core_walltime = f.walltime_s * f.cpus;
  out += fmt::format("CPU Utilized: {}\n", SacctElapsed(f.cpu_s));
  out += fmt::format("CPU Efficiency: {}% of {} core-walltime\n",
                     Percent(static_cast<double>(f.cpu_s), static_cast<double>(core_walltime)),
                     SacctElapsed(core_walltime));
  out += fmt::format("Job Wall-clock time: {}\n", SacctElapsed(f.walltime_s));
  out += fmt::format("Memory Utilized: {}\n", SeffKbytes(static_cast<double>(f.mem_kb)));
  // The record keeps the job's memory, not whether it was asked per CPU:
  // the share is shown per node.
  out += fmt::format("Memory Efficiency: {}% of {} ({}/node)\n",
                     Percent(static_cast<double>(f.mem_kb), static_cast<double>(f.req_mem_kb)),
                     SeffKbytes(static_cast<double>(f.req_mem_kb)),
                     SeffKbytes(static_cast<double>(f.req_mem_kb) / f.nodes));
  if (const wire::StepUsage* m = f.mem_step;
      m != nullptr && m->tasks() > 1 && m->max_rss_kb() > m->ave_rss_kb()) {
    // Uneven tasks: the sum above hides how far the largest is from the rest.
    // Slurm's seff line, its figure the largest peak as a share of the mean.
    out += fmt::format(
        "The task which had the largest memory consumption differs by {}% from the average task "
        "max memory consumption\n",
        Percent(static_cast<double>(m->max_rss_kb()), static_cast<double>(m->ave_rss_kb())));
  }
  if (f.gpu_step != nullptr) AppendGpu(out, f.gpu_step->gpu());
  if (state == wire::JOB_STATE_RUNNING) {
    out += "WARNING: Efficiency statistics may be misleading for RUNNING jobs.\n";
  }
  return out;
}

}  // namespace rota::cli
