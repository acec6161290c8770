#include "conf/slurm_conf_parser.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::conf {
namespace {

using rota::testing::ConfigFiles;
using rota::testing::kMinimalHead;
using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

TEST(SlurmConfParserTest, KeysAreCaseInsensitiveAndDefaultsApply) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string(kMinimalHead) + "schedulertype=SCHED/BUILTIN\n"
                                                                  "NodeName=n1 CPUs=8\n"
                                                                  "PartitionName=p Nodes=n1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const ClusterConfig& c = **loaded.config;
  EXPECT_EQ(c.settings.scheduler_type, "sched/builtin");
  EXPECT_EQ(c.settings.slurmctld_port, 6817);
  EXPECT_EQ(c.settings.select_type, "select/cons_tres");
  EXPECT_EQ(c.settings.max_job_count, 10000u);
  const NodeConfig* n = c.FindNode("n1");
  ASSERT_NE(n, nullptr);
  // CPUs alone: Slurm makes one core per socket and a socket per CPU.
  EXPECT_EQ(n->cpus, 8u);
  EXPECT_EQ(n->sockets, 8u);
  EXPECT_EQ(n->cores_per_socket, 1u);
  EXPECT_EQ(n->real_memory_mb, 1u);
  EXPECT_EQ(c.FindPartition("p")->max_time, kInfiniteDuration);
  EXPECT_EQ(c.FindPartition("p")->state, "UP");
}

TEST(SlurmConfParserTest, JobAcctGatherFrequencyGivesTheSamplingInterval) {
  auto task_seconds = [](const std::string& line) -> int64_t {
    TempDir dir;
    auto loaded = LoadConfigFiles(
        dir, {std::string(kMinimalHead) + line + "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n"});
    return loaded.config.ok() ? (*loaded.config)->settings.job_acct_gather_task_s : -1;
  };
  EXPECT_EQ(task_seconds(""), 30);  // Slurm's default
  EXPECT_EQ(task_seconds("JobAcctGatherFrequency=10\n"), 10);
  EXPECT_EQ(task_seconds("JobAcctGatherFrequency=energy=60,Task=5,network=0,filesystem=0\n"), 5);
  EXPECT_EQ(task_seconds("JobAcctGatherFrequency=energy=60\n"), 30);
  EXPECT_EQ(task_seconds("JobAcctGatherFrequency=task=0\n"), 0);
}

TEST(SlurmConfParserTest, JobAcctGatherTypeIsKeptAndUnwarned) {
  auto gather = [](const std::string& line) -> std::string {
    TempDir dir;
    auto loaded = LoadConfigFiles(
        dir, {std::string(kMinimalHead) + line + "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n"});
    if (!loaded.config.ok() || loaded.Text().find("JobAcctGatherType") != std::string::npos) {
      return "bad: " + loaded.Text();
    }
    return (*loaded.config)->settings.job_acct_gather_type;
  };
  EXPECT_EQ(gather(""), "jobacct_gather/none");  // Slurm's default
  EXPECT_EQ(gather("JobAcctGatherType=jobacct_gather/cgroup\n"), "jobacct_gather/cgroup");
  EXPECT_EQ(gather("JobAcctGatherType=jobacct_gather/linux\n"), "jobacct_gather/linux");
}

TEST(SlurmConfParserTest, SlurmctldParametersActsOnEnableConfiglessAndWarnsOfTheRest) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string(kMinimalHead) +
                                      "SlurmctldParameters=Enable_Configless,idle_on_node_suspend\n"
                                      "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_TRUE((*loaded.config)->settings.enable_configless);
  EXPECT_NE(loaded.Text().find(
                "SlurmctldParameters: idle_on_node_suspend is accepted, has no effect in Rota"),
            std::string::npos)
      << loaded.Text();
  EXPECT_EQ(loaded.Text().find("Enable_Configless"), std::string::npos) << loaded.Text();
  TempDir plain;
  auto without = LoadConfigFiles(
      plain, {std::string(kMinimalHead) + "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n"});
  ASSERT_TRUE(without.config.ok());
  EXPECT_FALSE((*without.config)->settings.enable_configless);
}

