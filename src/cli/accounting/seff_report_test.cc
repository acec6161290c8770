#include "cli/accounting/seff_report.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

wire::AccountingJob BaseJob(uint32_t id, wire::JobState state) {
  wire::AccountingJob j;
  j.set_job_id(id);
  j.set_cluster("anchor");
  j.set_user("alice");
  j.set_uid(1001);
  j.set_gid(1001);
  j.set_state(state);
  return j;
}

SeffContext Ctx(int64_t now = 0) {
  SeffContext ctx;
  ctx.now = now;
  ctx.group = "staff";
  return ctx;
}

// Job 42: one core for 100 s, half of it busy, 100 MB of its 1 GB used.
wire::AccountingJob Job42() {
  wire::AccountingJob j = BaseJob(42, wire::JOB_STATE_COMPLETED);
  j.set_ended(true);
  j.set_alloc_cpus(1);
  j.set_alloc_nodes(1);
  j.set_start_time(1000);
  j.set_end_time(1100);
  j.set_req_mem_mb(1024);
  j.set_nodelist("n1");
  j.set_batch(true);
  wire::StepUsage* b = j.mutable_batch_usage();
  b->set_user_cpu_us(40'000'000);
  b->set_system_cpu_us(10'400'000);  // 50.4 s: rounded to 50
  b->set_tasks(1);
  b->set_max_rss_kb(102400);
  b->set_ave_rss_kb(102400);
  return j;
}

TEST(SeffReportTest, PendingJobHasNoEfficiency) {
  wire::AccountingJob j = BaseJob(41, wire::JOB_STATE_PENDING);
  j.set_req_tres("cpu=1,mem=1G,node=1");
  EXPECT_EQ(SeffReport(j, Ctx()),
            "Job ID: 41\n"
            "Cluster: anchor\n"
            "User/Group: alice/staff\n"
            "State: PENDING\n"
            "Cores: 1\n"
            "Efficiency not available for jobs in the PENDING state.\n");
  j.set_req_tres("cpu=8,mem=1G,node=2");
  EXPECT_EQ(SeffReport(j, Ctx()),
            "Job ID: 41\n"
            "Cluster: anchor\n"
            "User/Group: alice/staff\n"
            "State: PENDING\n"
            "Nodes: 2\n"
            "Cores per node: 4\n"
            "Efficiency not available for jobs in the PENDING state.\n");
}

TEST(SeffReportTest, CompletedSingleCore) {
  EXPECT_EQ(SeffReport(Job42(), Ctx()),
            "Job ID: 42\n"
            "Cluster: anchor\n"
            "User/Group: alice/staff\n"
            "State: COMPLETED (exit code 0)\n"
            "Cores: 1\n"
            "CPU Utilized: 00:00:50\n"
            "CPU Efficiency: 50.00% of 00:01:40 core-walltime\n"
            "Job Wall-clock time: 00:01:40\n"
            "Memory Utilized: 100.00 MB\n"
            "Memory Efficiency: 9.77% of 1.00 GB (1.00 GB/node)\n");
}

TEST(SeffReportTest, DebugPrintsTheRawFiguresFirst) {
  SeffContext ctx = Ctx();
  ctx.debug = true;
  const std::string report = SeffReport(Job42(), ctx);
  EXPECT_EQ(report.substr(0, report.find("Job ID:")),
            "Slurm data: JobID ArrayJobID User Group State Clustername Ncpus Nnodes Ntasks Reqmem "
            "PerNode Cput Walltime Mem ExitStatus\n"
            "Slurm data: 42  alice staff COMPLETED anchor 1 1 1 1048576 1 50 100 102400 0\n");
  EXPECT_EQ(report.substr(report.find("Job ID:")), SeffReport(Job42(), Ctx()));
}

