#pragma once

// What the /slurmdb/v0.0.38 tests share: the routes over a FakeBackend of
// cluster "c1", a small accounting tree and job records to answer with.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "accounting_admin.pb.h"
#include "api/dbd_methods.h"
#include "rest/fake_backend_for_test.h"
#include "rest/rest_json.h"
#include "rest/rest_router.h"
#include "rest/slurmdb_api.h"

namespace rota::rest {

inline wire::AcctEntity Entity(const std::string& kind, const std::string& name,
                               const std::map<std::string, std::string>& fields = {}) {
  wire::AcctEntity e;
  e.set_kind(kind);
  e.set_name(name);
  for (const auto& [k, v] : fields) (*e.mutable_fields())[k] = v;
  return e;
}

using EntitiesByKind = std::map<std::string, std::vector<wire::AcctEntity>>;

// root (QOS normal) > physics (QOS high,normal; DefaultQOS normal; limits)
// > theory; users alice (physics and theory, default physics) and bob
// (Operator, root); QOS normal and high.
inline EntitiesByKind SampleEntities() {
  EntitiesByKind e;
  e["account"] = {
      Entity("account", "physics",
             {{"Parent", "root"},
              {"Description", "physics dept"},
              {"Organization", "science"},
              {"QOS", "high,normal"},
              {"DefaultQOS", "normal"},
              {"GrpJobs", "10"},
              {"GrpTRES", "cpu=100"},
              {"MaxWall", "1-00:00:00"},
              {"Fairshare", "40"}}),
      Entity(
          "account", "root",
          {{"Description", "default root account"}, {"Organization", "root"}, {"QOS", "normal"}}),
      Entity("account", "theory", {{"Parent", "physics"}, {"Fairshare", "parent"}}),
  };
  e["user"] = {
      Entity("user", "alice", {{"DefaultAccount", "physics"}, {"AdminLevel", "None"}}),
      Entity("user", "bob", {{"DefaultAccount", "root"}, {"AdminLevel", "Operator"}}),
  };
  e["assoc"] = {
      Entity("assoc", "physics|alice",
             {{"Account", "physics"}, {"User", "alice"}, {"MaxJobs", "5"}, {"Priority", "7"}}),
      Entity("assoc", "root|bob", {{"Account", "root"}, {"User", "bob"}}),
      Entity("assoc", "theory|alice", {{"Account", "theory"}, {"User", "alice"}}),
  };
  e["qos"] = {
      Entity("qos", "high",
             {{"Description", "urgent work"},
              {"Priority", "100"},
              {"MaxWall", "2:00:00"},
              {"MaxJobsPerUser", "4"},
              {"MaxSubmitJobsPerUser", "8"},
              {"MaxTRESPerUser", "cpu=64,gres/gpu=4"},
              {"GrpTRES", "cpu=256"},
              {"Flags", "DenyOnLimit,NoDecay"},
              {"Preempt", "normal"},
              {"PreemptMode", "REQUEUE"},
              {"PreemptExemptTime", "00:10:00"},
              {"GraceTime", "00:02:00"},
              {"UsageFactor", "2.5"}}),
      Entity("qos", "normal", {{"Description", "Normal QOS default"}}),
  };
  return e;
}

// A finished job of alice's in gpu with a batch step and step 0.
inline wire::AccountingJob FinishedJob(uint32_t id) {
  wire::AccountingJob j;
  j.set_job_id(id);
  j.set_name("train");
  j.set_user("alice");
  j.set_uid(1000);
  j.set_gid(0);
  j.set_account("physics");
  j.set_partition("gpu");
  j.set_qos("normal");
  j.set_cluster("c1");
  j.set_state(wire::JOB_STATE_COMPLETED);
  j.set_ended(true);
  j.set_submit_time(1000);
  j.set_eligible_time(1000);
  j.set_start_time(1010);
  j.set_end_time(1110);
  j.set_alloc_cpus(16);
  j.set_alloc_nodes(2);
  j.set_nodelist("n[1-2]");
  j.set_alloc_tres("billing=16,cpu=16,gres/gpu=4,mem=32G,node=2");
  j.set_req_tres("cpu=16,gres/gpu=4,mem=32G,node=2");
  j.set_req_mem_mb(32768);
  j.set_time_limit_s(3600);
  j.set_reason("None");
  j.set_work_dir("/home/alice");
  j.set_wckey("proj");
  j.set_batch(true);
  j.set_batch_cpus(8);
  j.set_batch_tres("cpu=8,mem=16G,node=1");
  j.mutable_batch_usage()->set_max_rss_kb(1024);
  j.mutable_batch_usage()->set_max_rss_node("n1");
  j.mutable_batch_usage()->set_tasks(1);
  wire::AccountingStep* s = j.add_steps();
  s->set_step_id(0);
  s->set_name("python3");
  s->set_state(wire::JOB_STATE_COMPLETED);
  s->set_start_time(1020);
  s->set_end_time(1030);
  s->set_nodelist("n2");
  s->set_alloc_nodes(1);
  s->set_alloc_tres("cpu=8,node=1");
  return j;
}

class SlurmdbApiTest : public ::testing::Test {
 protected:
  SlurmdbApiTest() : backend_(Config()) { AddSlurmdbRoutes(router_); }