TEST(SlurmConfParserTest, AccountingStoreFlagsNamesWhatAccountingKeeps) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + "AccountingStoreFlags=Job_Script,job_env\n"
                                                        "NodeName=n1\nPartitionName=p Nodes=n1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const SlurmConf& s = (*loaded.config)->settings;
  EXPECT_TRUE(s.StoresInAccounting("job_script"));
  EXPECT_TRUE(s.StoresInAccounting("job_env"));
  EXPECT_FALSE(s.StoresInAccounting("job_comment"));

  TempDir bad_dir;
  auto bad = LoadConfigFiles(
      bad_dir, {std::string(kMinimalHead) + "AccountingStoreFlags=job_script,job_extra\n"  // line 4
                                            "NodeName=n1\nPartitionName=p Nodes=n1\n"});
  EXPECT_FALSE(bad.config.ok());
  EXPECT_NE(bad.Text().find("slurm.conf line 4: AccountingStoreFlags=job_script,job_extra names "
                            "'job_extra', which is not one of"),
            std::string::npos)
      << bad.Text();
}

TEST(SlurmConfParserTest, GpuIdlePolicyIsRotasOwnPartitionKey) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) +
            "NodeName=n1 CPUs=1\n"
            "PartitionName=p Nodes=n1 GpuIdlePolicy=threshold=2.5,period=1:30,action=Cancel,"
            "grace=10\n"
            "PartitionName=q Nodes=n1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_EQ(loaded.Text(), "") << "a known key: no warning";
  const GpuIdlePolicy& p = (*loaded.config)->FindPartition("p")->gpu_idle;
  EXPECT_DOUBLE_EQ(p.threshold_pct, 2.5);
  EXPECT_EQ(p.period_s, 90);
  EXPECT_EQ(p.action, GpuIdlePolicy::Action::kCancel);
  EXPECT_EQ(p.grace_s, 600);
  // Without the key: flagged after 30 minutes below 5%, nothing done.
  EXPECT_EQ((*loaded.config)->FindPartition("q")->gpu_idle, GpuIdlePolicy());
  EXPECT_EQ(GpuIdleActionName(GpuIdlePolicy::Action::kNotify), "notify");
}

TEST(SlurmConfParserTest, CpusDerivedFromTopology) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) +
            "NodeName=n[1-2] Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=64G\n"
            "PartitionName=p Nodes=n[1-2]\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const NodeConfig* n = (*loaded.config)->FindNode("n2");
  EXPECT_EQ(n->cpus, 64u);
  EXPECT_EQ(n->cores(), 32u);
  EXPECT_EQ(n->real_memory_mb, 65536u);
}

// "CPUs=128 Sockets=2" with no CoresPerSocket, as sites paste it: 64 cores a
// socket, so gres.conf Cores= over both sockets' cores is valid; one warning
// says what was assumed.
TEST(SlurmConfParserTest, CoresPerSocketDerivedFromCpusAndSockets) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "GresTypes=gpu\n"
                                        "NodeName=g[01-02] CPUs=128 Sockets=2 Gres=gpu:a100:8\n"
                                        "NodeName=h1 CPUs=32 Sockets=2 ThreadsPerCore=2\n"
                                        "NodeName=c1 CPUs=16 Sockets=2 CoresPerSocket=8\n"
                                        "PartitionName=p Nodes=ALL\n",
            "NodeName=g[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-63\n"
            "NodeName=g[01-02] Name=gpu Type=a100 File=/dev/nvidia[4-7] Cores=64-127\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_FALSE(loaded.diags.has_errors()) << loaded.Text();
  const ClusterConfig& c = **loaded.config;
  EXPECT_EQ(c.FindNode("g02")->sockets, 2u);
  EXPECT_EQ(c.FindNode("g02")->cores_per_socket, 64u);
  EXPECT_EQ(c.FindNode("g02")->cpus, 128u);
  EXPECT_EQ(c.FindNode("h1")->cores_per_socket, 8u);
  EXPECT_EQ(c.FindNode("h1")->cores(), 16u);
  EXPECT_EQ(c.FindNode("c1")->cores_per_socket, 8u);
  int derived_warnings = 0;
  for (const Diagnostic& d : loaded.diags.all()) {
    if (d.message.find("CoresPerSocket not given") == std::string::npos) continue;
    ++derived_warnings;
    EXPECT_EQ(d.severity, Severity::kWarning);
  }
  // One for the g[01-02] line, one for h1; none for c1, which gave it.
  EXPECT_EQ(derived_warnings, 2) << loaded.Text();
}

