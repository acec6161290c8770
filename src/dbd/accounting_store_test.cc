// The AccountingStore contract, run against each backend: SQLite, and
// PostgreSQL on a throwaway server (testing/pg_test_env.h).
#include <gtest/gtest.h>

#include "dbd/store_test_support.h"

namespace rota::dbd {
namespace {

class AccountingStoreTest : public StoreFixture, public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { PrepareDatabase(GetParam()); }
};

TEST_P(AccountingStoreTest, CreatesTheSchemaAndReopensWithoutLosingAnything) {
  {
    auto store = OpenStore();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->SchemaVersion(), CurrentVersion());
    ASSERT_TRUE(store->UpsertJobs({Attempt(1, 0, wire::JOB_STATE_COMPLETED, 100, 200)}).ok());
  }
  auto again = OpenStore();  // Opening an existing store migrates nothing and loses nothing.
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->SchemaVersion(), CurrentVersion());
  auto jobs = All(*again);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].alloc_tres(), "cpu=1,mem=1G,node=1,billing=1,gres/gpu=2");
}

TEST_P(AccountingStoreTest, UpsertIsIdempotentAndAStartNeverUndoesAnEnd) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto start = Attempt(7, 0, wire::JOB_STATE_RUNNING, 100, 0);
  auto end = Attempt(7, 0, wire::JOB_STATE_COMPLETED, 100, 160);
  ASSERT_TRUE(store->UpsertJobs({start, end}).ok());
  ASSERT_TRUE(store->UpsertJobs({start, end}).ok());  // Delivered twice.
  ASSERT_TRUE(store->UpsertJobs({start}).ok());       // A late start record.
  auto jobs = All(*store, true);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state(), wire::JOB_STATE_COMPLETED);
  EXPECT_EQ(jobs[0].end_time(), 160);
  // An end record after another end record replaces it (a corrected end).
  auto failed = Attempt(7, 0, wire::JOB_STATE_FAILED, 100, 170);
  ASSERT_TRUE(store->UpsertJobs({failed}).ok());
  EXPECT_EQ(All(*store)[0].state(), wire::JOB_STATE_FAILED);

  // Within one batch the same rules hold, in the batch's order.
  auto end8 = Attempt(8, 0, wire::JOB_STATE_COMPLETED, 100, 160);
  auto start8 = Attempt(8, 0, wire::JOB_STATE_RUNNING, 100, 0);
  auto timeout8 = Attempt(8, 0, wire::JOB_STATE_TIMEOUT, 100, 170);
  auto start9 = Attempt(9, 0, wire::JOB_STATE_RUNNING, 100, 0);
  ASSERT_TRUE(store->UpsertJobs({start8, end8, start8, start9}).ok());
  jobs = All(*store);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[1].state(), wire::JOB_STATE_COMPLETED);
  EXPECT_EQ(jobs[2].state(), wire::JOB_STATE_RUNNING);
  ASSERT_TRUE(store->UpsertJobs({start8, timeout8, start8}).ok());
  EXPECT_EQ(All(*store)[1].state(), wire::JOB_STATE_TIMEOUT);
}

TEST_P(AccountingStoreTest, EachAttemptIsItsOwnRecordAndTheLastIsTheDefault) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store
                  ->UpsertJobs({Attempt(3, 0, wire::JOB_STATE_REQUEUED, 100, 150),
                                Attempt(3, 1, wire::JOB_STATE_COMPLETED, 200, 260),
                                Attempt(4, 0, wire::JOB_STATE_FAILED, 110, 120)})
                  .ok());
  auto all = All(*store, true);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].state(), wire::JOB_STATE_REQUEUED);
  EXPECT_EQ(all[1].state(), wire::JOB_STATE_COMPLETED);
  auto last = All(*store);
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last[0].job_id(), 3u);
  EXPECT_EQ(last[0].restarts(), 1u);
  EXPECT_EQ(last[1].job_id(), 4u);
}

