// DefCpuPerGPU and DefMemPerGPU for GPU jobs that did not say, MaxMemPerCPU
// adjusting a job's request at submission, and EnforcePartLimits' verdicts;
// then the same through the controller core, with JobRequeue and
// OverTimeLimit, on an injected clock.
#include "ctld/core/job_defaults.h"

#include <gtest/gtest.h>

#include <csignal>
#include <functional>

#include "ctld/core/core_test_fixture.h"
#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

// The slurm.conf of these tests after its ClusterName and SlurmctldHost lines.
std::string ClusterLines(const std::string& global, const std::string& partition_keys) {
  return "GresTypes=gpu\nSelectTypeParameters=CR_Core_Memory\n" + global +
         "NodeName=n[1-2] CPUs=8 RealMemory=64000 Gres=gpu:a100:4\n"
         "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 MaxNodes=1 " +
         partition_keys + "\n";
}

std::shared_ptr<const conf::ClusterConfig> Load(const TempDir& dir, const std::string& global,
                                                const std::string& partition_keys = "") {
  auto loaded = LoadConfigFiles(
      dir, {"ClusterName=c\nSlurmctldHost=h\n" + ClusterLines(global, partition_keys)});
  EXPECT_TRUE(loaded.config.ok()) << loaded.Text();
  // Keys that take effect are not reported as without effect.
  EXPECT_EQ(loaded.Text().find("has no effect"), std::string::npos) << loaded.Text();
  return loaded.config.ok() ? *loaded.config : nullptr;
}

GpuDefaults Defaults(const conf::ClusterConfig& config, std::function<void(wire::JobSpec&)> edit) {
  wire::JobSpec spec;
  edit(spec);
  return GpuDefaultsFor(spec, config.partitions.front(), config);
}

wire::JobSpec Applied(const conf::ClusterConfig& config, std::function<void(wire::JobSpec&)> edit) {
  wire::JobSpec spec;
  edit(spec);
  ApplyMaxMemPerCpu(config.partitions.front(), config, spec);
  return spec;
}

TEST(JobDefaultsTest, AsksForGpusByAnyDenominator) {
  wire::JobSpec s;
  EXPECT_FALSE(AsksForGpus(s));
  s.set_gres("craynetwork:1");
  EXPECT_FALSE(AsksForGpus(s));
  s.set_gres("craynetwork:1,gpu:a100:2");
  EXPECT_TRUE(AsksForGpus(s));
  wire::JobSpec t;
  t.set_gpus_per_task("1");
  EXPECT_TRUE(AsksForGpus(t));
}

TEST(JobDefaultsTest, ClusterDefaultsForGpuJobsOnly) {
  TempDir dir;
  auto config = Load(dir, "DefCpuPerGPU=6\nDefMemPerGPU=8G\nDefMemPerCPU=1000\n");
  ASSERT_NE(config, nullptr);
  GpuDefaults gpu = Defaults(*config, [](auto& s) { s.set_gres("gpu:2"); });
  EXPECT_EQ(gpu.cpus_per_gpu, 6u);
  EXPECT_EQ(gpu.mem_per_gpu, 8192u);
  GpuDefaults cpu = Defaults(*config, [](auto& s) { s.set_num_tasks(2); });
  EXPECT_EQ(cpu.cpus_per_gpu, 0u);
  EXPECT_EQ(cpu.mem_per_gpu, 0u);
  // None where the job said: --cpus-per-task or --cpus-per-gpu, any memory option.
  GpuDefaults own = Defaults(*config, [](auto& s) {
    s.set_gpus("2");
    s.set_cpus_per_task(3);
    s.set_mem_per_cpu_mb(500);
  });
  EXPECT_EQ(own.cpus_per_gpu, 0u);
  EXPECT_EQ(own.mem_per_gpu, 0u);
  GpuDefaults whole = Defaults(*config, [](auto& s) {
    s.set_gpus_per_node("1");
    s.set_cpus_per_gpu(2);
    s.set_mem_given(true);  // --mem=0
  });
  EXPECT_EQ(whole.cpus_per_gpu, 0u);
  EXPECT_EQ(whole.mem_per_gpu, 0u);
}

