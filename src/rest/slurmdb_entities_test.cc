// /slurmdb/v0.0.38's associations, accounts, users and QOS over rotadbd's
// entities.
#include <gtest/gtest.h>

#include "rest/slurmdb_test_support.h"

namespace rota::rest {
namespace {

class EntitiesTest : public SlurmdbApiTest {
 protected:
  EntitiesTest() { AnswerEntities(SampleEntities()); }
};

std::vector<std::string> Strings(const Json& list) {
  std::vector<std::string> out;
  for (const Json& s : list) out.push_back(s.get<std::string>());
  return out;
}

// "account/user" of each association ("account/" for an account's own).
std::vector<std::string> Keys(const Json& associations) {
  std::vector<std::string> out;
  for (const Json& a : associations) {
    out.push_back(a["account"].get<std::string>() + "/" +
                  (a["user"].is_null() ? "" : a["user"].get<std::string>()));
  }
  return out;
}

TEST_F(EntitiesTest, AssociationsListTheTreeWithLimitsAndInheritedQos) {
  HttpResponse r = Get("/slurmdb/v0.0.38/associations/");
  ASSERT_EQ(r.status, 200) << r.body;
  Json assocs = Body(r)["associations"];
  EXPECT_EQ(Keys(assocs), (std::vector<std::string>{"physics/", "physics/alice", "root/",
                                                    "root/bob", "theory/", "theory/alice"}));
  const Json& physics = assocs[0];
  EXPECT_EQ(physics["cluster"], "c1");
  EXPECT_EQ(physics["parent_account"], "root");
  EXPECT_EQ(physics["max"]["jobs"]["per"]["count"], 10);
  EXPECT_EQ(physics["max"]["jobs"]["per"]["wall_clock"], 24 * 60);  // Minutes
  ASSERT_EQ(physics["max"]["tres"]["total"].size(), 1u);
  EXPECT_EQ(physics["max"]["tres"]["total"][0]["type"], "cpu");
  EXPECT_EQ(physics["max"]["tres"]["total"][0]["count"], 100);
  EXPECT_TRUE(physics["max"]["jobs"]["active"].is_null());  // Unset
  EXPECT_EQ(physics["shares_raw"], 40);
  EXPECT_EQ(Strings(physics["qos"]), (std::vector<std::string>{"high", "normal"}));
  EXPECT_EQ(physics["default"]["qos"], "normal");

  const Json& alice = assocs[1];
  EXPECT_EQ(alice["user"], "alice");
  EXPECT_TRUE(alice["parent_account"].is_null());
  EXPECT_EQ(alice["max"]["jobs"]["active"], 5);
  EXPECT_TRUE(alice["max"]["jobs"]["per"]["count"].is_null());  // Its own limits only
  EXPECT_EQ(alice["priority"], 7);
  EXPECT_EQ(alice["is_default"], 1);
  EXPECT_EQ(Strings(alice["flags"]), (std::vector<std::string>{"DEFAULT"}));
  EXPECT_EQ(Strings(alice["qos"]), (std::vector<std::string>{"high", "normal"}));  // physics'
  EXPECT_EQ(alice["default"]["qos"], "normal");
  EXPECT_EQ(alice["shares_raw"], 1);

  const Json& root = assocs[2];
  EXPECT_TRUE(root["parent_account"].is_null());
  EXPECT_EQ(Strings(root["qos"]), (std::vector<std::string>{"normal"}));
  EXPECT_TRUE(root["default"]["qos"].is_null());

  EXPECT_EQ(assocs[4]["parent_account"], "physics");
  EXPECT_EQ(assocs[4]["shares_raw"], 0x7fffffff);  // Fairshare=parent
  EXPECT_EQ(assocs[5]["is_default"], 0);           // theory is not alice's default
  EXPECT_TRUE(assocs[5]["flags"].empty());
}

TEST_F(EntitiesTest, AssociationsFilter) {
  EXPECT_EQ(Keys(Body(Get("/slurmdb/v0.0.38/associations", {{"user", "alice"}}))["associations"]),
            (std::vector<std::string>{"physics/alice", "theory/alice"}));
  EXPECT_EQ(Keys(Body(Get("/slurmdb/v0.0.38/associations", {{"account", "root"}}))["associations"]),
            (std::vector<std::string>{"root/", "root/bob"}));
  EXPECT_TRUE(
      Body(Get("/slurmdb/v0.0.38/associations", {{"cluster", "other"}}))["associations"].empty());
  EXPECT_TRUE(
      Body(Get("/slurmdb/v0.0.38/associations", {{"partition", "gpu"}}))["associations"].empty());
  EXPECT_EQ(Body(Get("/slurmdb/v0.0.38/associations", {{"cluster", "c1"}}))["associations"].size(),
            6u);
}

TEST_F(EntitiesTest, AccountsCarryTheirAssociations) {
  HttpResponse r = Get("/slurmdb/v0.0.38/accounts");
  ASSERT_EQ(r.status, 200) << r.body;
  Json accounts = Body(r)["accounts"];
  ASSERT_EQ(accounts.size(), 3u);
  const Json& physics = accounts[0];
  EXPECT_EQ(physics["name"], "physics");
  EXPECT_EQ(physics["description"], "physics dept");
  EXPECT_EQ(physics["organization"], "science");
  EXPECT_EQ(Keys(physics["associations"]), (std::vector<std::string>{"physics/", "physics/alice"}));
  EXPECT_TRUE(physics["coordinators"].is_array());
  EXPECT_TRUE(physics["flags"].is_array());
}

TEST_F(EntitiesTest, OneAccountIsAskedForByName) {
  HttpResponse r = Get("/slurmdb/v0.0.38/account/theory");
  ASSERT_EQ(r.status, 200) << r.body;
  Json accounts = Body(r)["accounts"];
  ASSERT_EQ(accounts.size(), 1u);
  EXPECT_EQ(accounts[0]["name"], "theory");
  std::vector<wire::ListEntitiesRequest> sent = SentListRequests();
  ASSERT_FALSE(sent.empty());
  EXPECT_EQ(sent[0].kind(), "account");
  ASSERT_EQ(sent[0].names_size(), 1);
  EXPECT_EQ(sent[0].names(0), "theory");
}

TEST_F(EntitiesTest, UsersWithDefaultsAndAssociations) {
  Json users = Body(Get("/slurmdb/v0.0.38/users"))["users"];
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0]["name"], "alice");
  EXPECT_EQ(users[0]["default"]["account"], "physics");
  EXPECT_EQ(users[0]["administrator_level"], "None");
  EXPECT_EQ(Keys(users[0]["associations"]),
            (std::vector<std::string>{"physics/alice", "theory/alice"}));
  EXPECT_EQ(users[1]["administrator_level"], "Operator");

