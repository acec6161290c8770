#include "cli/accounting/sacct_json.h"

#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>

namespace rota::cli {
namespace {

wire::AccountingJob FinishedGpuJob() {
  wire::AccountingJob j;
  j.set_job_id(42);
  j.set_name("train");
  j.set_user("alice");
  j.set_account("ml");
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
  j.set_alloc_tres("billing=16,cpu=16,gres/gpu=4,gres/gpu:a100=4,mem=32G,node=2");
  j.set_req_tres("cpu=16,gres/gpu=4,mem=32G,node=2");
  j.set_req_mem_mb(32768);
  j.set_time_limit_s(3600);
  j.set_reason("None");
  return j;
}

TEST(SacctJson, CarriesSlurmsFieldsForAFinishedJob) {
  nlohmann::json out = nlohmann::json::parse(SacctJson({FinishedGpuJob()}, 5000));
  ASSERT_EQ(out["jobs"].size(), 1u);
  const nlohmann::json& job = out["jobs"][0];
  EXPECT_EQ(job["job_id"], 42);
  EXPECT_EQ(job["allocation_nodes"], 2);
  EXPECT_EQ(job["nodes"], "n[1-2]");
  EXPECT_EQ(job["required"]["CPUs"], 16);
  EXPECT_EQ(job["state"]["current"], "COMPLETED");
  EXPECT_EQ(job["exit_code"]["status"], "SUCCESS");
  EXPECT_FALSE(job["exit_code"].contains("signal"));
  EXPECT_EQ(job["time"]["elapsed"], 100);  // From start to end, not to `now`
  EXPECT_EQ(job["time"]["limit"], 60);     // Minutes
  EXPECT_EQ(job["time"]["submission"], 1000);
  EXPECT_TRUE(out["errors"].empty());
}

TEST(SacctJson, TresBecomeTypedEntriesWithMemoryInMegabytes) {
  nlohmann::json job = nlohmann::json::parse(SacctJson({FinishedGpuJob()}, 0))["jobs"][0];
  std::map<std::string, uint64_t> counts;
  for (const nlohmann::json& t : job["tres"]["allocated"]) {
    std::string key = t["type"].get<std::string>();
    if (!t["name"].get<std::string>().empty()) key += "/" + t["name"].get<std::string>();
    counts[key] = t["count"];
    if (key == "cpu") {
      EXPECT_EQ(t["id"], 1);
    }
    if (key == "gres/gpu") {
      EXPECT_EQ(t["id"], 1001);
    }
  }
  EXPECT_EQ(counts["cpu"], 16u);
  EXPECT_EQ(counts["mem"], 32768u);
  EXPECT_EQ(counts["gres/gpu"], 4u);
  EXPECT_EQ(counts["gres/gpu:a100"], 4u);
  EXPECT_EQ(counts["node"], 2u);
  EXPECT_EQ(job["tres"]["requested"].size(), 4u);
}

TEST(SacctJson, SignalledAndRunningJobs) {
  wire::AccountingJob killed = FinishedGpuJob();
  killed.set_state(wire::JOB_STATE_FAILED);
  killed.set_exit_code(SIGKILL);
  wire::AccountingJob failed = FinishedGpuJob();
  failed.set_state(wire::JOB_STATE_FAILED);
  failed.set_exit_code(3 << 8);
  wire::AccountingJob running = FinishedGpuJob();
  running.set_state(wire::JOB_STATE_RUNNING);
  running.set_ended(false);
  running.set_end_time(0);
  running.set_time_limit_s(-1);
  nlohmann::json jobs = nlohmann::json::parse(SacctJson({killed, failed, running}, 1500))["jobs"];
  EXPECT_EQ(jobs[0]["exit_code"]["status"], "SIGNALED");
  EXPECT_EQ(jobs[0]["exit_code"]["signal"]["signal_id"], SIGKILL);
  EXPECT_EQ(jobs[0]["exit_code"]["signal"]["name"], "KILL");
  EXPECT_EQ(jobs[1]["exit_code"]["status"], "FAILED");
  EXPECT_EQ(jobs[1]["exit_code"]["return_code"], 3);
  EXPECT_EQ(jobs[2]["state"]["current"], "RUNNING");
  EXPECT_EQ(jobs[2]["time"]["elapsed"], 490);  // Until `now`
  EXPECT_EQ(jobs[2]["time"]["limit"], 0);      // UNLIMITED
}

TEST(SacctJson, StepsCarryTheirHighestTasksMemory) {
  wire::AccountingJob j = FinishedGpuJob();
  j.set_batch(true);
  j.set_batch_cpus(8);
  j.set_batch_tres("cpu=8,mem=16G,node=1");
  j.mutable_batch_usage()->set_max_rss_kb(51200);
  j.mutable_batch_usage()->set_max_rss_node("n1");
  j.mutable_batch_usage()->set_tasks(1);
  wire::AccountingStep* s = j.add_steps();
  s->set_step_id(0);
  s->set_name("python3");
  s->set_state(wire::JOB_STATE_COMPLETED);
  s->set_start_time(1020);
  s->set_end_time(1030);
  s->set_nodelist("n2");
  nlohmann::json job = nlohmann::json::parse(SacctJson({j}, 0))["jobs"][0];
  ASSERT_EQ(job["steps"].size(), 2u);
  const nlohmann::json& batch = job["steps"][0];
  EXPECT_EQ(batch["step"]["id"], "42.batch");
  ASSERT_EQ(batch["tres"]["requested"]["max"].size(), 1u);
  const nlohmann::json& mem = batch["tres"]["requested"]["max"][0];
  EXPECT_EQ(mem["type"], "mem");
  EXPECT_EQ(mem["id"], 2);
  EXPECT_EQ(mem["count"], 51200ull * 1024);  // Bytes
  EXPECT_EQ(mem["node"], "n1");
  EXPECT_EQ(mem["task"], 0);
  // Not measured: no requested usage at all.
  EXPECT_FALSE(job["steps"][1]["tres"].contains("requested"));
}

}  // namespace
}  // namespace rota::cli
