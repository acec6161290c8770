#include "rest/openapi_document.h"

#include "rest/openapi_schema.h"

namespace rota::rest {

namespace {

using namespace openapi;  // NOLINT: the builders are the vocabulary here

// Rota's own: the dashboard's data, nodes and jobs as /slurm answers them
// with what the dashboard adds, and its files.
void AddDashboardPart(Json& doc) {
  Json& schemas = doc["components"]["schemas"];
  Json node = schemas["v0.0.38_node"];
  node["properties"]["gpu_cells"] = Arr(Obj({{"index", Int()},
                                             {"type", Str()},
                                             {"state", Str()},
                                             {"job_id", Nullable(Int())},
                                             {"user", Nullable(Str())}}));
  schemas["rota_dashboard_node"] = node;
  Json job = schemas["v0.0.38_job_response_properties"];
  job["properties"]["allocation"] =
      Arr(Obj({{"node", Str()}, {"cpu_ids", Str()}, {"gpu_ids", Str()}, {"memory", Int()}}));
  job["properties"]["planned_start"] = Int();
  job["properties"]["planned_nodes"] = Str();
  job["properties"]["reason_text"] = Str();
  job["properties"]["gpu_idle_since"] = Int();
  job["properties"]["gpu_idle_util"] = Num();
  job["properties"]["gpu_idle_action_at"] = Int();
  job["properties"]["priority_factors"] = Nullable(Obj({{"age", Num()},
                                                        {"fairshare", Num()},
                                                        {"job_size", Num()},
                                                        {"partition", Num()},
                                                        {"qos", Num()},
                                                        {"site", Num()},
                                                        {"nice", Int()},
                                                        {"tres", Str()}}));
  schemas["rota_dashboard_job"] = job;
  schemas["rota_dashboard"] =
      Answer("v0.0.38", {{"user", Str()},
                         {"now", Int()},
                         {"cluster", Str()},
                         {"nodes", Arr(Ref("rota_dashboard_node"))},
                         {"jobs", Arr(Ref("rota_dashboard_job"))},
                         {"scheduler", Obj({{"time", Int()},
                                            {"main_cycle_last_us", Int()},
                                            {"main_cycle_mean_us", Int()},
                                            {"backfill_cycle_last_us", Int()},
                                            {"queue_length", Int()},
                                            {"backfill_depth", Int()},
                                            {"jobs_pending", Int()},
                                            {"jobs_running", Int()}})}});
  doc["paths"]["/rota/v1/dashboard"]["get"] =
      Operation("rota_dashboard", "everything the dashboard shows, with the caller's rights", {},
                Ref("rota_dashboard"));
  for (const char* path : {"/", "/dashboard.js", "/dashboard.css"}) {
    Json op =
        Operation("rota_dashboard_file", "the dashboard's page, script and style", {}, nullptr);
    op["security"] = Json::array();  // Served to anyone: they hold no data.
    doc["paths"][path]["get"] = std::move(op);
  }
}

}  // namespace

Json OpenApiDocument() {
  Json doc;
  doc["openapi"] = "3.0.2";
  doc["info"] = {{"title", "Rota REST API (slurmrestd v0.0.38 compatible)"},
                 {"description",
                  "rotarestd: Slurm 22.05's REST paths for jobs, nodes, partitions, "
                  "reservations and accounting, answered by Rota's daemons."},
                 {"version", "0.0.38"}};
  doc["servers"] = Json::array({Json{{"url", "/"}}});
  doc["components"]["securitySchemes"] = {
      {"user", {{"type", "apiKey"}, {"in", "header"}, {"name", "X-SLURM-USER-NAME"}}},
      {"token", {{"type", "apiKey"}, {"in", "header"}, {"name", "X-SLURM-USER-TOKEN"}}}};
  doc["security"] = Json::array({Json{{"user", Json::array()}, {"token", Json::array()}}});
  doc["paths"] = Json::object();
  doc["components"]["schemas"] = Json::object();
  for (const Json& part : {OpenApiSlurmPart(), OpenApiSlurmdbPart()}) {
    for (const auto& [path, item] : part["paths"].items()) doc["paths"][path] = item;
    for (const auto& [name, schema] : part["schemas"].items()) {
      doc["components"]["schemas"][name] = schema;
    }
  }
  AddDashboardPart(doc);
  Json metrics =
      Operation("rota_metrics", "OpenMetrics for Prometheus (docs/metrics.md)", {}, nullptr);
  metrics["responses"]["200"]["content"] = {{"application/openmetrics-text", {{"schema", Str()}}}};
  doc["paths"]["/metrics"]["get"] = std::move(metrics);
  for (const char* path : {"/openapi/v3", "/openapi", "/openapi.json"}) {
    Json op = Operation("openapi_get", "this document", {}, nullptr);
    op["security"] = Json::array();  // Served to anyone.
    doc["paths"][path]["get"] = std::move(op);
  }
  return doc;
}

void AddOpenApiRoutes(Router& router) {
  auto serve = [](const HttpRequest&, const PathParams&, Backend&) {
    static const std::string text = OpenApiDocument().dump(2);
    HttpResponse r;
    r.body = text;
    return r;
  };
  for (const char* path : {"/openapi/v3", "/openapi", "/openapi.json"})
    router.Add("GET", path, serve);
}

}  // namespace rota::rest
