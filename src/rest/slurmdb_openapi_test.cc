// OpenApiSlurmdbPart() against what the /slurmdb/v0.0.38 handlers answer:
// every route documented, every field of every answer declared with its
// type, null only where the schema allows it.
#include <gtest/gtest.h>

#include <csignal>
#include <set>

#include "rest/openapi_document.h"
#include "rest/slurmdb_test_support.h"

namespace rota::rest {
namespace {

constexpr char kRefPrefix[] = "#/components/schemas/";

const Json& Resolve(const Json& schema, const Json& schemas) {
  if (!schema.contains("$ref")) return schema;
  const std::string ref = schema["$ref"].get<std::string>();
  EXPECT_EQ(ref.rfind(kRefPrefix, 0), 0u) << ref;
  return schemas.at(ref.substr(sizeof(kRefPrefix) - 1));
}

// Appends to `problems` where `value` (at `where`) departs from `schema`.
void Check(const Json& value, const Json& raw_schema, const Json& schemas, const std::string& where,
           std::vector<std::string>& problems) {
  const Json& schema = Resolve(raw_schema, schemas);
  if (!schema.contains("type")) {
    problems.push_back(where + ": schema without a type");
    return;
  }
  const std::string type = schema["type"].get<std::string>();
  if (value.is_null()) {
    if (!schema.value("nullable", false)) problems.push_back(where + ": null, not nullable");
    return;
  }
  const bool fits =
      (type == "string" && value.is_string()) || (type == "integer" && value.is_number_integer()) ||
      (type == "number" && value.is_number()) || (type == "boolean" && value.is_boolean()) ||
      (type == "array" && value.is_array()) || (type == "object" && value.is_object());
  if (!fits) {
    problems.push_back(where + ": " + value.type_name() + ", declared " + type);
    return;
  }
  if (type == "array") {
    for (size_t i = 0; i < value.size(); ++i) {
      Check(value[i], schema["items"], schemas, where + "[" + std::to_string(i) + "]", problems);
    }
  } else if (type == "object") {
    const Json& properties = schema["properties"];
    for (const auto& [key, v] : value.items()) {
      if (!properties.contains(key)) {
        problems.push_back(where + "." + key + ": not declared");
        continue;
      }
      Check(v, properties[key], schemas, where + "." + key, problems);
    }
  }
}

std::string Documented(const std::string& route_pattern) {
  // Lists are documented with slurmrestd's trailing slash.
  return route_pattern.find('{') == std::string::npos ? route_pattern + "/" : route_pattern;
}

class OpenApiTest : public SlurmdbApiTest {
 protected:
  OpenApiTest() : part_(OpenApiSlurmdbPart()) {
    AnswerEntities(SampleEntities());
    wire::AccountingJob killed = FinishedJob(8);
    killed.set_exit_code(SIGKILL);
    killed.set_cancelled(true);
    killed.set_array_job_id(8);
    killed.set_array_task_id(3);
    wire::AccountingJob pending = FinishedJob(9);
    pending.clear_steps();
    pending.set_batch(false);
    pending.set_start_time(0);
    pending.set_end_time(0);
    pending.set_nodelist("");
    pending.set_alloc_tres("");
    pending.set_time_limit_s(-1);
    AnswerJobs({FinishedJob(7), killed, pending});
  }

  // The problems of `r` against the documented answer of `documented_path`.
  std::vector<std::string> Problems(const std::string& documented_path, const HttpResponse& r) {
    const Json& get = part_["paths"][documented_path]["get"];
    const char* which = r.status == 200 ? "200" : "default";
    const Json& schema = get["responses"][which]["content"]["application/json"]["schema"];
    std::vector<std::string> problems;
    Check(Body(r), schema, part_["schemas"], documented_path, problems);
    return problems;
  }

  Json part_;
};

TEST_F(OpenApiTest, EveryRouteIsDocumentedAndEveryDocumentedPathRouted) {
  std::set<std::string> routed, operation_ids;
  for (const Route& route : router_.routes()) routed.insert(Documented(route.pattern));
  std::set<std::string> documented;
  for (const auto& [path, item] : part_["paths"].items()) {
    documented.insert(path);
    ASSERT_TRUE(item.contains("get")) << path;
    const std::string id = item["get"]["operationId"].get<std::string>();
    EXPECT_EQ(id.rfind("slurmdbd_get_", 0), 0u) << id;
    EXPECT_TRUE(operation_ids.insert(id).second) << "twice: " << id;
    for (const Json& p : item["get"]["parameters"]) {
      if (p["in"] != "path") continue;
      EXPECT_NE(path.find("{" + p["name"].get<std::string>() + "}"), std::string::npos) << path;
    }
  }
  EXPECT_EQ(routed, documented);
  EXPECT_EQ(routed.size(), 9u);
}

TEST_F(OpenApiTest, EveryAnswerAgreesWithItsSchema) {
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"/slurmdb/v0.0.38/jobs/", "/slurmdb/v0.0.38/jobs"},
      {"/slurmdb/v0.0.38/job/{job_id}", "/slurmdb/v0.0.38/job/8"},
      {"/slurmdb/v0.0.38/associations/", "/slurmdb/v0.0.38/associations"},
      {"/slurmdb/v0.0.38/accounts/", "/slurmdb/v0.0.38/accounts"},
      {"/slurmdb/v0.0.38/account/{account_name}", "/slurmdb/v0.0.38/account/root"},
      {"/slurmdb/v0.0.38/users/", "/slurmdb/v0.0.38/users"},
      {"/slurmdb/v0.0.38/user/{user_name}", "/slurmdb/v0.0.38/user/alice"},
      {"/slurmdb/v0.0.38/qos/", "/slurmdb/v0.0.38/qos"},
      {"/slurmdb/v0.0.38/qos/{qos_name}", "/slurmdb/v0.0.38/qos/high"},
  };
  for (const auto& [documented, path] : calls) {
    HttpResponse r = Get(path);
    ASSERT_EQ(r.status, 200) << path << ": " << r.body;
    EXPECT_EQ(Problems(documented, r), std::vector<std::string>()) << path;
  }
  // The checker does catch a field the schema leaves out.
  HttpResponse r = Get("/slurmdb/v0.0.38/qos/high");
  Json body = Body(r);
  body["qos"][0]["limits"]["undeclared"] = 1;
  body["qos"][0]["priority"] = nullptr;
  r.body = body.dump();
  EXPECT_EQ(Problems("/slurmdb/v0.0.38/qos/{qos_name}", r).size(), 2u);
}

TEST_F(OpenApiTest, RefusalsAgreeWithTheErrorSchema) {
  HttpResponse r = Get("/slurmdb/v0.0.38/jobs", {{"start_time", "abc"}});
  ASSERT_EQ(r.status, 400);
  EXPECT_EQ(Problems("/slurmdb/v0.0.38/jobs/", r), std::vector<std::string>());
  r = Get("/slurmdb/v0.0.38/user/nobody");
  ASSERT_EQ(r.status, 404);
  EXPECT_EQ(Problems("/slurmdb/v0.0.38/user/{user_name}", r), std::vector<std::string>());
}

}  // namespace
}  // namespace rota::rest