TEST(SlurmConfParserTest, NodeAndPartitionDefaultsAccumulate) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "NodeName=DEFAULT Sockets=2 CoresPerSocket=4\n"
                                        "NodeName=a1\n"
                                        "NodeName=DEFAULT RealMemory=1000\n"
                                        "NodeName=b1 CoresPerSocket=8\n"
                                        "PartitionName=DEFAULT MaxTime=1:00:00 State=DOWN\n"
                                        "PartitionName=p1 Nodes=a1\n"
                                        "PartitionName=p2 Nodes=ALL MaxTime=2:00:00\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const ClusterConfig& c = **loaded.config;
  EXPECT_EQ(c.FindNode("a1")->cpus, 8u);
  EXPECT_EQ(c.FindNode("a1")->real_memory_mb, 1u);
  EXPECT_EQ(c.FindNode("b1")->cpus, 16u);
  EXPECT_EQ(c.FindNode("b1")->real_memory_mb, 1000u);
  EXPECT_EQ(c.FindPartition("p1")->max_time, 3600);
  EXPECT_EQ(c.FindPartition("p1")->state, "DOWN");
  EXPECT_EQ(c.FindPartition("p2")->max_time, 7200);
  EXPECT_EQ(c.FindPartition("p2")->nodes, (std::vector<std::string>{"a1", "b1"}));
}

TEST(SlurmConfParserTest, NodeHostnamesAndAddressesAlign) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) +
                            "NodeName=n[1-3] NodeHostname=h[1-3] NodeAddr=127.0.0.1 Port=17001\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const NodeConfig* n = (*loaded.config)->FindNode("n2");
  EXPECT_EQ(n->hostname, "h2");
  EXPECT_EQ(n->address, "127.0.0.1");
  EXPECT_EQ(n->port, 17001);
}

TEST(SlurmConfParserTest, SeveralNodeDaemonsOnOneHostGetAPortEach) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "SlurmdPort=7000\n"
                                        "NodeName=r[1-3] NodeAddr=127.0.0.1 Port=[17001-17003]\n"
                                        "NodeName=s[1-2] NodeAddr=127.0.0.2\n"
                                        "NodeName=alone NodeAddr=10.0.0.9\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const ClusterConfig& c = **loaded.config;
  EXPECT_EQ(c.FindNode("r1")->port, 17001);
  EXPECT_EQ(c.FindNode("r3")->port, 17003);
  // No Port= but one host: SlurmdPort plus their place among that host's nodes.
  EXPECT_EQ(c.FindNode("s1")->port, 7000);
  EXPECT_EQ(c.FindNode("s2")->port, 7001);
  EXPECT_EQ(c.FindNode("alone")->port, 0);  // SlurmdPort, as Slurm
  auto bad = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "NodeName=t[1-3] NodeAddr=127.0.0.1 Port=[17001-17002]\n"});
  EXPECT_FALSE(bad.config.ok());
  EXPECT_NE(bad.Text().find("Port=[17001-17002] names 2 hosts but NodeName= names 3"),
            std::string::npos)
      << bad.Text();
}

TEST(SlurmConfParserTest, MisalignedNodeAddressesAreAnError) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + "NodeName=m[1-2] NodeAddr=10.0.0.[1-3]\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(loaded.Text().find("error: slurm.conf line 4: NodeAddr=10.0.0.[1-3] names 3 hosts but "
                               "NodeName= names 2"),
            std::string::npos)
      << loaded.Text();
}

