#include "rest/slurm_api.h"

#include <gtest/gtest.h>

#include "api/methods.h"
#include "rest/fake_backend_for_test.h"
#include "rest/openapi_check_for_test.h"
#include "rest/openapi_document.h"

namespace rota::rest {
namespace {

constexpr int64_t kNow = 1'800'000'000;

TEST(JobPropertiesTest, BecomeSbatchOptions) {
  Json job = {{"account", "physics"},     {"tasks", 4},
              {"nodes", {2, 3}},          {"hold", true},
              {"requeue", false},         {"exclusive", "user"},
              {"time_limit", 90},         {"gpus_per_node", "a100:2"},
              {"begin_time", kNow + 600}, {"environment", {{"A", "1"}}}};
  auto options = JobPropertiesAsOptions(job, kNow);
  ASSERT_TRUE(options.ok()) << options.status().message();
  std::vector<std::string> want = {"--account=physics",
                                   "--begin=now+600",
                                   "--exclusive=user",
                                   "--gpus-per-node=a100:2",
                                   "--hold",
                                   "--no-requeue",
                                   "--nodes=2-3",
                                   "--ntasks=4",
                                   "--time=90"};
  std::vector<std::string> got = *options;
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
}

TEST(JobPropertiesTest, RefuseUnknownNamesAndWrongTypes) {
  EXPECT_NE(JobPropertiesAsOptions({{"colour", "blue"}}, kNow).status().message().find("colour"),
            std::string::npos);
  EXPECT_FALSE(JobPropertiesAsOptions({{"hold", "yes"}}, kNow).ok());
  EXPECT_FALSE(JobPropertiesAsOptions({{"tasks", Json::array()}}, kNow).ok());
  EXPECT_FALSE(JobPropertiesAsOptions({{"nodes", {1, 2, 3}}}, kNow).ok());
  EXPECT_FALSE(JobPropertiesAsOptions({{"exclusive", "sometimes"}}, kNow).ok());
  // A begin time already past asks for nothing.
  EXPECT_TRUE(JobPropertiesAsOptions({{"begin_time", kNow - 5}}, kNow)->empty());
}

TEST(NodeJsonTest, StateSplitsIntoBaseAndFlags) {
  wire::NodeInfo n;
  n.mutable_record()->set_name("gpu01");
  n.mutable_record()->set_state("MIXED+DRAIN*");
  n.mutable_record()->set_not_responding(true);
  n.set_cpus(8);
  n.set_alloc_cpus(3);
  n.set_gres("gpu:a100:4(S:0-1)");
  n.set_gres_used("gpu:a100:2(IDX:0-1)");
  Json node = NodeJson(n);
  EXPECT_EQ(node["state"], "mixed");
  EXPECT_EQ(node["state_flags"], Json::array({"DRAIN", "NOT_RESPONDING"}));
  EXPECT_EQ(node["idle_cpus"], 5);
  EXPECT_EQ(node["tres"], "cpu=8,mem=0M,billing=8,gres/gpu=4");
  EXPECT_EQ(node["tres_used"], "cpu=3,mem=0M,billing=3,gres/gpu=2");
  n.set_gres("gpu:a100:2(S:0),gpu:t4:1(S:1)");
  EXPECT_EQ(NodeJson(n)["tres"], "cpu=8,mem=0M,billing=8,gres/gpu=3");
  Json answer = Envelope(ApiFlavor::kSlurm);
  answer["nodes"] = Json::array({node});
  EXPECT_TRUE(CheckAnswer(OpenApiDocument(), "/slurm/v0.0.38/nodes/", "get", answer).empty());
}

TEST(SlurmRoutesTest, CancelAndUpdateSendWhatScancelAndScontrolWould) {
  Router router;
  AddSlurmRoutes(router);
  FakeBackend backend;
  wire::SignalJobsResponse signalled;
  backend.AnswerController(api::kSignalJobs, signalled);
  HttpRequest req;
  req.query["signal"] = "USR1";
  Router::Match m = router.Find("DELETE", "/slurm/v0.0.38/job/7");
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(m.route->handler(req, m.params, backend).status, 200);
  wire::SignalJobsRequest sent;
  ASSERT_TRUE(sent.ParseFromString(backend.controller_calls.back().request_bytes));
  EXPECT_EQ(sent.job_ids(0), "7");
  EXPECT_EQ(sent.signal(), 10);
  req.query["signal"] = "NOSUCH";
  EXPECT_EQ(m.route->handler(req, m.params, backend).status, 400);
  // The controller's per-job refusal is an error of the answer.
  signalled.add_errors("Access/permission denied for job 7");
  backend.AnswerController(api::kSignalJobs, signalled);
  req.query.erase("signal");
  HttpResponse denied = m.route->handler(req, m.params, backend);
  EXPECT_EQ(denied.status, 500);
  EXPECT_EQ(Json::parse(denied.body)["errors"][0]["errno"], kEslurmAccessDenied);

  backend.AnswerController(api::kUpdateJob, wire::UpdateJobResponse());
  Router::Match u = router.Find("POST", "/slurm/v0.0.38/job/7");
  HttpRequest update;
  update.body = R"({"job": {"time_limit": 30, "hold": true, "name": "n"}})";
  EXPECT_EQ(u.route->handler(update, u.params, backend).status, 200);
  wire::UpdateJobRequest changed;
  ASSERT_TRUE(changed.ParseFromString(backend.controller_calls.back().request_bytes));
  EXPECT_EQ(changed.fields().at("TimeLimit"), "30");
  EXPECT_EQ(changed.fields().at("Name"), "n");
  EXPECT_EQ(changed.action(), "hold");
  update.body = "{}";
  EXPECT_EQ(u.route->handler(update, u.params, backend).status, 400);
}

TEST(SlurmRoutesTest, AControllerOutOfReachIsAJsonError) {
  Router router;
  AddSlurmRoutes(router);
  FakeBackend backend;  // Answers nothing: every call is kUnavailable.
  for (const char* path : {"/slurm/v0.0.38/jobs", "/slurm/v0.0.38/nodes",
                           "/slurm/v0.0.38/partitions", "/slurm/v0.0.38/diag"}) {
    Router::Match m = router.Find("GET", path);
    ASSERT_NE(m.route, nullptr) << path;
    HttpResponse r = m.route->handler({}, m.params, backend);
    EXPECT_EQ(r.status, 503) << path;
    EXPECT_FALSE(Json::parse(r.body)["errors"].empty()) << path;
  }
  // ping answers DOWN rather than failing.
  Router::Match ping = router.Find("GET", "/slurm/v0.0.38/ping");
  auto config = std::make_shared<conf::ClusterConfig>();
  config->settings.controllers.push_back({});
  config->settings.controllers.back().name = "ctl";
  FakeBackend with_host(config);
  Json answer = Json::parse(ping.route->handler({}, ping.params, with_host).body);
  EXPECT_EQ(answer["pings"][0]["ping"], "DOWN");
  EXPECT_EQ(answer["pings"][0]["hostname"], "ctl");
}

}  // namespace
}  // namespace rota::rest
