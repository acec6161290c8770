#include "rest/dashboard_api.h"

#include <map>

#include "api/methods.h"
#include "cli/query/squeue_json.h"
#include "common/gres_spec.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "diag.pb.h"
#include "priority.pb.h"
#include "rest/dashboard_files.h"
#include "rest/slurm_api.h"

namespace rota::rest {
namespace {

constexpr ApiFlavor kFlavor = ApiFlavor::kRota;

// Indices in "0-1,3" (NodeAlloc.gpu_ids, gres_used's IDX:).
std::vector<uint32_t> Indices(std::string_view ids) {
  std::vector<uint32_t> out;
  for (std::string_view part : Split(ids, ',')) {
    if (part.empty()) continue;
    const size_t dash = part.find('-');
    std::optional<uint64_t> first = ParseUint(part.substr(0, dash));
    std::optional<uint64_t> last =
        dash == std::string_view::npos ? first : ParseUint(part.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 4096) continue;
    for (uint64_t i = *first; i <= *last; ++i) out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

// "gpu:a100:2(IDX:0,2),gpu:t4:1" split at the commas outside parentheses.
std::vector<std::string_view> GresItems(std::string_view list) {
  std::vector<std::string_view> out = SplitOutside(list, ',', '(', ')');
  std::erase_if(out, [](std::string_view item) { return item.empty(); });
  return out;
}

Json JobView(const wire::JobRecord& j, int64_t now,
             const std::map<uint32_t, const wire::PriorityRow*>& priorities) {
  Json job = cli::JobJson(j, now);
  Json allocation = Json::array();
  for (int i = 0; i < j.allocs_size() && i < j.nodes_size(); ++i) {
    const wire::NodeAlloc& a = j.allocs(i);
    allocation.push_back({{"node", j.nodes(i)},
                          {"cpu_ids", a.cpu_ids()},
                          {"gpu_ids", a.gpu_ids()},
                          {"memory", a.mem_mb()}});
  }
  job["allocation"] = std::move(allocation);
  job["planned_start"] = j.sched_start_time();
  job["planned_nodes"] = j.sched_nodes();
  job["reason_text"] = ReasonInWords(j.reason());
  // GPU efficiency (docs/gpu-efficiency.md): the GPUs' idle flag, when set.
  job["gpu_idle_since"] = j.gpu_idle_since();
  job["gpu_idle_util"] = j.gpu_idle_util();
  job["gpu_idle_action_at"] = j.gpu_idle_action_at();
  auto p = priorities.find(j.job_id());
  if (p != priorities.end()) {
    const wire::PriorityFactors& w = p->second->weighted();
    job["priority_factors"] = {{"age", w.age()},           {"fairshare", w.fairshare()},
                               {"job_size", w.job_size()}, {"partition", w.partition()},
                               {"qos", w.qos()},           {"site", w.site()},
                               {"nice", w.nice()},         {"tres", w.tres()}};
  } else {
    job["priority_factors"] = nullptr;
  }
  return job;
}

HttpResponse Dashboard(const HttpRequest&, const PathParams&, Backend& backend) {
  auto jobs = ParseAnswer<wire::ListJobsResponse>(
      backend.CallController(api::kListJobs, wire::ListJobsRequest()));
  if (!jobs.ok()) return StatusAnswer(kFlavor, jobs.status());
  auto nodes =
      ParseAnswer<wire::ListNodesResponse>(backend.CallController(api::kListNodes, wire::Empty()));
  if (!nodes.ok()) return StatusAnswer(kFlavor, nodes.status());
  auto diag =
      ParseAnswer<wire::DiagResponse>(backend.CallController(api::kDiag, wire::DiagRequest()));
  if (!diag.ok()) return StatusAnswer(kFlavor, diag.status());
  // Priority factors are a nicety: a refusal leaves them out.
  auto priority = ParseAnswer<wire::PriorityResponse>(
      backend.CallController(api::kListPriorities, wire::PriorityRequest()));
  std::map<uint32_t, const wire::PriorityRow*> by_job;
  if (priority.ok()) {
    for (const wire::PriorityRow& row : priority->rows()) by_job[row.job_id()] = &row;
  }
  Json out = Envelope(kFlavor);
  out["user"] = backend.user_name();
  out["now"] = jobs->now();
  out["cluster"] = backend.config().settings.cluster_name;
  Json node_list = Json::array();
  for (const wire::NodeInfo& n : nodes->nodes()) {
    Json node = NodeJson(n);
    node["gpu_cells"] = GpuCells(n, *jobs);
    node_list.push_back(std::move(node));
  }
  out["nodes"] = std::move(node_list);
  Json job_list = Json::array();
  for (const wire::JobRecord& j : jobs->jobs()) job_list.push_back(JobView(j, jobs->now(), by_job));
  out["jobs"] = std::move(job_list);
  const wire::DiagResponse& d = *diag;
  out["scheduler"] = {{"time", d.now()},
                      {"main_cycle_last_us", d.schedule_cycle_last()},
                      {"main_cycle_mean_us", d.schedule_cycle_mean()},
                      {"backfill_cycle_last_us", d.bf_cycle_last()},
                      {"queue_length", d.schedule_queue_len()},
                      {"backfill_depth", d.bf_last_depth()},
                      {"jobs_pending", d.jobs_pending()},
                      {"jobs_running", d.jobs_running()}};
  return JsonAnswer(out);
}

HttpResponse StaticFile(std::string_view name) {
  HttpResponse r;
  const DashboardFile* file = FindDashboardFile(name);
  if (file == nullptr) return ErrorAnswer(kFlavor, 404, "no such file", kEslurmRestInvalidQuery);
  r.content_type = std::string(file->content_type);
  r.body = std::string(file->body);
  r.headers["Cache-Control"] = "no-cache";
  return r;
}

}  // namespace

std::string ReasonInWords(std::string_view reason) {
  static const std::map<std::string_view, std::string_view> kWords = {
      {"None", ""},
      {"Resources", "waiting for resources: not enough free CPUs, memory or GPUs on usable nodes"},
      {"Priority", "jobs of higher priority are ahead of it and will take the resources first"},
      {"Dependency", "waiting for the jobs it depends on"},
      {"DependencyNeverSatisfied", "its dependency can never be satisfied; cancel it"},
      {"BeginTime", "its start time (--begin) has not come yet"},
      {"JobHeldUser", "held by its user: release it to let it run"},
      {"JobHeldAdmin", "held by an administrator"},
      {"PartitionTimeLimit", "its time limit is longer than the partition allows"},
      {"PartitionNodeLimit", "it asks for more nodes than the partition allows"},
      {"PartitionDown", "its partition is down"},
      {"PartitionInactive", "its partition is inactive"},
      {"ReqNodeNotAvail", "a node it needs is down, drained or reserved"},
      {"JobArrayTaskLimit", "its array already runs as many tasks as it may"},
      {"Licenses", "too few of its licenses are free"},
      {"Reservation", "waiting for its reservation to start"},
      {"ReservationDeleted", "its reservation was deleted"},
      {"launch failed requeued held", "its launch failed; it was requeued and held"},
  };
  auto it = kWords.find(reason);
  if (it != kWords.end()) return std::string(it->second);
  if (reason.starts_with("QOS") || reason.starts_with("Assoc")) {
    return "a limit of its QOS or account holds it (" + std::string(reason) + ")";
  }
  return std::string(reason);
}

Json GpuCells(const wire::NodeInfo& node, const wire::ListJobsResponse& jobs) {
  // The node's GPUs in index order: gres.conf's order, type by type as the
  // GRES string lists them ("gpu:a100:2,gpu:t4:1" -> 0,1 a100; 2 t4).
  std::vector<Json> cells;
  const std::string& gres = node.gres();
  for (std::string_view item : GresItems(gres)) {
    auto spec = ParseGresSpec(item.substr(0, item.find('(')));
    if (!spec.ok() || spec->name != "gpu") continue;
    for (uint64_t k = 0; k < spec->count && cells.size() < 4096; ++k) {
      cells.push_back({{"index", cells.size()},
                       {"type", spec->type},
                       {"state", "idle"},
                       {"job_id", nullptr},
                       {"user", nullptr}});
    }
  }
  const std::string& name = node.record().name();
  for (const wire::JobRecord& j : jobs.jobs()) {
    for (int i = 0; i < j.allocs_size() && i < j.nodes_size(); ++i) {
      if (j.nodes(i) != name) continue;
      for (uint32_t index : Indices(j.allocs(i).gpu_ids())) {
        if (index >= cells.size()) continue;
        cells[index]["state"] = "allocated";
        cells[index]["job_id"] = j.job_id();
        cells[index]["user"] = j.spec().user();
      }
    }
  }
  // What the job list does not show (another user's jobs under PrivateData)
  // the node's own count of GPUs in use still does.
  const std::string& used = node.gres_used();
  for (std::string_view item : GresItems(used)) {
    const size_t idx = item.find("IDX:");
    if (idx == std::string_view::npos) continue;
    std::string_view ids = item.substr(idx + 4);
    ids = ids.substr(0, ids.find(')'));
    for (uint32_t index : Indices(ids)) {
      if (index < cells.size() && cells[index]["state"] == "idle")
        cells[index]["state"] = "allocated";
    }
  }
  const NodeState state = NodeStateOf(node);
  const bool unusable = state.base == "down" || state.Has("DRAIN") || state.Has("NOT_RESPONDING");
  const bool reserved = state.Has("RESERVED") || state.Has("MAINT");
  for (Json& cell : cells) {
    if (cell["state"] != "idle") continue;
    if (unusable) {
      cell["state"] = "down";
    } else if (reserved) {
      cell["state"] = "reserved";
    }
  }
  return Json(cells);
}

void AddDashboardRoutes(Router& router) {
  router.Add("GET", "/rota/v1/dashboard", Dashboard);
  for (const DashboardFile& file : DashboardFiles()) {
    const std::string name(file.name);
    router.Add(
        "GET", name == "index.html" ? "/" : "/" + name,
        [name](const HttpRequest&, const PathParams&, Backend&) { return StaticFile(name); });
  }
}

}  // namespace rota::rest