TEST(SlurmConfParserTest, ControllersAndSchedulerParameters) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir,
      {"ClusterName=c\nSlurmctldHost=head1(10.1.1.1)\nSlurmctldHost=head2\n"
       "SchedulerParameters=bf_window=60,bf_interval=10,bf_max_job_user=5,"
       "bf_min_prio_reserve=2500,bf_max_job_start=40,preempt_youngest_first,bf_busy_nodes,"
       "max_rpc_cnt=150,default_queue_depth=50,sched_min_interval=500000,bf_job_part_"
       "count_reserve=1,"
       "max_script_size=1000,bf_reserve_in_node_order,rota_predict_runtime,kill_invalid_depend,"
       "frobnicate\n"
       "SlurmctldPort=7817\nNodeName=n1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  auto says = [&](std::string_view text) { return loaded.Text().find(text) != std::string::npos; };
  const SlurmConf& s = (*loaded.config)->settings;
  ASSERT_EQ(s.controllers.size(), 2u);
  EXPECT_EQ(s.controllers[0].name, "head1");
  EXPECT_EQ(s.controllers[0].address, "10.1.1.1");
  EXPECT_EQ(s.controllers[1].name, "head2");
  EXPECT_EQ(s.scheduler.bf_window, 3600);
  EXPECT_EQ(s.scheduler.bf_interval, 10);
  EXPECT_EQ(s.scheduler.bf_max_job_user, 5u);
  EXPECT_EQ(s.scheduler.bf_min_prio_reserve, 2500u);
  EXPECT_EQ(s.scheduler.bf_max_job_start, 40u);
  EXPECT_TRUE(s.scheduler.preempt_youngest_first);
  EXPECT_EQ(s.scheduler.bf_job_part_count_reserve, 1u);
  EXPECT_EQ(s.scheduler.default_queue_depth, 50u);
  EXPECT_EQ(s.scheduler.sched_min_interval_us, 500000);
  EXPECT_EQ(s.scheduler.max_script_size, 1000u);
  EXPECT_FALSE(s.scheduler.bf_continue);
  EXPECT_TRUE(s.scheduler.bf_reserve_in_node_order);
  EXPECT_TRUE(s.scheduler.rota_predict_runtime);
  EXPECT_TRUE(s.scheduler.kill_invalid_depend);
  EXPECT_EQ(s.slurmctld_port, 7817);
  EXPECT_TRUE(
      says("warning: slurm.conf line 4: SchedulerParameters: unknown option "
           "frobnicate (ignored)"))
      << loaded.Text();
  // Slurm's own options Rota does not act on are named as such, not unknown.
  EXPECT_TRUE(
      says("warning: slurm.conf line 4: SchedulerParameters: max_rpc_cnt is "
           "accepted, has no effect in Rota"))
      << loaded.Text();
  EXPECT_FALSE(says("max_rpc_cnt=150 (ignored)")) << loaded.Text();
  // Parsed (a bad value is an error) but not acted on: said so too.
  EXPECT_TRUE(
      says("SchedulerParameters: default_queue_depth is accepted, has no "
           "effect in Rota"))
      << loaded.Text();
  // bf_busy_nodes is what Rota's backfill does: no word; against
  // bf_reserve_in_node_order it is told which one wins.
  EXPECT_TRUE(
      says("SchedulerParameters: bf_busy_nodes and bf_reserve_in_node_order "
           "contradict each other; reservations follow the plain node order"))
      << loaded.Text();
}

// A partition's or a node's key among the global ones is named as such: the
// fix is to move it, not to wait for Rota to learn it.
TEST(SlurmConfParserTest, PartitionAndNodeKeysAmongTheGlobalOnesSayWhereTheyBelong) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + "TRESBillingWeights=CPU=1.0,GRES/gpu=8\n"
                                                        "realmemory=1000\n"
                                                        "NodeName=n1\n"
                                                        "PartitionName=p Nodes=n1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_EQ(loaded.Text(),
            "warning: slurm.conf line 4: TRESBillingWeights belongs on a PartitionName line "
            "(PartitionName=DEFAULT for every partition); ignored here\n"
            "warning: slurm.conf line 5: realmemory belongs on a NodeName line (NodeName=DEFAULT "
            "for every node); ignored here\n");
  EXPECT_TRUE((*loaded.config)->partitions.at(0).billing_weights.empty());
}