TEST(JobDefaultsTest, PartitionDefaultsWin) {
  TempDir dir;
  auto config = Load(dir, "DefCpuPerGPU=6\nDefMemPerGPU=8G\n", "DefCpuPerGPU=2 DefMemPerGPU=1000");
  ASSERT_NE(config, nullptr);
  GpuDefaults d = Defaults(*config, [](auto& s) { s.set_gres("gpu:1"); });
  EXPECT_EQ(d.cpus_per_gpu, 2u);
  EXPECT_EQ(d.mem_per_gpu, 1000u);
  // A partition's DefMemPerCPU is nearer to the job than the cluster's DefMemPerGPU.
  TempDir dir2;
  auto per_cpu = Load(dir2, "DefMemPerGPU=8G\n", "DefMemPerCPU=700");
  ASSERT_NE(per_cpu, nullptr);
  EXPECT_EQ(Defaults(*per_cpu, [](auto& s) { s.set_gres("gpu:1"); }).mem_per_gpu, 0u);
}

TEST(JobDefaultsTest, MaxMemPerCpuRaisesCpusPerTask) {
  TempDir dir;
  auto config = Load(dir, "MaxMemPerCPU=2000\n");
  ASSERT_NE(config, nullptr);
  // 5000 MB a CPU is 3 CPUs of at most 2000 (1667 each).
  wire::JobSpec s = Applied(*config, [](auto& s) { s.set_mem_per_cpu_mb(5000); });
  EXPECT_EQ(s.cpus_per_task(), 3u);
  EXPECT_EQ(s.mem_per_cpu_mb(), 1667u);
  wire::JobSpec two = Applied(*config, [](auto& s) {
    s.set_cpus_per_task(2);
    s.set_mem_per_cpu_mb(4000);
  });
  EXPECT_EQ(two.cpus_per_task(), 4u);
  EXPECT_EQ(two.mem_per_cpu_mb(), 2000u);
  wire::JobSpec within = Applied(*config, [](auto& s) { s.set_mem_per_cpu_mb(2000); });
  EXPECT_EQ(within.cpus_per_task(), 0u);
  EXPECT_EQ(within.mem_per_cpu_mb(), 2000u);
  // The partition's own limit replaces the cluster's.
  TempDir dir2;
  auto part = Load(dir2, "MaxMemPerCPU=2000\n", "MaxMemPerCPU=1000");
  ASSERT_NE(part, nullptr);
  EXPECT_EQ(Applied(*part, [](auto& s) { s.set_mem_per_cpu_mb(2000); }).cpus_per_task(), 2u);
}

TEST(JobDefaultsTest, EnforcePartLimitsRefusesWithSlurmsWords) {
  TempDir dir;
  auto no = Load(dir, "");
  ASSERT_NE(no, nullptr);
  EXPECT_TRUE(EnforcePartitionLimits(*no, "PartitionTimeLimit").ok());
  TempDir dir2;
  auto all = Load(dir2, "EnforcePartLimits=ALL\n");
  ASSERT_NE(all, nullptr);
  EXPECT_TRUE(EnforcePartitionLimits(*all, "").ok());
  EXPECT_EQ(EnforcePartitionLimits(*all, "PartitionTimeLimit").message(),
            "Requested time limit is invalid (missing or exceeds some limit)");
  EXPECT_EQ(EnforcePartitionLimits(*all, "PartitionNodeLimit").message(),
            "Node count specification invalid");
  TempDir dir3;
  auto yes = Load(dir3, "EnforcePartLimits=yes\n");  // The older spelling of ANY
  ASSERT_NE(yes, nullptr);
  EXPECT_EQ(yes->settings.enforce_part_limits, "ANY");
}

// ---- Through the controller core.

class ConfKeysCoreTest : public testing::CoreTest {
 protected:
  void Start(const std::string& global, const std::string& partition_keys = "") {
    CoreTest::Start(ClusterLines(global, partition_keys));
    if (HasFatalFailure()) return;
    // Keys that take effect are not reported as without effect.
    EXPECT_EQ(load_warnings_.find("has no effect"), std::string::npos) << load_warnings_;
  }
  Result<wire::SubmitJobResponse> Submit(const SpecEdit& edit) { return SubmitAs(alice_, edit); }
  uint32_t SubmitOk(const SpecEdit& edit) { return SubmitOkAs(alice_, edit); }
};

TEST_F(ConfKeysCoreTest, GpuDefaultsShapeTheAllocation) {
  Start("DefCpuPerGPU=3\nDefMemPerGPU=4000\n");
  uint32_t id = SubmitOk([](auto& s) { s.set_gres("gpu:2"); });
  Tick();
  const wire::JobRecord& job = Job(id);
  ASSERT_EQ(job.state(), wire::JOB_STATE_RUNNING);
  // Defaults, not the job's own request (scontrol shows no CpusPerTres).
  EXPECT_EQ(job.spec().cpus_per_gpu(), 0u);
  EXPECT_EQ(job.spec().mem_per_gpu_mb(), 0u);
  EXPECT_EQ(job.alloc_cpus(), 6u);
  ASSERT_EQ(job.allocs_size(), 1);
  EXPECT_EQ(job.allocs(0).mem_mb(), 8000u);
}

