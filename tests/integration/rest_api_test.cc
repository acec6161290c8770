// rotarestd against real daemons: rotactld, two rotad and rotadbd, with
// AuthAltTypes=auth/jwt. Tokens come from `scontrol token`; what the API
// answers is compared with what squeue and sinfo print, and every answer is
// checked against the OpenAPI document the daemon serves.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fstream>
#include <set>

#include "common/strings.h"
#include "rest/rest_service.h"
#include "tests/integration/rest_cluster_test.h"
#include "tests/integration/test_user.h"

namespace rota::testing {
namespace {

class RestApiTest : public RestClusterTest {};

TEST_F(RestApiTest, TokensFromScontrolOpenTheApiAndNothingElseDoes) {
  HttpAnswer ping = Get("/slurm/v0.0.38/ping");
  ASSERT_EQ(ping.status, 200) << ping.body;
  Json p = ping.Json();
  EXPECT_EQ(p["meta"]["plugin"]["type"], "openapi/v0.0.38");
  EXPECT_EQ(p["meta"]["Slurm"]["release"], "22.05.8");
  ASSERT_EQ(p["pings"].size(), 1u);
  EXPECT_EQ(p["pings"][0]["ping"], "UP");
  EXPECT_EQ(p["pings"][0]["mode"], "primary");
  ExpectFits("/slurm/v0.0.38/ping/", "get", ping);

  // No token, a wrong one, one for someone else, one made with another key.
  HttpAnswer none = HttpCall({rest_port_, ""}, "GET", "/slurm/v0.0.38/ping");
  EXPECT_EQ(none.status, 401) << none.body;
  EXPECT_NE(none.Json()["errors"][0]["error"].get<std::string>().find("X-SLURM-USER-TOKEN"),
            std::string::npos);
  HttpAnswer garbage =
      HttpCall({rest_port_, ""}, "GET", "/slurm/v0.0.38/diag", As("root", "not-a-token"));
  EXPECT_EQ(garbage.status, 403) << garbage.body;
  const std::string forged =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
      "eyJleHAiOjQxMDI0NDQ4MDAsImlhdCI6MTcwMDAwMDAwMCwic3VuIjoicm9vdCJ9."
      "c2lnbmVkIHdpdGggYW5vdGhlciBrZXk";
  EXPECT_EQ(HttpCall({rest_port_, ""}, "GET", "/slurm/v0.0.38/diag", As("root", forged)).status,
            403);

  // scontrol token: lifespan and username as Slurm's; only root may name others.
  EXPECT_FALSE(Token("lifespan=60").empty());
  EXPECT_TRUE(Token("lifespan=abc").empty());
  EXPECT_TRUE(Token("colour=blue").empty());
  TestUser user("rst", "tok");
  ASSERT_TRUE(user.ok());
  CommandResult as_user =
      RunShell(user.Line(cluster_->conf(), "scontrol token username=root") + " 2>&1");
  EXPECT_NE(as_user.exit_code, 0) << as_user.out;
  EXPECT_NE(as_user.out.find("only root and SlurmUser"), std::string::npos) << as_user.out;
  CommandResult own = RunShell(user.Line(cluster_->conf(), "scontrol token") + " 2>&1");
  EXPECT_EQ(own.exit_code, 0) << own.out;
  const std::string user_token = std::string(Trim(own.out)).substr(10);
  // The user's token acts for the user, not for root.
  EXPECT_EQ(HttpCall({rest_port_, ""}, "GET", "/slurm/v0.0.38/diag", As("root", user_token)).status,
            403);
  EXPECT_EQ(
      HttpCall({rest_port_, ""}, "GET", "/slurm/v0.0.38/diag", As(user.name(), user_token)).status,
      200);
}

TEST_F(RestApiTest, SubmittedJobIsListedLikeSqueueAndCancelledWithDelete) {
  HttpAnswer submitted =
      Call("POST", "/slurm/v0.0.38/job/submit",
           SubmitBody("#!/bin/sh\necho \"from rest: $FROM_REST\"\nsleep 60\n",
                      {{"standard_output", cluster_->work_dir() + "/rest.out"}}));
  ASSERT_EQ(submitted.status, 200) << submitted.body;
  ExpectFits("/slurm/v0.0.38/job/submit", "post", submitted);
  const std::string id = std::to_string(submitted.Json()["job_id"].get<uint64_t>());
  EXPECT_EQ(submitted.Json()["step_id"], "BATCH");
  ASSERT_TRUE(WaitForState(id, "RUNNING"));
  ASSERT_TRUE(WaitUntil([&] {
    return ReadFileText(cluster_->work_dir() + "/rest.out").find("from rest: yes") !=
           std::string::npos;
  }));

  HttpAnswer one = Get("/slurm/v0.0.38/job/" + id);
  ASSERT_EQ(one.status, 200) << one.body;
  ExpectFits("/slurm/v0.0.38/job/{job_id}", "get", one);
  const Json one_json = one.Json();
  const Json& job = one_json["jobs"][0];
  CommandResult squeue = cluster_->Run("squeue -h -j " + id + " -o '%i|%T|%j|%N|%P|%u|%l'");
  std::vector<std::string_view> cols = Split(Trim(squeue.out), '|');
  ASSERT_EQ(cols.size(), 7u) << squeue.out;
  EXPECT_EQ(std::to_string(job["job_id"].get<uint64_t>()), cols[0]);
  EXPECT_EQ(job["job_state"], std::string(cols[1]));
  EXPECT_EQ(job["name"], std::string(cols[2]));
  EXPECT_EQ(job["nodes"], std::string(cols[3]));
  EXPECT_EQ(job["partition"], std::string(cols[4]));
  EXPECT_EQ(job["user_name"], std::string(cols[5]));
  EXPECT_EQ(job["time_limit"], 5);
  EXPECT_EQ(cols[6], "5:00");

  HttpAnswer all = Get("/slurm/v0.0.38/jobs");
  ASSERT_EQ(all.status, 200);
  ExpectFits("/slurm/v0.0.38/jobs/", "get", all);
  EXPECT_EQ(all.Json()["jobs"].size(), 1u);

  // A change through POST, then the cancel through DELETE.
  HttpAnswer changed = Call("POST", "/slurm/v0.0.38/job/" + id, R"({"comment": "via rest"})");
  EXPECT_EQ(changed.status, 200) << changed.body;
  ExpectFits("/slurm/v0.0.38/job/{job_id}", "post", changed);
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -j " + id + " -o %k").out), "via rest");
  HttpAnswer refused = Call("POST", "/slurm/v0.0.38/job/" + id, R"({"colour": "blue"})");
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find("colour"), std::string::npos);

