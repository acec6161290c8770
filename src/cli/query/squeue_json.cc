#include "cli/query/squeue_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/format/squeue_fields.h"
#include "cli/slurm_version.h"
#include "common/hostlist.h"
#include "model/job_state.h"

namespace rota::cli {

nlohmann::ordered_json OpenApiMeta(bool accounting) {
  return {{"plugin",
           {{"type", accounting ? "openapi/dbv0.0.38" : "openapi/v0.0.38"},
            {"name", accounting ? "Slurm OpenAPI DB v0.0.38" : "Slurm OpenAPI v0.0.38"}}},
          {"Slurm",
           {{"version",
             {{"major", kSlurmVersionMajor},
              {"micro", kSlurmVersionMicro},
              {"minor", kSlurmVersionMinor}}},
            {"release", kSlurmVersion}}}};
}

std::string SqueueJson(std::span<const wire::JobRecord> jobs, int64_t now) {
  nlohmann::ordered_json out;
  out["meta"] = OpenApiMeta(/*accounting=*/false);
  out["errors"] = nlohmann::json::array();
  nlohmann::ordered_json list = nlohmann::json::array();
  for (const wire::JobRecord& j : jobs) list.push_back(JobJson(j, now));
  out["jobs"] = std::move(list);
  return out.dump(2) + "\n";
}

nlohmann::ordered_json JobJson(const wire::JobRecord& j, int64_t now) {
  const wire::JobSpec& s = j.spec();
  nlohmann::ordered_json item;
  item["account"] = s.account();
  item["array_job_id"] = j.array_job_id();
  item["array_task_id"] = j.array_job_id() != 0 && !j.array_meta()
                              ? nlohmann::json(j.array_task_id())
                              : nlohmann::json(nullptr);
  item["array_max_tasks"] = j.array_max_running();
  item["array_task_string"] = j.array_meta() ? j.array_pending() : "";
  item["batch_flag"] = true;
  item["comment"] = s.comment();
  item["current_working_directory"] = s.work_dir();
  item["dependency"] = j.dependency_state();
  item["eligible_time"] = j.eligible_time();
  item["end_time"] = j.end_time();
  item["exit_code"] = j.exit_code();
  item["group_id"] = s.gid();
  item["job_id"] = j.job_id();
  item["job_state"] = std::string(model::JobStateName(j.state()));
  item["name"] = s.name();
  item["nodes"] = CompressHostlist({j.nodes().begin(), j.nodes().end()});
  item["node_count"] = j.nodes_size() > 0 ? static_cast<uint32_t>(j.nodes_size()) : j.req_nodes();
  item["cpus"] = j.alloc_cpus();
  item["partition"] = s.partition();
  item["priority"] = j.priority();
  item["qos"] = s.qos().empty() ? "normal" : s.qos();
  item["requeue"] = j.requeue();
  item["restart_cnt"] = j.restart_count();
  item["standard_error"] = s.std_err();
  item["standard_output"] = s.std_out();
  item["start_time"] = j.start_time();
  item["state_reason"] = j.reason();
  item["submit_time"] = j.submit_time();
  item["time_limit"] =
      j.time_limit_s() < 0 ? nlohmann::json(nullptr) : nlohmann::json(j.time_limit_s() / 60);
  item["tres_alloc_str"] = j.alloc_tres();
  item["user_id"] = s.uid();
  item["user_name"] = s.user();
  item["wckey"] = s.wckey();
  // Per-node requests Slurm gives as null when not asked.
  auto count_or_null = [](uint32_t v) {
    return v == 0 ? nlohmann::json(nullptr) : nlohmann::json(v);
  };
  item["cores_per_socket"] = count_or_null(s.cores_per_socket());
  item["sockets_per_node"] = count_or_null(s.sockets_per_node());
  item["threads_per_core"] = count_or_null(s.threads_per_core());
  item["tasks_per_core"] = count_or_null(s.ntasks_per_core());
  item["minimum_cpus_per_node"] = std::max<uint32_t>({s.cpus_per_task(), s.min_cpus_per_node(), 1});
  item["minimum_tmp_disk_per_node"] = s.tmp_disk_mb();
  item["time_used"] = format::JobTimeUsedText(j, now);
  return item;
}

}  // namespace rota::cli
