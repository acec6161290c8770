#include "model/job_variables.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "common/mem_bind_spec.h"
#include "common/strings.h"
#include "model/index_set.h"

namespace rota::model {
namespace {

// "1-9:2%3" -> 2; a step belongs to its range, and Slurm reports the one the
// expression gives (lists of single ids have none: 1).
uint64_t ArrayStep(std::string_view expression) {
  expression = expression.substr(0, expression.find('%'));
  size_t colon = expression.find(':');
  if (colon == std::string_view::npos) return 1;
  std::string_view digits = expression.substr(colon + 1);
  digits = digits.substr(0, digits.find(','));
  std::optional<uint64_t> step = ParseUint(Trim(digits));
  return step && *step > 0 ? *step : 1;
}

}  // namespace

EnvVariables RequestVariables(const wire::JobSpec& spec) {
  EnvVariables vars;
  auto count = [&](const char* name, uint64_t value) {
    if (value != 0) vars.emplace_back(name, std::to_string(value));
  };
  auto text = [&](const char* name, const std::string& value) {
    if (!value.empty()) vars.emplace_back(name, value);
  };
  count("SLURM_NTASKS", spec.num_tasks());
  count("SLURM_NPROCS", spec.num_tasks());
  count("SLURM_NTASKS_PER_NODE", spec.ntasks_per_node());
  count("SLURM_NTASKS_PER_SOCKET", spec.ntasks_per_socket());
  count("SLURM_NTASKS_PER_GPU", spec.ntasks_per_gpu());
  count("SLURM_NTASKS_PER_CORE", spec.ntasks_per_core());  // srun binds by it
  count("SLURM_CPUS_PER_TASK", spec.cpus_per_task());
  count("SLURM_CPUS_PER_GPU", spec.cpus_per_gpu());
  // The three memory options exclude each other (cli/submit/job_options.cc).
  count("SLURM_MEM_PER_CPU", spec.mem_per_cpu_mb());
  if (spec.mem_given()) count("SLURM_MEM_PER_NODE", spec.mem_per_node_mb());
  count("SLURM_MEM_PER_GPU", spec.mem_per_gpu_mb());
  text("SLURM_GPUS", spec.gpus());
  text("SLURM_GPUS_PER_NODE", spec.gpus_per_node());
  text("SLURM_GPUS_PER_SOCKET", spec.gpus_per_socket());
  text("SLURM_GPUS_PER_TASK", spec.gpus_per_task());
  text("SLURM_GPU_BIND", spec.gpu_bind());
  text("SLURM_GPU_FREQ", spec.gpu_freq());
  text("SLURM_DISTRIBUTION", spec.distribution());  // -m, for the job's steps
  // --mem-bind, for the job's steps (srun reads SLURM_MEM_BIND), as sbatch
  // sets it with SLURM_MEM_BIND_VERBOSE.
  if (!spec.mem_bind().empty()) {
    vars.emplace_back("SLURM_MEM_BIND", spec.mem_bind());
    Result<MemBindSpec> mem_bind = ParseMemBindSpec(spec.mem_bind());
    vars.emplace_back("SLURM_MEM_BIND_VERBOSE",
                      mem_bind.ok() && mem_bind->verbose ? "verbose" : "quiet");
  }
  // -O: the job's steps may start more tasks than it holds CPUs (srun reads it).
  if (spec.overcommit()) vars.emplace_back("SLURM_OVERCOMMIT", "1");
  return vars;
}

EnvVariables ArrayVariables(const wire::JobLaunch& job) {
  EnvVariables vars;
  if (job.array_job_id() == 0) return vars;
  vars.emplace_back("SLURM_ARRAY_JOB_ID", std::to_string(job.array_job_id()));
  vars.emplace_back("SLURM_ARRAY_TASK_ID", std::to_string(job.array_task_id()));
  // The whole array as submitted, also once some of its tasks have ended.
  Result<ArraySpec> array = ParseArraySpec(job.spec().array());
  if (!array.ok() || array->tasks.empty()) return vars;
  vars.emplace_back("SLURM_ARRAY_TASK_COUNT", std::to_string(array->tasks.size()));
  vars.emplace_back("SLURM_ARRAY_TASK_MAX", std::to_string(*array->tasks.last()));
  vars.emplace_back("SLURM_ARRAY_TASK_MIN", std::to_string(*array->tasks.first()));
  vars.emplace_back("SLURM_ARRAY_TASK_STEP", std::to_string(ArrayStep(job.spec().array())));
  return vars;
}

std::string FormatPerNodeCounts(const std::vector<uint32_t>& counts) {
  std::string out;
  for (size_t i = 0; i < counts.size();) {
    size_t run = 1;
    while (i + run < counts.size() && counts[i + run] == counts[i]) ++run;
    if (!out.empty()) out += ',';
    out += std::to_string(counts[i]);
    if (run > 1) out += "(x" + std::to_string(run) + ")";
    i += run;
  }
  return out;
}

PerNodeLayout AllocationLayout(const wire::JobLaunch& job) {
  const wire::JobSpec& spec = job.spec();
  PerNodeLayout layout;
  const uint32_t cpus = job.cpus_per_node() != 0 ? job.cpus_per_node() : job.alloc_cpus();
  layout.cpus.assign(static_cast<size_t>(job.nodes_size()), cpus);
  if (job.allocs_size() != job.nodes_size()) return layout;
  for (int i = 0; i < job.allocs_size(); ++i) {
    layout.cpus[static_cast<size_t>(i)] = job.allocs(i).cpus();
    layout.tasks.push_back(job.allocs(i).tasks());
  }
  if (spec.num_tasks() == 0 && spec.ntasks_per_node() == 0) {
    for (size_t i = 0; i < layout.tasks.size(); ++i) {
      layout.tasks[i] = layout.cpus[i] / std::max<uint32_t>(1, spec.cpus_per_task());
    }
  }
  return layout;
}

EnvVariables LayoutVariables(const wire::JobLaunch& job) {
  const PerNodeLayout layout = AllocationLayout(job);
  EnvVariables vars = {{"SLURM_JOB_CPUS_PER_NODE", FormatPerNodeCounts(layout.cpus)}};
  if (!layout.tasks.empty())
    vars.emplace_back("SLURM_TASKS_PER_NODE", FormatPerNodeCounts(layout.tasks));
  return vars;
}

}  // namespace rota::model