TEST(SlurmConfParserTest, UnknownKeysWarnButLoad) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + "FancyFutureKey=1\n"
                                                        "SlurmdUser=root\n"
                                                        "NodeName=n1 Colour=blue\n"
                                                        "PartitionName=p Nodes=n1 Flavour=x\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  // A key Rota knows but does not act on is told as such (unenforced_keys.h).
  EXPECT_EQ(loaded.Text(),
            "warning: slurm.conf line 4: unknown key FancyFutureKey (ignored)\n"
            "warning: slurm.conf line 5: SlurmdUser is accepted, has no effect in Rota\n"
            "warning: slurm.conf line 6: unknown NodeName key Colour (ignored)\n"
            "warning: slurm.conf line 7: unknown PartitionName key Flavour (ignored)\n");
  EXPECT_EQ((*loaded.config)->settings.raw.at("SlurmdUser"), "root");
}

struct BadValueCase {
  std::string line;
  std::string expected;
};

// Names each case by its line in test listings.
void PrintTo(const BadValueCase& c, std::ostream* os) { *os << c.line; }

class SlurmConfBadValueTest : public ::testing::TestWithParam<BadValueCase> {};

TEST_P(SlurmConfBadValueTest, ReportsKeyValueAndLine) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "NodeName=n1 CPUs=4\n" + GetParam().line + "\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(loaded.Text().find("error: slurm.conf line 5: " + GetParam().expected),
            std::string::npos)
      << loaded.Text();
}

INSTANTIATE_TEST_SUITE_P(
    Values, SlurmConfBadValueTest,
    ::testing::Values(
        BadValueCase{"PartitionName=p Nodes=n1 MaxTime=one-day",
                     "MaxTime=one-day is not a valid time limit"},
        BadValueCase{"SelectType=select/magic",
                     "SelectType=select/magic is not one of select/cons_tres, select/cons_res, "
                     "select/linear"},
        BadValueCase{"SlurmctldPort=abc", "SlurmctldPort=abc is not a valid port"},
        BadValueCase{"KillWait=soon", "KillWait=soon is not a number of seconds"},
        BadValueCase{"PartitionName=p Nodes=n1 GpuIdlePolicy=action=shout",
                     "GpuIdlePolicy=action=shout has 'action=shout', not none, notify, cancel or "
                     "requeue"},
        BadValueCase{"PartitionName=p Nodes=n1 GpuIdlePolicy=threshold=150",
                     "GpuIdlePolicy=threshold=150 has 'threshold=150', not a percentage"},
        BadValueCase{"PartitionName=p Nodes=n1 GpuIdlePolicy=period=0",
                     "GpuIdlePolicy=period=0 has a period of 0"},
        BadValueCase{"JobAcctGatherFrequency=task=often",
                     "JobAcctGatherFrequency=task=often has 'task=often', which is not in seconds"},
        BadValueCase{"JobAcctGatherFrequency=gpu=5",
                     "JobAcctGatherFrequency=gpu=5 names 'gpu=5', which is not task=, energy=, "
                     "network= or filesystem="},
        BadValueCase{"JobAcctGatherType=jobacct_gather/magic",
                     "JobAcctGatherType=jobacct_gather/magic is not one of jobacct_gather/none, "
                     "jobacct_gather/linux, jobacct_gather/cgroup"},
        BadValueCase{"PriorityWeightTRES=CPU", "PriorityWeightTRES=CPU is not a TRES weight list"},
        BadValueCase{"ReturnToService=3", "ReturnToService=3 is not 0, 1 or 2"},
        BadValueCase{"TaskPlugin=task/cgroup,task/bogus",
                     "TaskPlugin=task/cgroup,task/bogus names 'task/bogus'"},
        BadValueCase{"NodeName=n2 RealMemory=lots", "RealMemory=lots is not a memory size"},
        BadValueCase{"NodeName=n2 Gres=gpu:a100:x:1", "Gres=gpu:a100:x:1 is not a GRES list"},
        BadValueCase{"NodeName=n2 State=SLEEPY", "State=SLEEPY is not a node state"},
        BadValueCase{"NodeName=n[3-1]", "NodeName=n[3-1]: invalid hostlist"},
        BadValueCase{"NodeName=n1", "node n1 is already defined at line 4"},
        BadValueCase{"PartitionName=p Nodes=n1 OverSubscribe=SOMETIMES",
                     "OverSubscribe=SOMETIMES is not one of EXCLUSIVE, FORCE, YES, NO"},
        BadValueCase{"PartitionName=p Nodes=n1 MaxTime=1:00:00 DefaultTime=2:00:00",
                     "partition p: DefaultTime is longer than MaxTime"},
        BadValueCase{"PartitionName=p Nodes=n[1-3]",
                     "partition p names nodes n[2-3] that no NodeName line defines"},
        BadValueCase{"SlurmctldHost=bad(addr",
                     "SlurmctldHost=bad(addr is not name or name(address)"},
        BadValueCase{"ControlAddr=1.2.3.4 BackupAddr=1.2.3.5",
                     "BackupAddr given before the host it belongs to"}));