TEST_P(AccountingStoreTest, FiltersByUserAccountStateIdAndWindow) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  std::vector<wire::AccountingJob> jobs;
  for (uint32_t id = 1; id <= 10; ++id) {
    jobs.push_back(Attempt(id, 0, id == 5 ? wire::JOB_STATE_FAILED : wire::JOB_STATE_COMPLETED,
                           1000 * id, 1000 * id + 500));
  }
  jobs.push_back(Attempt(11, 0, wire::JOB_STATE_RUNNING, 11000, 0));
  ASSERT_TRUE(store->UpsertJobs(jobs).ok());

  wire::QueryJobsRequest q;
  q.add_users("alice");
  EXPECT_EQ(store->QueryJobs(q)->size(), 5u);  // 2,4,6,8,10
  q.add_accounts("chem");                      // alice never charged chem
  EXPECT_EQ(store->QueryJobs(q)->size(), 0u);

  wire::QueryJobsRequest states;
  states.add_states(wire::JOB_STATE_FAILED);
  ASSERT_EQ(store->QueryJobs(states)->size(), 1u);
  EXPECT_EQ(store->QueryJobs(states)->at(0).job_id(), 5u);

  wire::QueryJobsRequest cluster;
  cluster.set_cluster("other");
  EXPECT_EQ(store->QueryJobs(cluster)->size(), 0u);
  cluster.set_cluster("c");
  cluster.add_partitions("batch");
  EXPECT_EQ(store->QueryJobs(cluster)->size(), 11u);

  // Attempts active in [4600, 7200]: 4 ended 4500 (out), 5..7 in, 8 starts 8000 (out),
  // and 11, still running, started after the window.
  wire::QueryJobsRequest window;
  window.set_window_start(4600);
  window.set_window_end(7200);
  auto in_window = *store->QueryJobs(window);
  ASSERT_EQ(in_window.size(), 3u);
  EXPECT_EQ(in_window[0].job_id(), 5u);
  EXPECT_EQ(in_window[2].job_id(), 7u);

  // A running job is in every window that reaches its start.
  wire::QueryJobsRequest late;
  late.set_window_start(50000);
  ASSERT_EQ(store->QueryJobs(late)->size(), 1u);

  // Named ids ignore the window.
  window.add_job_ids(1);
  window.add_job_ids(9);
  EXPECT_EQ(store->QueryJobs(window)->size(), 2u);
}

// `sacct -j ARRAY`: an id finds its job and every task of the array it is
// the id of.
TEST_P(AccountingStoreTest, AnArrayIdFindsEveryTask) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  std::vector<wire::AccountingJob> jobs;
  for (uint32_t id = 20; id <= 23; ++id) {
    wire::AccountingJob task = Attempt(id, 0, wire::JOB_STATE_COMPLETED, 100, 200);
    if (id != 23) {  // 20..22 are tasks 0..2 of array 20; 23 is a job of its own.
      task.set_array_job_id(20);
      task.set_array_task_id(id - 20);
    }
    jobs.push_back(task);
  }
  ASSERT_TRUE(store->UpsertJobs(jobs).ok());
  wire::QueryJobsRequest q;
  q.add_job_ids(20);
  auto found = *store->QueryJobs(q);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[2].job_id(), 22u);
  q.add_job_ids(23);
  q.add_users("nobody");  // Other conditions still apply to all of them.
  EXPECT_EQ(store->QueryJobs(q)->size(), 0u);
  wire::QueryJobsRequest task;
  task.add_job_ids(21);
  ASSERT_EQ(store->QueryJobs(task)->size(), 1u);
}