  HttpAnswer cancelled = Call("DELETE", "/slurm/v0.0.38/job/" + id);
  EXPECT_EQ(cancelled.status, 200) << cancelled.body;
  ExpectFits("/slurm/v0.0.38/job/{job_id}", "delete", cancelled);
  EXPECT_TRUE(WaitForState(id, "CANCELLED"));
  EXPECT_EQ(Get("/slurm/v0.0.38/job/" + id).Json()["jobs"][0]["job_state"], "CANCELLED");

  HttpAnswer unknown = Get("/slurm/v0.0.38/job/999999");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.Json()["errors"][0]["errno"], 2017);

  // Accounting has it too, once the controller's record reached rotadbd.
  ASSERT_TRUE(WaitUntil([&] {
    HttpAnswer db = Get("/slurmdb/v0.0.38/job/" + id);
    return db.status == 200 && db.Json()["jobs"].size() == 1 &&
           db.Json()["jobs"][0]["state"]["current"] == "CANCELLED";
  })) << Get("/slurmdb/v0.0.38/job/" + id).body;
  ExpectFits("/slurmdb/v0.0.38/job/{job_id}", "get", Get("/slurmdb/v0.0.38/job/" + id));
}

TEST_F(RestApiTest, SubmissionErrorsNameWhatIsWrong) {
  HttpAnswer not_json = Call("POST", "/slurm/v0.0.38/job/submit", "{script:");
  EXPECT_EQ(not_json.status, 400);
  EXPECT_EQ(not_json.Json()["errors"][0]["errno"], 9001);
  HttpAnswer no_env = Call("POST", "/slurm/v0.0.38/job/submit",
                           R"({"script": "#!/bin/sh\ntrue\n", "job": {"name": "x"}})");
  EXPECT_EQ(no_env.status, 400);
  EXPECT_NE(no_env.body.find("environment"), std::string::npos);
  HttpAnswer bad_prop =
      Call("POST", "/slurm/v0.0.38/job/submit", SubmitBody("#!/bin/sh\ntrue\n", {{"colour", 1}}));
  EXPECT_NE(bad_prop.body.find("unknown job property: colour"), std::string::npos) << bad_prop.body;
  HttpAnswer no_shebang = Call("POST", "/slurm/v0.0.38/job/submit", SubmitBody("true\n"));
  EXPECT_EQ(no_shebang.status, 400) << no_shebang.body;
  HttpAnswer bad_partition = Call("POST", "/slurm/v0.0.38/job/submit",
                                  SubmitBody("#!/bin/sh\ntrue\n", {{"partition", "nosuch"}}));
  EXPECT_GE(bad_partition.status, 400);
  EXPECT_NE(bad_partition.body.find("partition"), std::string::npos) << bad_partition.body;
  // Bounds and routing.
  HttpAnswer huge = Call("POST", "/slurm/v0.0.38/job/submit", std::string(70000, ' '));
  EXPECT_EQ(huge.status, 413);
  EXPECT_EQ(Get("/slurm/v0.0.38/nosuch").status, 404);
  EXPECT_EQ(Call("PUT", "/slurm/v0.0.38/jobs").status, 405);
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %i").out), "");
}

TEST_F(RestApiTest, NodesPartitionsAndDiagMatchTheCommands) {
  HttpAnswer nodes = Get("/slurm/v0.0.38/nodes");
  ASSERT_EQ(nodes.status, 200) << nodes.body;
  ExpectFits("/slurm/v0.0.38/nodes/", "get", nodes);
  std::set<std::string> api_nodes, cmd_nodes;
  const Json nodes_json = nodes.Json();
  for (const Json& n : nodes_json["nodes"]) {
    api_nodes.insert(n["name"]);
    EXPECT_EQ(n["state"], "idle") << n.dump();
  }
  const std::string sinfo_nodes = cluster_->Run("sinfo -h -N -o %N").out;
  for (std::string_view line : Split(Trim(sinfo_nodes), '\n')) {
    cmd_nodes.insert(std::string(Trim(line)));
  }
  EXPECT_EQ(api_nodes, cmd_nodes);
  const std::string first = *api_nodes.begin();
  HttpAnswer one = Get("/slurm/v0.0.38/node/" + first);
  ASSERT_EQ(one.status, 200);
  EXPECT_EQ(one.Json()["nodes"].size(), 1u);
  CommandResult cpus = cluster_->Run("sinfo -h -N -n " + first + " -o %c");
  EXPECT_EQ(std::to_string(one.Json()["nodes"][0]["cpus"].get<int>()), Trim(cpus.out));
  EXPECT_EQ(Get("/slurm/v0.0.38/node/nosuch").status, 404);

  HttpAnswer parts = Get("/slurm/v0.0.38/partitions");
  ASSERT_EQ(parts.status, 200);
  ExpectFits("/slurm/v0.0.38/partitions/", "get", parts);
  CommandResult sinfo = cluster_->Run("sinfo -h -o '%R|%D|%N'");
  std::vector<std::string_view> cols = Split(Trim(sinfo.out), '|');
  ASSERT_EQ(cols.size(), 3u) << sinfo.out;
  ASSERT_EQ(parts.Json()["partitions"].size(), 1u);
  const Json parts_json = parts.Json();
  const Json& p = parts_json["partitions"][0];
  EXPECT_EQ(p["name"], std::string(cols[0]));
  EXPECT_EQ(std::to_string(p["total_nodes"].get<int>()), cols[1]);
  EXPECT_EQ(p["nodes"], std::string(cols[2]));
  ExpectFits("/slurm/v0.0.38/partition/{partition_name}", "get",
             Get("/slurm/v0.0.38/partition/" + std::string(cols[0])));

  HttpAnswer diag = Get("/slurm/v0.0.38/diag");
  ASSERT_EQ(diag.status, 200);
  ExpectFits("/slurm/v0.0.38/diag/", "get", diag);
  EXPECT_GE(diag.Json()["statistics"]["schedule_cycle_total"].get<int>(), 0);

  ASSERT_EQ(cluster_
                ->Run("scontrol create reservation ReservationName=maint StartTime=now "
                      "Duration=60 Nodes=" +
                      first + " Users=root Flags=MAINT")
                .exit_code,
            0);
  HttpAnswer resv = Get("/slurm/v0.0.38/reservations");
  ASSERT_EQ(resv.status, 200);
  ExpectFits("/slurm/v0.0.38/reservations/", "get", resv);
  ASSERT_EQ(resv.Json()["reservations"].size(), 1u);
  EXPECT_EQ(resv.Json()["reservations"][0]["name"], "maint");
  EXPECT_EQ(resv.Json()["reservations"][0]["node_list"], first);
  EXPECT_EQ(Get("/slurm/v0.0.38/reservation/nosuch").status, 404);
}

TEST_F(RestApiTest, MetricsAndAccountingEntitiesAnswerInTheirDocumentedShapes) {
  HttpAnswer metrics = Get("/metrics");
  ASSERT_EQ(metrics.status, 200) << metrics.body;
  EXPECT_EQ(metrics.headers["content-type"].rfind("application/openmetrics-text", 0), 0u);
  // Both nodes idle, as sinfo says; the exposition ends as OpenMetrics wants.
  EXPECT_EQ(Trim(cluster_->Run("sinfo -h -o %T").out), "idle");
  EXPECT_NE(metrics.body.find("rota_nodes{state=\"idle\"} 2\n"), std::string::npos) << metrics.body;
  EXPECT_TRUE(metrics.body.ends_with("# EOF\n"));
  EXPECT_EQ(HttpCall({rest_port_, ""}, "GET", "/metrics").status, 401);

  ASSERT_EQ(cluster_->Run("sacctmgr -i add account physics Description=phys").exit_code, 0);
  ASSERT_EQ(cluster_->Run("sacctmgr -i add user root Account=physics").exit_code, 0);
  for (const char* path :
       {"/slurmdb/v0.0.38/accounts/", "/slurmdb/v0.0.38/users/", "/slurmdb/v0.0.38/associations/",
        "/slurmdb/v0.0.38/qos/", "/slurmdb/v0.0.38/jobs/"}) {
    HttpAnswer a = Get(path);
    EXPECT_EQ(a.status, 200) << path << " " << a.body;
    ExpectFits(path, "get", a);
  }
  HttpAnswer account = Get("/slurmdb/v0.0.38/account/physics");
  ASSERT_EQ(account.status, 200) << account.body;
  ExpectFits("/slurmdb/v0.0.38/account/{account_name}", "get", account);
  EXPECT_NE(account.body.find("\"phys\""), std::string::npos) << account.body;
  EXPECT_EQ(Get("/slurmdb/v0.0.38/account/nosuch").status, 404);
}

TEST_F(RestApiTest, UnixSocketServesItsOwnUserWithoutAToken) {
  // The test runs as rotarestd's own user: rest_auth/local lets it in.
  HttpAnswer own = HttpCall({0, socket_path_}, "GET", "/slurm/v0.0.38/diag");
  EXPECT_EQ(own.status, 200) << own.body;
  // Another user on the same socket is refused, saying why.
  TestUser user("rst", "sock");
  ASSERT_TRUE(user.ok());
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    if (setgid(user.gid()) != 0 || setuid(user.uid()) != 0) _exit(2);
    HttpAnswer a = HttpCall({0, socket_path_}, "GET", "/slurm/v0.0.38/diag");
    std::string text = std::to_string(a.status) + " " + a.body;
    (void)!write(pipe_fds[1], text.data(), text.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) text.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(text.substr(0, 3), "401") << text;
  EXPECT_NE(text.find("not as rotarestd's uid"), std::string::npos) << text;
}

TEST_F(RestApiTest, AnOrdinaryUserActsWithTheirOwnRights) {
  TestUser user("rst", "own");
  ASSERT_TRUE(user.ok());
  const std::string user_token = Token("username=" + user.name());
  ASSERT_FALSE(user_token.empty());
  auto as_user = As(user.name(), user_token);
  // root's job, held; the user's job, held.
  HttpAnswer roots =
      Call("POST", "/slurm/v0.0.38/job/submit", SubmitBody("#!/bin/sh\ntrue\n", {{"hold", true}}));
  ASSERT_EQ(roots.status, 200) << roots.body;
  const std::string root_job = std::to_string(roots.Json()["job_id"].get<uint64_t>());
  HttpAnswer users = HttpCall(
      {rest_port_, ""}, "POST", "/slurm/v0.0.38/job/submit", as_user,
      SubmitBody("#!/bin/sh\ntrue\n", {{"hold", true}, {"current_working_directory", "/tmp"}}));
  ASSERT_EQ(users.status, 200) << users.body;
  const std::string user_job = std::to_string(users.Json()["job_id"].get<uint64_t>());
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -j " + user_job + " -o '%u %r'").out),
            user.name() + " JobHeldUser");

  HttpAnswer denied =
      HttpCall({rest_port_, ""}, "DELETE", "/slurm/v0.0.38/job/" + root_job, as_user);
  EXPECT_EQ(denied.status, 500) << denied.body;
  EXPECT_EQ(denied.Json()["errors"][0]["errno"], 2002) << denied.body;
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -j " + root_job + " -o %T").out), "PENDING");
  HttpAnswer own = HttpCall({rest_port_, ""}, "DELETE", "/slurm/v0.0.38/job/" + user_job, as_user);
  EXPECT_EQ(own.status, 200) << own.body;
  EXPECT_TRUE(WaitForState(user_job, "CANCELLED"));
  Call("DELETE", "/slurm/v0.0.38/job/" + root_job);
}

