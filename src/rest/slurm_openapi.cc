// The /slurm/v0.0.38 part of rotarestd's OpenAPI document: what slurm_api.cc,
// slurm_api_cluster.cc and slurm_api_submit.cc answer, field by field.
#include "rest/openapi_document.h"
#include "rest/openapi_schema.h"

namespace rota::rest {

using namespace openapi;  // NOLINT: the builders are the vocabulary here

namespace {

Json JobSchema() {
  return Obj({
      {"account", Str()},
      {"array_job_id", Int()},
      {"array_task_id", Nullable(Int())},
      {"array_max_tasks", Int()},
      {"array_task_string", Str()},
      {"batch_flag", Bool()},
      {"comment", Str()},
      {"current_working_directory", Str()},
      {"dependency", Str()},
      {"eligible_time", Int()},
      {"end_time", Int()},
      {"exit_code", Int()},
      {"group_id", Int()},
      {"job_id", Int()},
      {"job_state", Str()},
      {"name", Str()},
      {"nodes", Str()},
      {"node_count", Int()},
      {"cpus", Int()},
      {"partition", Str()},
      {"priority", Int()},
      {"qos", Str()},
      {"requeue", Bool()},
      {"restart_cnt", Int()},
      {"standard_error", Str()},
      {"standard_output", Str()},
      {"start_time", Int()},
      {"state_reason", Str()},
      {"submit_time", Int()},
      {"time_limit", Nullable(Int())},
      {"tres_alloc_str", Str()},
      {"user_id", Int()},
      {"user_name", Str()},
      {"wckey", Str()},
      {"cores_per_socket", Nullable(Int())},
      {"sockets_per_node", Nullable(Int())},
      {"threads_per_core", Nullable(Int())},
      {"tasks_per_core", Nullable(Int())},
      {"minimum_cpus_per_node", Int()},
      {"minimum_tmp_disk_per_node", Int()},
      // Rota's own: run time so far as squeue's %M prints it.
      {"time_used", Str()},
  });
}

Json JobPropertiesSchema() {
  Json props = Obj({}, /*free_form=*/false);
  for (const char* name : {"account",
                           "account_gather_freqency",
                           "array",
                           "batch_features",
                           "burst_buffer",
                           "cluster_constraints",
                           "comment",
                           "constraints",
                           "cpu_binding",
                           "cpu_binding_hint",
                           "cpu_frequency",
                           "cpus_per_gpu",
                           "current_working_directory",
                           "deadline",
                           "dependency",
                           "distribution",
                           "gres",
                           "gres_flags",
                           "gpu_binding",
                           "gpu_frequency",
                           "gpus",
                           "gpus_per_node",
                           "gpus_per_socket",
                           "gpus_per_task",
                           "licenses",
                           "mail_type",
                           "mail_user",
                           "mcs_label",
                           "memory_binding",
                           "name",
                           "nice",
                           "open_mode",
                           "partition",
                           "priority",
                           "qos",
                           "reservation",
                           "signal",
                           "standard_error",
                           "standard_input",
                           "standard_output",
                           "wckey",
                           "exclusive"}) {
    props["properties"][name] = Str();
  }
  for (const char* name :
       {"begin_time", "core_specification", "cores_per_socket", "cpus_per_task", "delay_boot",
        "memory_per_cpu", "memory_per_gpu", "memory_per_node", "minimum_cpus_per_node",
        "sockets_per_node", "tasks", "tasks_per_core", "tasks_per_node", "tasks_per_socket",
        "thread_specification", "threads_per_core", "time_limit", "time_minimum"}) {
    props["properties"][name] = Int();
  }
  for (const char* name : {"get_user_environment", "hold", "kill_on_invalid_dependency",
                           "minimum_nodes", "no_kill", "requeue", "spread_job", "wait_all_nodes"}) {
    props["properties"][name] = Bool();
  }
  props["properties"]["argv"] = Arr(Str());
  props["properties"]["nodes"] = {
      {"type", "array"}, {"items", Int()}, {"minItems", 1}, {"maxItems", 2}};
  props["properties"]["environment"] = {{"type", "object"}, {"additionalProperties", Str()}};
  props["required"] = Json::array({"environment"});
  return props;
}

Json NodeSchema() {
  return Obj({
      {"name", Str()},
      {"hostname", Str()},
      {"address", Str()},
      {"port", Int()},
      {"state", Str()},
      {"state_flags", Arr(Str())},
      {"reason", Str()},
      {"reason_changed_at", Int()},
      {"reason_set_by_user", Str()},
      {"cpus", Int()},
      {"boards", Int()},
      {"sockets", Int()},
      {"cores", Int()},
      {"threads", Int()},
      {"real_memory", Int()},
      {"alloc_cpus", Int()},
      {"idle_cpus", Int()},
      {"alloc_memory", Int()},
      {"gres", Str()},
      {"gres_used", Str()},
      {"gres_drained", Str()},
      {"features", Str()},
      {"active_features", Str()},
      {"partitions", Arr(Str())},
      {"weight", Int()},
      {"boot_time", Int()},
      {"slurmd_start_time", Int()},
      {"tres", Str()},
      {"tres_used", Str()},
      {"slurmd_version", Str()},
  });
}

Json PartitionSchema() {
  return Obj({
      {"flags", Arr(Str())},
      {"preemption_mode", Arr(Str())},
      {"allowed_allocation_nodes", Str()},
      {"allowed_accounts", Str()},
      {"allowed_groups", Str()},
      {"allowed_qos", Str()},
      {"alternative", Str()},
      {"billing_weights", Str()},
      {"default_memory_per_cpu", Nullable(Int())},
      {"default_time_limit", Nullable(Int())},
      {"denied_accounts", Str()},
      {"denied_qos", Str()},
      {"preemption_grace_time", Int()},
      {"maximum_cpus_per_node", Nullable(Int())},
      {"maximum_memory_per_node", Nullable(Int())},
      {"maximum_nodes_per_job", Nullable(Int())},
      {"max_time_limit", Nullable(Int())},
      {"min_nodes_per_job", Int()},
      {"name", Str()},
      {"nodes", Str()},
      {"over_time_limit", Nullable(Int())},
      {"priority_job_factor", Int()},
      {"priority_tier", Int()},
      {"qos", Str()},
      {"state", Str()},
      {"total_cpus", Int()},
      {"total_nodes", Int()},
      {"tres", Str()},
  });
}

Json ReservationSchema() {
  return Obj({
      {"accounts", Str()},
      {"burst_buffer", Str()},
      {"core_count", Int()},
      {"core_spec_cnt", Int()},
      {"end_time", Int()},
      {"features", Str()},
      {"flags", Arr(Str())},
      {"groups", Str()},
      {"licenses", Str()},
      {"max_start_delay", Int()},
      {"name", Str()},
      {"node_count", Int()},
      {"node_list", Str()},
      {"partition", Str()},
      {"purge_completed", Obj({{"time", Int()}})},
      {"start_time", Int()},
      {"watts", Int()},
      {"tres", Str()},
      {"users", Str()},
  });
}

Json DiagSchema() {
  Json stats = Obj({});
  for (const char* name : {"parts_packed",
                           "req_time",
                           "req_time_start",
                           "server_thread_count",
                           "agent_queue_size",
                           "agent_count",
                           "agent_thread_count",
                           "dbd_agent_queue_size",
                           "gettimeofday_latency",
                           "schedule_cycle_max",
                           "schedule_cycle_last",
                           "schedule_cycle_total",
                           "schedule_cycle_mean",
                           "schedule_cycle_mean_depth",
                           "schedule_cycle_per_minute",
                           "schedule_queue_length",
                           "jobs_submitted",
                           "jobs_started",
                           "jobs_completed",
                           "jobs_canceled",
                           "jobs_failed",
                           "jobs_pending",
                           "jobs_running",
                           "job_states_ts",
                           "bf_backfilled_jobs",
                           "bf_last_backfilled_jobs",
                           "bf_backfilled_het_jobs",
                           "bf_cycle_counter",
                           "bf_cycle_mean",
                           "bf_cycle_max",
                           "bf_last_depth",
                           "bf_last_depth_try",
                           "bf_depth_mean",
                           "bf_depth_mean_try",
                           "bf_cycle_last",
                           "bf_queue_len",
                           "bf_queue_len_mean",
                           "bf_when_last_cycle"}) {
    stats["properties"][name] = Int();
  }
  stats["properties"]["bf_active"] = Bool();
  return Answer("v0.0.38", {{"statistics", stats}});
}

const Param kUpdateTime{"update_time", "query", Int(), "only what changed since this Unix time"};

}  // namespace

Json OpenApiSlurmPart() {
  Json schemas = Json::object();
  schemas["v0.0.38_meta"] =
      Obj({{"plugin", Obj({{"type", Str()}, {"name", Str()}})},
           {"Slurm", Obj({{"version", Obj({{"major", Int()}, {"micro", Int()}, {"minor", Int()}})},
                          {"release", Str()}})}});
  schemas["v0.0.38_error"] = Obj({{"error", Str()}, {"errno", Int()}});
  schemas["v0.0.38_ping"] =
      Obj({{"hostname", Str()}, {"ping", Str()}, {"status", Int()}, {"mode", Str()}});
  schemas["v0.0.38_pings"] = Answer("v0.0.38", {{"pings", Arr(Ref("v0.0.38_ping"))}});
  schemas["v0.0.38_diag"] = DiagSchema();
  schemas["v0.0.38_job_response_properties"] = JobSchema();
  schemas["v0.0.38_jobs_response"] =
      Answer("v0.0.38", {{"jobs", Arr(Ref("v0.0.38_job_response_properties"))}});
  schemas["v0.0.38_job_properties"] = JobPropertiesSchema();
  schemas["v0.0.38_job_submission"] =
      Obj({{"script", Str()}, {"job", Ref("v0.0.38_job_properties")}});
  schemas["v0.0.38_job_submission"]["required"] = Json::array({"script"});
  schemas["v0.0.38_job_submission_response"] =
      Answer("v0.0.38", {{"job_id", Int()}, {"step_id", Str()}, {"job_submit_user_msg", Str()}});
  schemas["v0.0.38_change_response"] = Answer("v0.0.38", {});
  schemas["v0.0.38_node"] = NodeSchema();
  schemas["v0.0.38_nodes_response"] = Answer("v0.0.38", {{"nodes", Arr(Ref("v0.0.38_node"))}});
  schemas["v0.0.38_partition"] = PartitionSchema();
  schemas["v0.0.38_partitions_response"] =
      Answer("v0.0.38", {{"partitions", Arr(Ref("v0.0.38_partition"))}});
  schemas["v0.0.38_reservation"] = ReservationSchema();
  schemas["v0.0.38_reservations_response"] =
      Answer("v0.0.38", {{"reservations", Arr(Ref("v0.0.38_reservation"))}});

  const Param job_id{"job_id", "path", Str(), "job id (JOBID or JOBID_TASK)"};
  const Param signal{"signal", "query", Str(), "signal name or number; KILL (the default) cancels"};
  Json paths = Json::object();
  paths["/slurm/v0.0.38/ping/"]["get"] =
      Operation("slurmctld_ping", "ping the controllers", {}, Ref("v0.0.38_pings"));
  paths["/slurm/v0.0.38/diag/"]["get"] =
      Operation("slurmctld_diag", "scheduler statistics (sdiag)", {}, Ref("v0.0.38_diag"));
  paths["/slurm/v0.0.38/jobs/"]["get"] = Operation("slurmctld_get_jobs", "every job (squeue)",
                                                   {kUpdateTime}, Ref("v0.0.38_jobs_response"));
  paths["/slurm/v0.0.38/job/{job_id}"]["get"] =
      Operation("slurmctld_get_job", "one job", {job_id}, Ref("v0.0.38_jobs_response"));
  paths["/slurm/v0.0.38/job/{job_id}"]["post"] =
      Operation("slurmctld_update_job", "change a job (scontrol update)", {job_id},
                Ref("v0.0.38_change_response"), Ref("v0.0.38_job_properties"));
  paths["/slurm/v0.0.38/job/{job_id}"]["delete"] =
      Operation("slurmctld_cancel_job", "cancel or signal a job (scancel)", {job_id, signal},
                Ref("v0.0.38_change_response"));
  paths["/slurm/v0.0.38/job/submit"]["post"] =
      Operation("slurmctld_submit_job", "submit a batch job (sbatch)", {},
                Ref("v0.0.38_job_submission_response"), Ref("v0.0.38_job_submission"));
  paths["/slurm/v0.0.38/nodes/"]["get"] =
      Operation("slurmctld_get_nodes", "every node", {kUpdateTime}, Ref("v0.0.38_nodes_response"));
  paths["/slurm/v0.0.38/node/{node_name}"]["get"] =
      Operation("slurmctld_get_node", "one node", {{"node_name", "path", Str(), "node name"}},
                Ref("v0.0.38_nodes_response"));
  paths["/slurm/v0.0.38/partitions/"]["get"] =
      Operation("slurmctld_get_partitions", "every partition", {kUpdateTime},
                Ref("v0.0.38_partitions_response"));
  paths["/slurm/v0.0.38/partition/{partition_name}"]["get"] = Operation(
      "slurmctld_get_partition", "one partition",
      {{"partition_name", "path", Str(), "partition name"}}, Ref("v0.0.38_partitions_response"));
  paths["/slurm/v0.0.38/reservations/"]["get"] =
      Operation("slurmctld_get_reservations", "every reservation", {kUpdateTime},
                Ref("v0.0.38_reservations_response"));
  paths["/slurm/v0.0.38/reservation/{reservation_name}"]["get"] =
      Operation("slurmctld_get_reservation", "one reservation",
                {{"reservation_name", "path", Str(), "reservation name"}},
                Ref("v0.0.38_reservations_response"));
  return {{"paths", std::move(paths)}, {"schemas", std::move(schemas)}};
}

}  // namespace rota::rest