TEST_F(ConfKeysCoreTest, MaxMemPerCpuGivesMoreCpus) {
  Start("MaxMemPerCPU=1000\n");
  uint32_t id = SubmitOk([](auto& s) { s.set_mem_per_cpu_mb(3000); });
  Tick();
  ASSERT_EQ(Job(id).state(), wire::JOB_STATE_RUNNING);
  EXPECT_EQ(Job(id).alloc_cpus(), 3u);
  EXPECT_EQ(Job(id).allocs(0).mem_mb(), 3000u);
}

// SchedulerParameters=max_array_tasks bounds how many tasks an array holds;
// MaxArraySize still bounds their ids.
TEST_F(ConfKeysCoreTest, MaxArrayTasksBoundsTheTasksNotTheIds) {
  Start("MaxArraySize=100001\nSchedulerParameters=max_array_tasks=10\n");
  auto array = [&](const std::string& spec) { return Submit([&](auto& s) { s.set_array(spec); }); };
  EXPECT_TRUE(array("0-9").ok());
  EXPECT_TRUE(array("99990-99999").ok());
  EXPECT_TRUE(array("100000").ok());
  auto eleven = array("0-10");
  ASSERT_FALSE(eleven.ok());
  EXPECT_EQ(eleven.status().message(), "Invalid job array specification");
  EXPECT_FALSE(array("100001").ok());  // An id past MaxArraySize
}

TEST_F(ConfKeysCoreTest, EnforcePartLimitsRefusesAtSubmitInsteadOfPending) {
  Start("");
  uint32_t pends = SubmitOk([](auto& s) { s.set_time_limit_s(2 * 86400); });
  Tick();
  EXPECT_EQ(Job(pends).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(pends).reason(), "PartitionTimeLimit");

  Start("EnforcePartLimits=ALL\n");
  auto too_long = Submit([](auto& s) { s.set_time_limit_s(2 * 86400); });
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().message(),
            "Requested time limit is invalid (missing or exceeds some limit)");
  auto too_many = Submit([](auto& s) { s.set_min_nodes(2); });  // MaxNodes=1
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().message(), "Node count specification invalid");
  EXPECT_TRUE(Submit([](auto& s) { s.set_time_limit_s(3600); }).ok());
}

TEST_F(ConfKeysCoreTest, JobRequeueIsTheDefaultOfRequeueOptions) {
  Start("JobRequeue=0\n");
  EXPECT_FALSE(Job(SubmitOk([](auto&) {})).requeue());
  EXPECT_TRUE(Job(SubmitOk([](auto& s) { s.set_requeue(1); })).requeue());
  Start("");  // Slurm's default: 1
  EXPECT_TRUE(Job(SubmitOk([](auto&) {})).requeue());
  EXPECT_FALSE(Job(SubmitOk([](auto& s) { s.set_requeue(2); })).requeue());
}

TEST_F(ConfKeysCoreTest, OverTimeLimitLetsAJobRunPastItsLimit) {
  Start("OverTimeLimit=2\n");  // Minutes
  uint32_t id = SubmitOk([](auto& s) { s.set_time_limit_s(60); });
  Tick();
  now_ += 60 + 119;
  EXPECT_TRUE(Tick().signals.empty());
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_RUNNING);
  // Woken for the kill, not for the soft limit already past.
  ASSERT_TRUE(core_->NextWakeTime().has_value());
  EXPECT_LE(*core_->NextWakeTime(), kT0 + 180);
  now_ += 1;
  Effects e = Tick();
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].signal, SIGTERM);
  EXPECT_EQ(Job(id).final_state(), wire::JOB_STATE_TIMEOUT);
}

TEST_F(ConfKeysCoreTest, PartitionOverTimeLimitUnlimitedNeverKills) {
  Start("OverTimeLimit=1\n", "OverTimeLimit=UNLIMITED");
  uint32_t id = SubmitOk([](auto& s) { s.set_time_limit_s(60); });
  Tick();
  now_ += 200;  // Past the limit and the cluster's OverTimeLimit
  EXPECT_TRUE(Tick().signals.empty());
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_RUNNING);
}

}  // namespace
}  // namespace rota::ctld
