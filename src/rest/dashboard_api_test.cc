#include "rest/dashboard_api.h"

#include <gtest/gtest.h>

#include "api/methods.h"
#include "diag.pb.h"
#include "priority.pb.h"
#include "rest/dashboard_files.h"
#include "rest/fake_backend_for_test.h"
#include "rest/openapi_check_for_test.h"
#include "rest/openapi_document.h"

namespace rota::rest {
namespace {

wire::NodeInfo Node(const std::string& name, const std::string& state, const std::string& gres,
                    const std::string& used = "") {
  wire::NodeInfo n;
  n.mutable_record()->set_name(name);
  n.mutable_record()->set_state(state);
  n.set_cpus(8);
  n.set_gres(gres);
  n.set_gres_used(used);
  return n;
}

wire::JobRecord RunningOn(uint32_t id, const std::string& user, const std::string& node,
                          const std::string& gpu_ids) {
  wire::JobRecord j;
  j.set_job_id(id);
  j.set_state(wire::JOB_STATE_RUNNING);
  j.mutable_spec()->set_user(user);
  j.add_nodes(node);
  j.add_allocs()->set_gpu_ids(gpu_ids);
  return j;
}

std::vector<std::string> States(const Json& cells) {
  std::vector<std::string> out;
  for (const Json& c : cells) out.push_back(c["state"]);
  return out;
}

TEST(GpuCellsTest, EachGpuByIndexWithItsHolderTypeAndState) {
  wire::ListJobsResponse jobs;
  *jobs.add_jobs() = RunningOn(7, "alice", "g1", "0,2-3");
  *jobs.add_jobs() = RunningOn(8, "bob", "g2", "0");  // another node
  Json cells = GpuCells(Node("g1", "MIXED", "gpu:a100:2(S:0),gpu:t4:3(S:1)"), jobs);
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(States(cells),
            (std::vector<std::string>{"allocated", "idle", "allocated", "allocated", "idle"}));
  EXPECT_EQ(cells[0]["type"], "a100");
  EXPECT_EQ(cells[2]["type"], "t4");
  EXPECT_EQ(cells[3]["job_id"], 7);
  EXPECT_EQ(cells[3]["user"], "alice");
  EXPECT_TRUE(cells[1]["job_id"].is_null());
}

TEST(GpuCellsTest, HiddenJobsStillShowAsAllocatedAndUnusableNodesAsDown) {
  wire::ListJobsResponse none;  // PrivateData hid the holder's job
  Json cells = GpuCells(Node("g1", "MIXED", "gpu:a100:4", "gpu:a100:2(IDX:1,3)"), none);
  EXPECT_EQ(States(cells), (std::vector<std::string>{"idle", "allocated", "idle", "allocated"}));
  EXPECT_TRUE(cells[1]["job_id"].is_null());
  EXPECT_EQ(States(GpuCells(Node("g2", "IDLE+DRAIN", "gpu:a100:2"), none)),
            (std::vector<std::string>{"down", "down"}));
  EXPECT_EQ(States(GpuCells(Node("g3", "DOWN*", "gpu:2"), none)),
            (std::vector<std::string>{"down", "down"}));
  EXPECT_EQ(States(GpuCells(Node("g4", "IDLE+MAINT", "gpu:2"), none)),
            (std::vector<std::string>{"reserved", "reserved"}));
  EXPECT_TRUE(GpuCells(Node("c1", "IDLE", ""), none).empty());
}

TEST(ReasonInWordsTest, NamesTheCommonReasonsAndKeepsUnknownOnes) {
  EXPECT_NE(ReasonInWords("Resources").find("waiting for resources"), std::string::npos);
  EXPECT_NE(ReasonInWords("JobHeldUser").find("held by its user"), std::string::npos);
  EXPECT_NE(ReasonInWords("QOSGrpGRES").find("QOSGrpGRES"), std::string::npos);
  EXPECT_EQ(ReasonInWords("None"), "");
  EXPECT_EQ(ReasonInWords("SomethingNew"), "SomethingNew");
}

TEST(DashboardRouteTest, OneAnswerWithNodesJobsAndTheSchedulerInTheDocumentedShape) {
  Router router;
  AddDashboardRoutes(router);
  FakeBackend backend;
  wire::ListJobsResponse jobs;
  jobs.set_now(1000);
  *jobs.add_jobs() = RunningOn(7, "alice", "g1", "1");
  jobs.mutable_jobs(0)->set_gpu_idle_since(900);
  jobs.mutable_jobs(0)->set_gpu_idle_util(2.5);
  wire::JobRecord pending;
  pending.set_job_id(9);
  pending.set_state(wire::JOB_STATE_PENDING);
  pending.set_reason("Priority");
  pending.set_sched_start_time(5000);
  pending.set_sched_nodes("g1");
  *jobs.add_jobs() = pending;
  backend.AnswerController(api::kListJobs, jobs);
  wire::ListNodesResponse nodes;
  *nodes.add_nodes() = Node("g1", "MIXED", "gpu:a100:2");
  backend.AnswerController(api::kListNodes, nodes);
  wire::DiagResponse diag;
  diag.set_schedule_queue_len(4);
  backend.AnswerController(api::kDiag, diag);
  wire::PriorityResponse priority;
  wire::PriorityRow* row = priority.add_rows();
  row->set_job_id(9);
  row->mutable_weighted()->set_age(120);
  backend.AnswerController(api::kListPriorities, priority);

  Router::Match m = router.Find("GET", "/rota/v1/dashboard");
  ASSERT_NE(m.route, nullptr);
  HttpResponse r = m.route->handler({}, m.params, backend);
  ASSERT_EQ(r.status, 200) << r.body;
  Json answer = Json::parse(r.body);
  EXPECT_EQ(answer["user"], "alice");
  EXPECT_EQ(answer["nodes"][0]["gpu_cells"][1]["job_id"], 7);
  EXPECT_EQ(answer["jobs"][1]["planned_start"], 5000);
  EXPECT_EQ(answer["jobs"][0]["gpu_idle_since"], 900);
  EXPECT_EQ(answer["jobs"][0]["gpu_idle_util"], 2.5);
  EXPECT_EQ(answer["jobs"][1]["gpu_idle_since"], 0);
  EXPECT_EQ(answer["jobs"][1]["priority_factors"]["age"], 120.0);
  EXPECT_TRUE(answer["jobs"][0]["priority_factors"].is_null());
  EXPECT_EQ(answer["scheduler"]["queue_length"], 4);
  std::vector<std::string> problems =
      CheckAnswer(OpenApiDocument(), "/rota/v1/dashboard", "get", answer);
  EXPECT_TRUE(problems.empty()) << problems.front();

  // A controller out of reach is an error, not an empty picture.
  FakeBackend down;
  EXPECT_EQ(m.route->handler({}, m.params, down).status, 503);
}

TEST(DashboardFilesTest, ThePageScriptAndStyleAreCompiledIn) {
  ASSERT_NE(FindDashboardFile("index.html"), nullptr);
  EXPECT_NE(FindDashboardFile("index.html")->body.find("/dashboard.js"), std::string::npos);
  EXPECT_EQ(FindDashboardFile("dashboard.js")->content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(FindDashboardFile("dashboard.js")->body.find("/rota/v1/dashboard"), std::string::npos);
  EXPECT_EQ(FindDashboardFile("nope.js"), nullptr);
  Router router;
  AddDashboardRoutes(router);
  FakeBackend backend;
  Router::Match root = router.Find("GET", "/");
  ASSERT_NE(root.route, nullptr);
  HttpResponse page = root.route->handler({}, root.params, backend);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_TRUE(backend.controller_calls.empty());
}

}  // namespace
}  // namespace rota::rest