TEST_P(AccountingStoreTest, ABatchOfManyRecordsIsStoredWhole) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  std::vector<wire::AccountingJob> jobs;
  for (uint32_t id = 1; id <= 1000; ++id) {
    jobs.push_back(Attempt(id, 0, wire::JOB_STATE_COMPLETED, 1000 + id, 2000 + id));
  }
  ASSERT_TRUE(store->UpsertJobs(jobs).ok());
  auto stored = All(*store);
  ASSERT_EQ(stored.size(), 1000u);
  EXPECT_EQ(stored.front().job_id(), 1u);
  EXPECT_EQ(stored.back().job_id(), 1000u);
  EXPECT_EQ(stored[499].name(), "job500");
  EXPECT_TRUE(store->UpsertJobs({}).ok());  // An empty batch is no error.
}

TEST_P(AccountingStoreTest, NamesWithNulsAndNonAsciiAreStoredAndFound) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto odd = Attempt(1, 0, wire::JOB_STATE_COMPLETED, 100, 200);
  odd.set_account(std::string("ph\0ys", 5));  // PostgreSQL's text cannot hold a NUL.
  odd.set_user("j\xc3\xbcrgen");
  odd.set_name("caf\xc3\xa9 \xe2\x98\x95");
  ASSERT_TRUE(store->UpsertJobs({odd, Attempt(2, 0, wire::JOB_STATE_COMPLETED, 100, 200)}).ok());
  wire::QueryJobsRequest q;
  q.add_accounts(odd.account());
  auto found = store->QueryJobs(q);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].account(), odd.account());  // The record keeps every byte.
  EXPECT_EQ((*found)[0].name(), odd.name());
  wire::QueryJobsRequest by_user;
  by_user.add_users("j\xc3\xbcrgen");
  EXPECT_EQ(store->QueryJobs(by_user)->size(), 1u);
  wire::QueryJobsRequest near_miss;
  near_miss.add_accounts("ph");
  EXPECT_EQ(store->QueryJobs(near_miss)->size(), 0u);
}

TEST_P(AccountingStoreTest, EntitiesAddListDelete) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto make = [](const char* kind, const char* name) {
    wire::AcctEntity e;
    e.set_kind(kind);
    e.set_name(name);
    (*e.mutable_fields())["Description"] = std::string(name) + " dept";
    return e;
  };
  ASSERT_TRUE(store->AddEntities({make("account", "phys"), make("account", "chem")}).ok());
  Status dup = store->AddEntities({make("account", "bio"), make("account", "phys")});
  EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.message(), "account phys already exists");
  auto all = store->ListEntities("account", {});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);  // bio was not added: all or nothing
  EXPECT_EQ((*all)[0].name(), "chem");
  EXPECT_EQ((*all)[1].fields().at("Description"), "phys dept");
  EXPECT_EQ(store->ListEntities("account", {"phys"})->size(), 1u);
  EXPECT_EQ(store->ListEntities("qos", {})->size(), 0u);
  auto deleted = store->DeleteEntities("account", {"phys", "nope"});
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, std::vector<std::string>{"phys"});
  EXPECT_EQ(store->ListEntities("account", {})->size(), 1u);
}

TEST_P(AccountingStoreTest, ListingsAreInByteOrderOfName) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  std::vector<wire::AcctEntity> users;
  for (const char* name : {"bob", "Zed", "alice", "_svc", "Alice"}) {
    wire::AcctEntity e;
    e.set_kind("user");
    e.set_name(name);
    users.push_back(e);
  }
  ASSERT_TRUE(store->AddEntities(users).ok());
  auto listed = store->ListEntities("user", {});
  ASSERT_TRUE(listed.ok());
  std::vector<std::string> names;
  for (const auto& e : *listed) names.push_back(e.name());
  EXPECT_EQ(names, (std::vector<std::string>{"Alice", "Zed", "_svc", "alice", "bob"}));
}