  Json one = Body(Get("/slurmdb/v0.0.38/user/bob"))["users"];
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["name"], "bob");
  EXPECT_EQ(Keys(one[0]["associations"]), (std::vector<std::string>{"root/bob"}));
}

TEST_F(EntitiesTest, QosLimitsFlagsAndPreemption) {
  HttpResponse r = Get("/slurmdb/v0.0.38/qos");
  ASSERT_EQ(r.status, 200) << r.body;
  Json qos = Body(r)["qos"];
  ASSERT_EQ(qos.size(), 2u);
  const Json& high = qos[0];
  EXPECT_EQ(high["name"], "high");
  EXPECT_EQ(high["description"], "urgent work");
  EXPECT_EQ(high["priority"], 100);
  EXPECT_EQ(Strings(high["flags"]), (std::vector<std::string>{"DENY_LIMIT", "NO_DECAY"}));
  const Json& max = high["limits"]["max"];
  EXPECT_EQ(max["wall_clock"]["per"]["job"], 120);  // Minutes
  EXPECT_EQ(max["jobs"]["active_jobs"]["per"]["user"], 4);
  EXPECT_EQ(max["jobs"]["per"]["user"], 8);
  ASSERT_EQ(max["tres"]["per"]["user"].size(), 2u);
  EXPECT_EQ(max["tres"]["per"]["user"][1]["type"], "gres");
  EXPECT_EQ(max["tres"]["per"]["user"][1]["name"], "gpu");
  EXPECT_EQ(max["tres"]["per"]["user"][1]["count"], 4);
  EXPECT_EQ(max["tres"]["total"][0]["count"], 256);
  EXPECT_EQ(high["limits"]["grace_time"], 120);  // Seconds
  EXPECT_EQ(Strings(high["preempt"]["list"]), (std::vector<std::string>{"normal"}));
  EXPECT_EQ(Strings(high["preempt"]["mode"]), (std::vector<std::string>{"REQUEUE"}));
  EXPECT_EQ(high["preempt"]["exempt_time"], 600);
  EXPECT_DOUBLE_EQ(high["usage_factor"].get<double>(), 2.5);
  EXPECT_TRUE(high["usage_threshold"].is_null());

  const Json& normal = qos[1];
  EXPECT_EQ(normal["priority"], 0);
  EXPECT_DOUBLE_EQ(normal["usage_factor"].get<double>(), 1.0);
  EXPECT_TRUE(normal["limits"]["max"]["wall_clock"]["per"]["job"].is_null());
  EXPECT_TRUE(normal["preempt"]["mode"].empty());

  Json one = Body(Get("/slurmdb/v0.0.38/qos/normal"))["qos"];
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["name"], "normal");
}

TEST_F(EntitiesTest, UnknownNamesAnswer404) {
  ExpectError(Get("/slurmdb/v0.0.38/account/nope"), 404, kEslurmRestEmptyResult, "nope");
  ExpectError(Get("/slurmdb/v0.0.38/user/nobody"), 404, kEslurmRestEmptyResult, "nobody");
  ExpectError(Get("/slurmdb/v0.0.38/qos/gold"), 404, kEslurmRestEmptyResult, "gold");
}

TEST_F(EntitiesTest, WithDeletedMustBeABoolean) {
  EXPECT_EQ(Get("/slurmdb/v0.0.38/qos", {{"with_deleted", "true"}}).status, 200);
  ExpectError(Get("/slurmdb/v0.0.38/users", {{"with_deleted", "perhaps"}}), 400,
              kEslurmRestInvalidQuery, "with_deleted");
}

TEST_F(EntitiesTest, RefusalsAndAccountingOff) {
  backend_.AnswerAccounting(api::kDbdListEntities, [](const std::string&) -> Result<std::string> {
    return Status(StatusCode::kPermissionDenied, "PrivateData=users");
  });
  ExpectError(Get("/slurmdb/v0.0.38/users"), 403, kEslurmAccessDenied, "PrivateData=users");
  backend_.AnswerAccounting(api::kDbdListEntities, [](const std::string&) -> Result<std::string> {
    return FailedPrecondition("accounting is not enabled");
  });
  for (const char* path : {"/slurmdb/v0.0.38/associations", "/slurmdb/v0.0.38/accounts",
                           "/slurmdb/v0.0.38/user/alice", "/slurmdb/v0.0.38/qos/high"}) {
    SCOPED_TRACE(path);
    ExpectError(Get(path), 500, 7000, "accounting is not enabled");
  }
}

}  // namespace
}  // namespace rota::rest
