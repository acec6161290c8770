#include "rest/openapi_document.h"

#include "rest/openapi_schema.h"

namespace rota::rest {

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
  Json metrics = openapi::Operation("rota_metrics", "OpenMetrics for Prometheus (docs/metrics.md)",
                                    {}, nullptr);
  metrics["responses"]["200"]["content"] = {
      {"application/openmetrics-text", {{"schema", openapi::Str()}}}};
  doc["paths"]["/metrics"]["get"] = std::move(metrics);
  for (const char* path : {"/openapi/v3", "/openapi", "/openapi.json"}) {
    Json op = openapi::Operation("openapi_get", "this document", {}, nullptr);
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