TEST(SeffReportTest, MultiNodeWithUnevenTasks) {
  wire::AccountingJob j = BaseJob(43, wire::JOB_STATE_FAILED);
  j.set_ended(true);
  j.set_exit_code(3 << 8);
  j.set_alloc_cpus(8);
  j.set_alloc_nodes(2);
  j.set_start_time(1000);
  j.set_end_time(1000 + 90061);  // 1-01:01:01
  j.set_req_mem_mb(8192);
  j.set_nodelist("n[1-2]");
  j.set_batch(true);
  wire::StepUsage* b = j.mutable_batch_usage();
  b->set_user_cpu_us(244'000'000);
  b->set_tasks(1);
  b->set_max_rss_kb(1024);
  b->set_ave_rss_kb(1024);
  wire::StepUsage* u = j.add_steps()->mutable_usage();
  u->set_user_cpu_us(300'000'000'000);
  u->set_system_cpu_us(60'000'000'000);
  u->set_tasks(8);
  u->set_max_rss_kb(786432);  // 768 MB
  u->set_max_rss_node("n2");
  u->set_max_rss_task(5);
  u->set_ave_rss_kb(524288);  // 512 MB
  EXPECT_EQ(SeffReport(j, Ctx()),
            "Job ID: 43\n"
            "Cluster: anchor\n"
            "User/Group: alice/staff\n"
            "State: FAILED (exit code 3)\n"
            "Nodes: 2\n"
            "Cores per node: 4\n"
            "CPU Utilized: 4-04:04:04\n"
            "CPU Efficiency: 50.00% of 8-08:08:08 core-walltime\n"
            "Job Wall-clock time: 1-01:01:01\n"
            "Memory Utilized: 4.00 GB\n"
            "Memory Efficiency: 50.00% of 8.00 GB (4.00 GB/node)\n"
            "The task which had the largest memory consumption differs by 150.00% from the "
            "average task max memory consumption\n");
}

TEST(SeffReportTest, RunningJobWarns) {
  wire::AccountingJob j = BaseJob(44, wire::JOB_STATE_RUNNING);
  j.set_alloc_cpus(2);
  j.set_alloc_nodes(1);
  j.set_start_time(1000);
  j.set_req_mem_mb(2048);
  EXPECT_EQ(SeffReport(j, Ctx(/*now=*/1060)),
            "Job ID: 44\n"
            "Cluster: anchor\n"
            "User/Group: alice/staff\n"
            "State: RUNNING\n"
            "Nodes: 1\n"
            "Cores per node: 2\n"
            "CPU Utilized: 00:00:00\n"
            "CPU Efficiency: 0.00% of 00:02:00 core-walltime\n"
            "Job Wall-clock time: 00:01:00\n"
            "Memory Utilized: 0.00 MB\n"
            "Memory Efficiency: 0.00% of 2.00 GB (2.00 GB/node)\n"
            "WARNING: Efficiency statistics may be misleading for RUNNING jobs.\n");
}

TEST(SeffReportTest, ArrayTask) {
  wire::AccountingJob j = Job42();
  j.set_job_id(51);
  j.set_array_job_id(50);
  j.set_array_task_id(3);
  const std::string report = SeffReport(j, Ctx());
  EXPECT_EQ(report.substr(0, report.find("Cluster:")), "Job ID: 51\nArray Job ID: 50_3\n");

  wire::AccountingJob first = j;
  first.set_job_id(50);
  first.set_array_task_id(0);
  EXPECT_EQ(SeffChooseJob({j, first}, 50)->job_id(), 50u);  // The job of that id
  EXPECT_EQ(SeffChooseJob({j, first}, 51)->job_id(), 51u);
  EXPECT_EQ(SeffChooseJob({j}, 50)->job_id(), 51u);  // Else the array's first task
  EXPECT_EQ(SeffChooseJob({}, 50), nullptr);
}

TEST(SeffReportTest, GpuLinesFromTheStepWatchedLongest) {
  wire::AccountingJob j = Job42();
  wire::GpuUsage* g = j.mutable_batch_usage()->mutable_gpu();
  g->set_gpus(2);
  g->set_samples(100);
  g->set_util_ave(95.0);
  g->set_util_max(200);
  g->set_mem_max_bytes(12ull << 30);
  g->set_mem_total_bytes(160ull << 30);
  g->set_energy_j(12345.6);
  wire::GpuUsage* shorter = j.add_steps()->mutable_usage()->mutable_gpu();
  shorter->set_gpus(1);
  shorter->set_samples(10);
  shorter->set_util_ave(10);
  shorter->set_util_max(20);
  shorter->set_energy_j(99);
  const std::string report = SeffReport(j, Ctx());
  EXPECT_EQ(report.substr(report.find("Memory Efficiency:")),
            "Memory Efficiency: 9.77% of 1.00 GB (1.00 GB/node)\n"
            "GPUs: 2\n"
            "GPU Utilization: 47.50% (mean of the GPUs; peak 100%)\n"
            "GPU Memory Utilized: 12.00 GB (peak, of 160.00 GB)\n"
            "GPU Energy: 12346 J\n");
  // Without samples, no GPU lines.
  j.mutable_batch_usage()->clear_gpu();
  j.clear_steps();
  EXPECT_EQ(SeffReport(j, Ctx()), SeffReport(Job42(), Ctx()));
}

TEST(SeffReportTest, SizesAsSeffPrintsThem) {
  EXPECT_EQ(SeffKbytes(0), "0.00 MB");
  EXPECT_EQ(SeffKbytes(0.5), "0.50 KB");
  EXPECT_EQ(SeffKbytes(512), "512.00 KB");
  EXPECT_EQ(SeffKbytes(1024), "1.00 MB");
  EXPECT_EQ(SeffKbytes(1536.0 * 1024), "1.50 GB");
  EXPECT_EQ(SeffKbytes(3.0 * 1024 * 1024 * 1024), "3.00 TB");
}

}  // namespace
}  // namespace rota::cli
