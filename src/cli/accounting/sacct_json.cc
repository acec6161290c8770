#include "cli/accounting/sacct_json.h"

#include <fmt/format.h>

#include <csignal>
#include <cstring>
#include <string_view>

#include "cli/accounting/sacct_fields.h"
#include "common/tres.h"
#include "model/job_state.h"

namespace rota::cli {
namespace {

using Json = nlohmann::ordered_json;

// Slurm's fixed TRES ids; GRES and the rest get theirs per site, from 1001 on.
int TresId(std::string_view type) {
  if (type == "cpu") return 1;
  if (type == "mem") return 2;
  if (type == "energy") return 3;
  if (type == "node") return 4;
  if (type == "billing") return 5;
  return 1001;
}

Json ExitCode(uint32_t wait_status) {
  const uint32_t code = (wait_status >> 8) & 0xff;
  const uint32_t signal = wait_status & 0x7f;
  Json out;
  out["status"] = signal != 0 ? "SIGNALED" : code != 0 ? "FAILED" : "SUCCESS";
  out["return_code"] = code;
  if (signal != 0) {
    const char* abbrev = sigabbrev_np(static_cast<int>(signal));
    out["signal"] = {{"signal_id", signal}, {"name", abbrev != nullptr ? abbrev : ""}};
  }
  return out;
}

}  // namespace

Json TresListJson(const std::string& tres) {
  Json list = Json::array();
  Result<TresCounts> counts = TresCounts::Parse(tres);
  if (!counts.ok()) return list;
  for (const auto& [key, count] : counts->counts()) {
    std::string_view type = key, name;
    if (size_t slash = key.find('/'); slash != std::string::npos) {
      type = std::string_view(key).substr(0, slash);
      name = std::string_view(key).substr(slash + 1);
    }
    Json entry;
    entry["type"] = std::string(type);
    entry["name"] = std::string(name);
    entry["id"] = TresId(type);
    entry["count"] = count;
    list.push_back(std::move(entry));
  }
  return list;
}

nlohmann::ordered_json SacctJobsJson(const std::vector<wire::AccountingJob>& jobs, int64_t now) {
  Json list = Json::array();
  for (const wire::AccountingJob& j : jobs) {
    Json item;
    item["account"] = j.account();
    item["allocation_nodes"] = j.alloc_nodes();
    item["array"] = {{"job_id", j.array_job_id()},
                     {"task_id", j.array_job_id() != 0 ? Json(j.array_task_id()) : Json(nullptr)}};
    item["cluster"] = j.cluster();
    item["exit_code"] = ExitCode(j.exit_code());
    item["job_id"] = j.job_id();
    item["name"] = j.name();
    item["nodes"] = j.nodelist().empty() ? std::string("None assigned") : j.nodelist();
    item["partition"] = j.partition();
    item["qos"] = j.qos();
    item["required"] = {{"CPUs", j.alloc_cpus()}, {"memory", j.req_mem_mb()}};
    item["restarts"] = j.restarts();
    item["state"] = {{"current", std::string(model::JobStateName(j.state()))},
                     {"reason", j.reason()}};
    int64_t elapsed = 0;
    if (j.start_time() > 0) elapsed = (j.end_time() > 0 ? j.end_time() : now) - j.start_time();
    item["time"] = {{"elapsed", elapsed < 0 ? 0 : elapsed},
                    {"eligible", j.eligible_time()},
                    {"end", j.end_time()},
                    {"start", j.start_time()},
                    {"submission", j.submit_time()},
                    {"suspended", 0},
                    {"limit", j.time_limit_s() < 0 ? 0 : j.time_limit_s() / 60}};
    item["tres"] = {{"allocated", TresListJson(j.alloc_tres())},
                    {"requested", TresListJson(j.req_tres())}};
    item["user"] = j.user();
    Json steps = Json::array();
    for (const SacctStepRow& row : SacctStepRows(j)) {
      const wire::AccountingJob& r = row.record;
      int64_t step_elapsed = 0;
      if (r.start_time() > 0)
        step_elapsed = (r.end_time() > 0 ? r.end_time() : now) - r.start_time();
      Json step;
      step["step"] = {{"id", fmt::format("{}.{}", j.job_id(), row.step)}, {"name", r.name()}};
      step["state"] = std::string(model::JobStateName(r.state()));
      step["exit_code"] = ExitCode(r.exit_code());
      step["nodes"] = {{"count", r.alloc_nodes()}, {"range", r.nodelist()}};
      step["time"] = {{"elapsed", step_elapsed < 0 ? 0 : step_elapsed},
                      {"end", r.end_time()},
                      {"start", r.start_time()}};
      step["tres"] = {{"allocated", TresListJson(r.alloc_tres())}};
      if (row.usage.tasks() > 0) {
        // As Slurm: the highest task's memory in bytes, with where it was.
        Json mem = {{"type", "mem"},
                    {"name", ""},
                    {"id", TresId("mem")},
                    {"count", row.usage.max_rss_kb() * 1024},
                    {"task", row.usage.max_rss_task()},
                    {"node", row.usage.max_rss_node()}};
        step["tres"]["requested"] = {{"max", Json::array({std::move(mem)})}};
      }
      steps.push_back(std::move(step));
    }
    item["steps"] = std::move(steps);
    list.push_back(std::move(item));
  }
  return list;
}

std::string SacctJson(const std::vector<wire::AccountingJob>& jobs, int64_t now) {
  Json out;
  out["meta"] = {{"plugin", {{"type", "openapi/dbv0.0.38"}, {"name", "Rota sacct"}}}};
  out["errors"] = Json::array();
  out["jobs"] = SacctJobsJson(jobs, now);
  return out.dump(2) + "\n";
}

}  // namespace rota::cli