// A client written from slurmrestd's documentation alone (Python's standard
// library, no Rota in it) runs a job through submit, poll and accounting.
TEST_F(RestApiTest, AClientWrittenFromSlurmrestdsDocumentationWorksUnchanged) {
  CommandResult r =
      RunShell("SLURMRESTD_URL=http://127.0.0.1:" + std::to_string(rest_port_) +
               " SLURM_USER=root SLURM_JWT='" + token_ + "' WORK_DIR=" + cluster_->work_dir() +
               " /usr/bin/python3 " + std::string(ROTA_SOURCE_DIR) +
               "/tests/integration/slurmrestd_client.py 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Json seen = Json::parse(r.out, nullptr, false);
  ASSERT_TRUE(seen.is_object()) << r.out;
  EXPECT_EQ(seen["ping"], "UP");
  EXPECT_EQ(seen["state"], "COMPLETED");
  EXPECT_EQ(seen["accounting_state"], "COMPLETED");
  EXPECT_EQ(seen["nodes"].size(), 2u);
  EXPECT_EQ(ReadFileText(cluster_->work_dir() + "/docs-client.out"), "hello from the docs\n");
  const std::string id = std::to_string(seen["job_id"].get<int>());
  EXPECT_EQ(Trim(cluster_->Run("sacct -n -X -j " + id + " -o JobName%20,State").out),
            "docs-client  COMPLETED");
}

TEST_F(RestApiTest, TheDocumentNamesEveryRouteAndOnlyThose) {
  const Json& doc = Document();
  ASSERT_TRUE(doc.contains("paths")) << doc.dump();
  EXPECT_EQ(doc["openapi"], "3.0.2");
  rest::Router router;
  rest::AddAllRoutes(router);
  auto normal = [](std::string p) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
  };
  std::set<std::string> routed, documented;
  for (const rest::Route& r : router.routes())
    routed.insert(ToLower(r.method) + " " + normal(r.pattern));
  for (const auto& [path, item] : doc["paths"].items()) {
    for (const auto& [method, op] : item.items()) documented.insert(method + " " + normal(path));
  }
  EXPECT_EQ(routed, documented);
  // Every $ref points at a schema the document has.
  std::vector<std::string> dangling;
  std::function<void(const Json&)> walk = [&](const Json& j) {
    if (j.is_object()) {
      if (j.contains("$ref") && rest::ResolveSchema(doc, j).value("type", "") == "missing") {
        dangling.push_back(j["$ref"].get<std::string>());
      }
      for (const auto& [k, v] : j.items()) walk(v);
    } else if (j.is_array()) {
      for (const Json& v : j) walk(v);
    }
  };
  walk(doc);
  EXPECT_TRUE(dangling.empty()) << Join(dangling, "\n");
}

}  // namespace
}  // namespace rota::testing