TEST(SlurmConfParserTest, DuplicatePartitionIsAnError) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string(kMinimalHead) +
                                      "NodeName=n1\nPartitionName=p Nodes=n1\nPartitionName=p\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(loaded.Text().find("line 6: partition p is already defined at line 5"),
            std::string::npos)
      << loaded.Text();
}

TEST(SlurmConfParserTest, RequiredSettingsAreChecked) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {"SlurmUser=slurm\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(loaded.Text().find("ClusterName is not set"), std::string::npos);
  EXPECT_NE(loaded.Text().find("SlurmctldHost is not set"), std::string::npos);
  EXPECT_NE(loaded.Text().find("no NodeName line defines a node"), std::string::npos);
}

TEST(SlurmConfParserTest, GresNotInGresTypesIsAnError) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {"ClusterName=c\nSlurmctldHost=h\n"
                                      "NodeName=g[1-4] Gres=gpu:2\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(loaded.Text().find("error: slurm.conf line 3: NodeName=g[1-4]: Gres=gpu:2 names gpu, "
                               "which is not listed in GresTypes"),
            std::string::npos)
      << loaded.Text();
}

TEST(SlurmConfParserTest, TaskScriptsAndPropagatedLimits) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "TaskProlog=/etc/slurm/task_prolog\n"
                                        "TaskEpilog=/etc/slurm/task_epilog\n"
                                        "PropagateResourceLimitsExcept=memlock,STACK\n"
                                        "NodeName=n1 CPUs=8\nPartitionName=p Nodes=n1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const SlurmConf& s = (**loaded.config).settings;
  EXPECT_EQ(s.task_prolog, "/etc/slurm/task_prolog");
  EXPECT_EQ(s.task_epilog, "/etc/slurm/task_epilog");
  EXPECT_TRUE(s.propagate_resource_limits.empty());
  EXPECT_EQ(s.propagate_resource_limits_except, (std::vector<std::string>{"MEMLOCK", "STACK"}));

  // A name Slurm does not know is an error; so is giving both keys.
  auto bad = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "PropagateResourceLimits=NOFILE,FILES\n"
                                        "NodeName=n1 CPUs=8\nPartitionName=p Nodes=n1\n"});
  EXPECT_FALSE(bad.config.ok());
  EXPECT_NE(bad.Text().find("FILES"), std::string::npos) << bad.Text();
  auto both = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "PropagateResourceLimits=NOFILE\n"
                                        "PropagateResourceLimitsExcept=CORE\n"
                                        "NodeName=n1 CPUs=8\nPartitionName=p Nodes=n1\n"});
  EXPECT_FALSE(both.config.ok());
  EXPECT_NE(both.Text().find("cannot be used with PropagateResourceLimits"), std::string::npos)
      << both.Text();
}

}  // namespace
}  // namespace rota::conf