TEST_P(AccountingStoreTest, ReplaceEntitiesChangesAllOrNone) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  wire::AcctEntity high;
  high.set_kind("qos");
  high.set_name("high");
  (*high.mutable_fields())["Priority"] = "10";
  wire::AcctEntity low = high;
  low.set_name("low");
  ASSERT_TRUE(store->AddEntities({high, low}).ok());

  (*high.mutable_fields())["Priority"] = "20";
  wire::AcctEntity ghost = high;
  ghost.set_name("ghost");
  Status missing = store->ReplaceEntities({high, ghost});
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.message(), "qos ghost doesn't exist");
  EXPECT_EQ(store->ListEntities("qos", {"high"})->at(0).fields().at("Priority"), "10");

  ASSERT_TRUE(store->ReplaceEntities({high}).ok());
  EXPECT_EQ(store->ListEntities("qos", {"high"})->at(0).fields().at("Priority"), "20");
  EXPECT_EQ(store->ListEntities("qos", {"low"})->at(0).fields().at("Priority"), "10");
}

TEST_P(AccountingStoreTest, AScriptAndEnvironmentAreKeptBesideTheRecordAndReadWhenAsked) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  // Any bytes: a NUL, and a byte that is not UTF-8.
  const std::string script("#!/bin/sh\necho \xff\0 hi\n", 20);
  auto start = Attempt(11, 0, wire::JOB_STATE_RUNNING, 100, 0);
  start.set_script(script);
  start.set_environment("A=1\nB=two words\n");
  auto end = Attempt(11, 0, wire::JOB_STATE_COMPLETED, 100, 160);
  // Job 11 starts and ends in one batch; job 12 in two, and is requeued.
  auto start12 = Attempt(12, 0, wire::JOB_STATE_RUNNING, 100, 0);
  start12.set_script("#!/bin/sh\nfirst\n");
  auto requeued12 = Attempt(12, 0, wire::JOB_STATE_REQUEUED, 100, 130);
  auto again12 = Attempt(12, 1, wire::JOB_STATE_RUNNING, 140, 0);
  again12.set_script("#!/bin/sh\nsecond\n");
  ASSERT_TRUE(store->UpsertJobs({start, end, start12}).ok());
  ASSERT_TRUE(store->UpsertJobs({requeued12, again12}).ok());

  // Not asked: neither comes back, and the records are whole.
  std::vector<wire::AccountingJob> plain = All(*store, true);
  ASSERT_EQ(plain.size(), 3u);
  for (const wire::AccountingJob& j : plain) {
    EXPECT_EQ(j.script(), "") << j.job_id();
    EXPECT_EQ(j.environment(), "") << j.job_id();
  }
  EXPECT_EQ(plain[0].state(), wire::JOB_STATE_COMPLETED);

  wire::QueryJobsRequest q;
  q.add_job_ids(11);
  q.add_job_ids(12);
  q.set_all_attempts(true);
  q.set_with_script(true);
  auto scripts = store->QueryJobs(q);
  ASSERT_TRUE(scripts.ok()) << scripts.status().ToString();
  ASSERT_EQ(scripts->size(), 3u);
  EXPECT_EQ((*scripts)[0].script(), script) << "kept through the end record of its batch";
  EXPECT_EQ((*scripts)[0].environment(), "") << "asked for the script only";
  EXPECT_EQ((*scripts)[0].state(), wire::JOB_STATE_COMPLETED);
  EXPECT_EQ((*scripts)[1].script(), "#!/bin/sh\nfirst\n") << "kept through a later end record";
  EXPECT_EQ((*scripts)[1].state(), wire::JOB_STATE_REQUEUED);
  EXPECT_EQ((*scripts)[2].script(), "#!/bin/sh\nsecond\n") << "each attempt its own";

  q.set_with_script(false);
  q.set_with_environment(true);
  q.set_all_attempts(false);
  auto environments = store->QueryJobs(q);
  ASSERT_TRUE(environments.ok()) << environments.status().ToString();
  ASSERT_EQ(environments->size(), 2u);
  EXPECT_EQ((*environments)[0].environment(), "A=1\nB=two words\n");
  EXPECT_EQ((*environments)[0].script(), "");
  EXPECT_EQ((*environments)[1].environment(), "");
}

INSTANTIATE_TEST_SUITE_P(Backends, AccountingStoreTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPgsql), BackendName);

}  // namespace
}  // namespace rota::dbd
