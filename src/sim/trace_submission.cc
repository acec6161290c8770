#include "sim/trace_submission.h"

#include <fmt/format.h>

#include <algorithm>

namespace rota::sim {

namespace {
constexpr uint32_t kFirstId = 10000;
}

int64_t TimeLimitFor(const TraceJob& job, Estimates estimates) {
  int64_t limit =
      estimates != Estimates::kExact && job.requested_s > 0 ? job.requested_s : job.runtime_s;
  return std::max<int64_t>(limit, 1);
}

wire::SubmitJobRequest SubmissionFor(const TraceJob& job, Estimates estimates,
                                     const RuntimePredictions* predictions) {
  wire::SubmitJobRequest request;
  wire::JobSpec& spec = *request.mutable_spec();
  spec.set_name(fmt::format("trace{}", job.id));
  spec.set_num_tasks(job.processors);
  spec.set_cpus_per_task(std::max<uint32_t>(job.cpus_per_task, 1));
  spec.set_time_limit_s(TimeLimitFor(job, estimates));
  if (predictions != nullptr && estimates == Estimates::kPredicted) {
    // A job carrying an expected runtime is not predicted again by the
    // controller; its limit as the expectation plans it with its limit.
    auto listed = predictions->find(job.id);
    spec.set_expected_run_s(listed == predictions->end()
                                ? spec.time_limit_s()
                                : std::min(listed->second, spec.time_limit_s()));
  }
  if (job.nodes > 0) spec.set_min_nodes(job.nodes);
  if (job.gpus > 0) {
    // --gres counts per node: a job's GPUs spread evenly over its nodes.
    const uint32_t per_node =
        (job.gpus + std::max<uint32_t>(job.nodes, 1) - 1) / std::max<uint32_t>(job.nodes, 1);
    spec.set_gres(job.gpu_type.empty() ? fmt::format("gpu:{}", per_node)
                                       : fmt::format("gpu:{}:{}", job.gpu_type, per_node));
  }
  if (job.mem_mb > 0) {
    spec.set_mem_per_node_mb(job.mem_mb);
    spec.set_mem_given(true);
  }
  return request;
}

ctld::Caller CallerFor(const TraceJob& job) {
  ctld::Caller caller;
  if (job.user >= 0) {
    caller.uid = kFirstId + static_cast<uint32_t>(job.user);
    caller.user = fmt::format("u{}", job.user);
  } else {
    caller.uid = kFirstId - 1;
    caller.user = "unknown";
  }
  if (job.group >= 0) {
    caller.gid = kFirstId + static_cast<uint32_t>(job.group);
    caller.group = fmt::format("g{}", job.group);
  } else {
    caller.gid = kFirstId - 1;
    caller.group = "unknown";
  }
  return caller;
}

}  // namespace rota::sim
