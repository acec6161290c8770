#include "model/job_launch.h"

namespace rota::model {

wire::JobLaunch LaunchOf(const wire::JobRecord& job) {
  wire::JobLaunch l;
  l.set_job_id(job.job_id());
  *l.mutable_spec() = job.spec();
  l.set_array_job_id(job.array_job_id());
  l.set_array_task_id(job.array_task_id());
  l.set_state(job.state());
  *l.mutable_nodes() = job.nodes();
  l.set_alloc_cpus(job.alloc_cpus());
  l.set_restart_count(job.restart_count());
  l.set_cpus_per_node(job.cpus_per_node());
  *l.mutable_mem_by_node_mb() = job.mem_by_node_mb();
  l.set_gpus_per_node(job.gpus_per_node());
  l.set_gpu_type(job.gpu_type());
  *l.mutable_allocs() = job.allocs();
  return l;
}

}  // namespace rota::model