  static std::shared_ptr<const conf::ClusterConfig> Config() {
    auto c = std::make_shared<conf::ClusterConfig>();
    c->settings.cluster_name = "c1";
    return c;
  }

  HttpResponse Get(const std::string& path, const std::map<std::string, std::string>& query = {}) {
    HttpRequest r;
    r.method = "GET";
    r.path = path;
    r.query = query;
    Router::Match m = router_.Find("GET", path);
    if (m.route == nullptr) {
      ADD_FAILURE() << "no route for " << path;
      HttpResponse none;
      none.status = 404;
      return none;
    }
    return m.route->handler(r, m.params, backend_);
  }

  static Json Body(const HttpResponse& r) { return Json::parse(r.body); }

  // Answers kDbdListEntities from `entities`, by kind and names as rotadbd.
  void AnswerEntities(EntitiesByKind entities) {
    backend_.AnswerAccounting(api::kDbdListEntities,
                              [entities](const std::string& bytes) -> Result<std::string> {
                                wire::ListEntitiesRequest req;
                                if (!req.ParseFromString(bytes))
                                  return InvalidArgument("malformed request");
                                wire::ListEntitiesResponse resp;
                                auto it = entities.find(req.kind());
                                if (it == entities.end()) return resp.SerializeAsString();
                                for (const wire::AcctEntity& e : it->second) {
                                  bool named = req.names().empty();
                                  for (const std::string& n : req.names())
                                    named = named || n == e.name();
                                  if (named) *resp.add_entities() = e;
                                }
                                return resp.SerializeAsString();
                              });
  }

  void AnswerJobs(const std::vector<wire::AccountingJob>& jobs) {
    wire::QueryJobsResponse resp;
    for (const wire::AccountingJob& j : jobs) *resp.add_jobs() = j;
    backend_.AnswerAccounting(api::kDbdQueryJobs, resp);
  }

  // The one QueryJobsRequest the routes sent.
  wire::QueryJobsRequest SentJobsQuery() {
    wire::QueryJobsRequest req;
    EXPECT_EQ(backend_.accounting_calls.size(), 1u);
    if (backend_.accounting_calls.empty()) return req;
    EXPECT_EQ(backend_.accounting_calls[0].method, api::kDbdQueryJobs);
    EXPECT_TRUE(req.ParseFromString(backend_.accounting_calls[0].request_bytes));
    return req;
  }

  // Every kDbdListEntities request sent, in order.
  std::vector<wire::ListEntitiesRequest> SentListRequests() {
    std::vector<wire::ListEntitiesRequest> out;
    for (const FakeBackend::Call& c : backend_.accounting_calls) {
      if (c.method != api::kDbdListEntities) continue;
      out.emplace_back().ParseFromString(c.request_bytes);
    }
    return out;
  }

  // The answer is a refusal: `status`, one error with `slurm_errno`.
  static void ExpectError(const HttpResponse& r, int status, int slurm_errno,
                          const std::string& message_part) {
    EXPECT_EQ(r.status, status) << r.body;
    Json body = Json::parse(r.body);
    ASSERT_EQ(body["errors"].size(), 1u) << r.body;
    EXPECT_EQ(body["errors"][0]["errno"], slurm_errno) << r.body;
    EXPECT_NE(body["errors"][0]["error"].get<std::string>().find(message_part), std::string::npos)
        << r.body;
    EXPECT_EQ(body["meta"]["plugin"]["type"], "openapi/dbv0.0.38");
  }

  Router router_;
  FakeBackend backend_;
};

}  // namespace rota::rest
