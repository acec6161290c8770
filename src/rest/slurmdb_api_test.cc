// /slurmdb/v0.0.38/jobs and /job/{job_id}: what rotadbd is asked, what the
// answer holds, and the refusals.
#include <gtest/gtest.h>

#include <csignal>

#include "cli/accounting/sacct_json.h"
#include "rest/slurmdb_test_support.h"

namespace rota::rest {
namespace {

using JobsTest = SlurmdbApiTest;

TEST_F(JobsTest, PassesTheFiltersRotadbdAppliesAndAnswersTheRecords) {
  AnswerJobs({FinishedJob(42)});
  HttpResponse r = Get("/slurmdb/v0.0.38/jobs", {{"users", "alice,bob"},
                                                 {"account", "physics"},
                                                 {"partition", "gpu,cpu"},
                                                 {"state", "CD,running,5"},
                                                 {"start_time", "1000"},
                                                 {"end_time", "2024-01-02T03:04:05"}});
  ASSERT_EQ(r.status, 200) << r.body;
  wire::QueryJobsRequest sent = SentJobsQuery();
  EXPECT_EQ(std::vector<std::string>(sent.users().begin(), sent.users().end()),
            (std::vector<std::string>{"alice", "bob"}));
  ASSERT_EQ(sent.accounts_size(), 1);
  EXPECT_EQ(sent.accounts(0), "physics");
  EXPECT_EQ(sent.partitions_size(), 2);
  ASSERT_EQ(sent.states_size(), 3);
  EXPECT_EQ(sent.states(0), wire::JOB_STATE_COMPLETED);
  EXPECT_EQ(sent.states(1), wire::JOB_STATE_RUNNING);
  EXPECT_EQ(sent.states(2), wire::JOB_STATE_FAILED);  // Slurm's number 5
  EXPECT_EQ(sent.window_start(), 1000);
  EXPECT_GT(sent.window_end(), 1'700'000'000);  // Parsed as local time, some time in 2024
  EXPECT_TRUE(sent.all_attempts());             // As slurmrestd: every attempt

  Json body = Body(r);
  EXPECT_EQ(body["meta"]["plugin"]["type"], "openapi/dbv0.0.38");
  EXPECT_TRUE(body["errors"].empty());
  ASSERT_EQ(body["jobs"].size(), 1u);
  const Json& job = body["jobs"][0];
  EXPECT_EQ(job["job_id"], 42);
  EXPECT_EQ(job["state"]["current"], "COMPLETED");
  EXPECT_EQ(job["time"]["elapsed"], 100);
  EXPECT_EQ(job["working_directory"], "/home/alice");
  EXPECT_EQ(job["wckey"]["wckey"], "proj");
  EXPECT_EQ(job["association"]["account"], "physics");
  EXPECT_EQ(job["association"]["user"], "alice");
  EXPECT_EQ(job["group"], "root");  // gid 0
  EXPECT_TRUE(job["kill_request_user"].is_null());
  ASSERT_EQ(job["steps"].size(), 2u);
  EXPECT_EQ(job["steps"][0]["step"]["id"], "42.batch");
  EXPECT_EQ(job["steps"][1]["step"]["id"], "42.0");
}

TEST_F(JobsTest, SharesSacctJsonsConversion) {
  wire::AccountingJob killed = FinishedJob(7);
  killed.set_state(wire::JOB_STATE_CANCELLED);
  killed.set_exit_code(SIGKILL);
  killed.set_cancelled(true);
  killed.set_cancelled_by_uid(0);
  AnswerJobs({killed});
  Json job = Body(Get("/slurmdb/v0.0.38/jobs"))["jobs"][0];
  Json sacct = cli::SacctJobsJson({killed}, backend_.now())[0];
  for (const auto& [key, value] : sacct.items()) EXPECT_EQ(job[key], value) << key;
  EXPECT_EQ(job["exit_code"]["signal"]["name"], "KILL");
  EXPECT_EQ(job["kill_request_user"], "root");
}

TEST_F(JobsTest, NoQueryAsksForEverythingWithoutATimeWindow) {
  AnswerJobs({});
  HttpResponse r = Get("/slurmdb/v0.0.38/jobs/");
  ASSERT_EQ(r.status, 200);
  wire::QueryJobsRequest sent = SentJobsQuery();
  EXPECT_EQ(sent.window_start(), 0);
  EXPECT_EQ(sent.window_end(), 0);
  EXPECT_EQ(sent.users_size(), 0);
  EXPECT_TRUE(Body(r)["jobs"].is_array());
  EXPECT_TRUE(Body(r)["jobs"].empty());
}

TEST_F(JobsTest, FiltersRotadbdDoesNotApplyAreAppliedToItsAnswer) {
  wire::AccountingJob wanted = FinishedJob(1);
  wire::AccountingJob other_name = FinishedJob(2);
  other_name.set_name("eval");
  wire::AccountingJob other_qos = FinishedJob(3);
  other_qos.set_qos("high");
  wire::AccountingJob elsewhere = FinishedJob(4);
  elsewhere.set_nodelist("n[7-8]");
  wire::AccountingJob small = FinishedJob(5);
  small.set_alloc_cpus(2);
  wire::AccountingJob failed = FinishedJob(6);
  failed.set_exit_code(3 << 8);
  AnswerJobs({wanted, other_name, other_qos, elsewhere, small, failed});
  HttpResponse r = Get("/slurmdb/v0.0.38/jobs", {{"job_name", "train"},
                                                 {"qos", "normal"},
                                                 {"node", "n[2-3]"},
                                                 {"cpus_min", "8"},
                                                 {"exit_code", "0"},
                                                 {"skip_steps", "true"}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json jobs = Body(r)["jobs"];
  ASSERT_EQ(jobs.size(), 1u) << jobs.dump();
  EXPECT_EQ(jobs[0]["job_id"], 1);
  EXPECT_TRUE(jobs[0]["steps"].empty());
}

TEST_F(JobsTest, SubmitTimeKeepsLaterSubmissions) {
  wire::AccountingJob early = FinishedJob(1);
  wire::AccountingJob late = FinishedJob(2);
  late.set_submit_time(5000);
  AnswerJobs({early, late});
  Json jobs = Body(Get("/slurmdb/v0.0.38/jobs", {{"submit_time", "4000"}}))["jobs"];
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["job_id"], 2);
}

TEST_F(JobsTest, StepParameterNamesJobsAndSteps) {
  AnswerJobs({FinishedJob(42), FinishedJob(43)});
  Json jobs = Body(Get("/slurmdb/v0.0.38/jobs", {{"step", "42.0"}}))["jobs"];
  wire::QueryJobsRequest sent = SentJobsQuery();
  ASSERT_EQ(sent.job_ids_size(), 1);
  EXPECT_EQ(sent.job_ids(0), 42u);
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_EQ(jobs[0]["steps"].size(), 1u);
  EXPECT_EQ(jobs[0]["steps"][0]["step"]["id"], "42.0");
}

TEST_F(JobsTest, AnotherClusterOrStatesRotaNeverGivesAskNothing) {
  for (const auto& query : std::vector<std::map<std::string, std::string>>{
           {{"cluster", "elsewhere"}}, {{"state", "REVOKED"}}}) {
    HttpResponse r = Get("/slurmdb/v0.0.38/jobs", query);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(Body(r)["jobs"].empty());
  }
  EXPECT_TRUE(backend_.accounting_calls.empty());
  AnswerJobs({FinishedJob(1)});
  EXPECT_EQ(Body(Get("/slurmdb/v0.0.38/jobs", {{"cluster", "c1,elsewhere"}}))["jobs"].size(), 1u);
}

TEST_F(JobsTest, MalformedValuesAreRefusedNamingTheParameter) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"start_time", "abc"},    {"end_time", "25:99"},     {"state", "SLEEPING"}, {"state", "12"},
      {"cpus_min", "eight"},    {"skip_steps", "perhaps"}, {"node", "n[3-"},      {"step", "x.0"},
      {"reservation", "maint"}, {"colour", "blue"},
  };
  for (const auto& [key, value] : bad) {
    HttpResponse r = Get("/slurmdb/v0.0.38/jobs", {{key, value}});
    SCOPED_TRACE(key + "=" + value);
    ExpectError(r, 400, kEslurmRestInvalidQuery, key);
  }
  ExpectError(Get("/slurmdb/v0.0.38/jobs", {{"start_time", "100"}, {"submit_time", "100"}}), 400,
              kEslurmRestInvalidQuery, "mutually exclusive");
  EXPECT_TRUE(backend_.accounting_calls.empty());
}

TEST_F(JobsTest, RefusalsBecomeErrors) {
  backend_.AnswerAccounting(api::kDbdQueryJobs, [](const std::string&) -> Result<std::string> {
    return Status(StatusCode::kPermissionDenied, "only your own jobs");
  });
  ExpectError(Get("/slurmdb/v0.0.38/jobs"), 403, kEslurmAccessDenied, "only your own jobs");
  backend_.AnswerAccounting(api::kDbdQueryJobs, [](const std::string&) -> Result<std::string> {
    return Status(StatusCode::kUnavailable, "rotadbd is down");
  });
  ExpectError(Get("/slurmdb/v0.0.38/jobs"), 503, kSlurmError, "rotadbd is down");
  backend_.AnswerAccounting(api::kDbdQueryJobs, [](const std::string&) -> Result<std::string> {
    return std::string("\xff\xff");
  });
  ExpectError(Get("/slurmdb/v0.0.38/jobs"), 500, kSlurmError, "malformed");
}

TEST_F(JobsTest, AccountingOffIsAJsonError) {
  backend_.AnswerAccounting(api::kDbdQueryJobs, [](const std::string&) -> Result<std::string> {
    return FailedPrecondition("accounting is not enabled (AccountingStorageType)");
  });
  ExpectError(Get("/slurmdb/v0.0.38/jobs"), 500, 7000, "accounting is not enabled");
  ExpectError(Get("/slurmdb/v0.0.38/job/5"), 500, 7000, "accounting is not enabled");
}

TEST_F(JobsTest, OneJobAsksForItsIdAndEveryAttempt) {
  wire::AccountingJob first = FinishedJob(42);
  first.set_state(wire::JOB_STATE_REQUEUED);
  wire::AccountingJob second = FinishedJob(42);
  second.set_restarts(1);
  AnswerJobs({first, second});
  HttpResponse r = Get("/slurmdb/v0.0.38/job/42");
  ASSERT_EQ(r.status, 200) << r.body;
  wire::QueryJobsRequest sent = SentJobsQuery();
  ASSERT_EQ(sent.job_ids_size(), 1);
  EXPECT_EQ(sent.job_ids(0), 42u);
  EXPECT_TRUE(sent.all_attempts());
  Json jobs = Body(r)["jobs"];
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0]["restarts"], 0);
  EXPECT_EQ(jobs[1]["restarts"], 1);
}

TEST_F(JobsTest, OneJobByStepShowsThatStep) {
  AnswerJobs({FinishedJob(42)});
  Json jobs = Body(Get("/slurmdb/v0.0.38/job/42.batch"))["jobs"];
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_EQ(jobs[0]["steps"].size(), 1u);
  EXPECT_EQ(jobs[0]["steps"][0]["step"]["id"], "42.batch");
}

TEST_F(JobsTest, UnknownOrMalformedJobIdIsRefused) {
  AnswerJobs({});
  ExpectError(Get("/slurmdb/v0.0.38/job/99"), 404, kEslurmInvalidJobId, "99");
  ExpectError(Get("/slurmdb/v0.0.38/job/abc"), 400, kEslurmRestInvalidQuery, "job_id");
  EXPECT_EQ(backend_.accounting_calls.size(), 1u);  // Only for job 99
}

}  // namespace
}  // namespace rota::rest
