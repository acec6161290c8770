#include "rest/rest_router.h"

#include <gtest/gtest.h>

#include "rest/fake_backend_for_test.h"
#include "rest/openapi_check_for_test.h"
#include "rest/openapi_document.h"
#include "rest/rest_json.h"

namespace rota::rest {
namespace {

HttpResponse Named(std::string name) {
  HttpResponse r;
  r.body = std::move(name);
  return r;
}

TEST(RestRouterTest, MatchesPatternsWithParametersAndOptionalTrailingSlash) {
  Router router;
  router.Add("POST", "/slurm/v0.0.38/job/submit",
             [](const HttpRequest&, const PathParams&, Backend&) { return Named("submit"); });
  router.Add(
      "GET", "/slurm/v0.0.38/job/{job_id}",
      [](const HttpRequest&, const PathParams& p, Backend&) { return Named(p.at("job_id")); });
  router.Add("GET", "/slurm/v0.0.38/jobs/",
             [](const HttpRequest&, const PathParams&, Backend&) { return Named("jobs"); });
  FakeBackend backend;
  auto run = [&](const char* method, const char* path) {
    Router::Match m = router.Find(method, path);
    return m.route ? m.route->handler({}, m.params, backend).body : std::string("none");
  };
  EXPECT_EQ(run("GET", "/slurm/v0.0.38/job/42"), "42");
  EXPECT_EQ(run("GET", "/slurm/v0.0.38/job/42/"), "42");
  EXPECT_EQ(run("GET", "/slurm/v0.0.38/jobs"), "jobs");
  EXPECT_EQ(run("GET", "/slurm/v0.0.38/jobs/"), "jobs");
  EXPECT_EQ(run("POST", "/slurm/v0.0.38/job/submit"), "submit");
  EXPECT_EQ(run("GET", "/slurm/v0.0.38/job/"), "none");
  EXPECT_EQ(run("GET", "/slurm/v0.0.38/job/1/2"), "none");
  Router::Match wrong_method = router.Find("DELETE", "/slurm/v0.0.38/jobs");
  EXPECT_EQ(wrong_method.route, nullptr);
  EXPECT_TRUE(wrong_method.path_known);
  EXPECT_FALSE(router.Find("GET", "/nowhere").path_known);
}

TEST(RestJsonTest, ErrorsCarryMetaAndSlurmErrorNumbers) {
  HttpResponse r = StatusAnswer(ApiFlavor::kSlurmdb, Status(StatusCode::kPermissionDenied, "no"));
  EXPECT_EQ(r.status, 403);
  Json body = Json::parse(r.body);
  EXPECT_EQ(body["meta"]["plugin"]["type"], "openapi/dbv0.0.38");
  EXPECT_EQ(body["errors"][0]["error"], "no");
  EXPECT_EQ(body["errors"][0]["errno"], kEslurmAccessDenied);
  EXPECT_EQ(StatusAnswer(ApiFlavor::kSlurm, Status(StatusCode::kNotFound, "x"), 2017).status, 404);
  EXPECT_EQ(StatusAnswer(ApiFlavor::kSlurm, Status(StatusCode::kUnavailable, "x")).status, 503);
  EXPECT_EQ(StatusAnswer(ApiFlavor::kSlurm, Status(StatusCode::kInvalidArgument, "x")).status, 400);
  HttpRequest req;
  req.body = "[1, 2]";
  EXPECT_FALSE(ParseJsonBody(req).ok());
  req.body = "{\"a\": 1";
  EXPECT_FALSE(ParseJsonBody(req).ok());
  req.body = "{\"a\": 1}";
  EXPECT_TRUE(ParseJsonBody(req).ok());
}

// The checker the integration tests rely on finds what it must.
TEST(OpenApiCheckTest, FindsUndeclaredFieldsWrongTypesAndNulls) {
  Json doc = OpenApiDocument();
  Json job = {{"job_id", 5}, {"job_state", "RUNNING"}, {"time_limit", nullptr}};
  Json answer = Envelope(ApiFlavor::kSlurm);
  answer["jobs"] = Json::array({job});
  EXPECT_TRUE(CheckAnswer(doc, "/slurm/v0.0.38/jobs/", "get", answer).empty());

  answer["jobs"][0]["colour"] = "blue";
  answer["jobs"][0]["job_id"] = "5";
  answer["jobs"][0]["job_state"] = nullptr;
  std::vector<std::string> problems = CheckAnswer(doc, "/slurm/v0.0.38/jobs/", "get", answer);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0], "jobs[0].job_id: string where integer");
  EXPECT_EQ(problems[1], "jobs[0].job_state: null where not nullable");
  EXPECT_EQ(problems[2], "jobs[0].colour: not declared in the document");
  EXPECT_EQ(CheckAnswer(doc, "/slurm/v0.0.38/nowhere", "get", answer).size(), 1u);
}

}  // namespace
}  // namespace rota::rest
