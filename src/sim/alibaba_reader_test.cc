#include "sim/alibaba_reader.h"

#include <gtest/gtest.h>

#include "sim/sim_cluster.h"

namespace rota::sim {
namespace {

constexpr const char* kNodes =
    "sn,cpu_milli,memory_mib,gpu,model\n"
    "openb-node-0000,64000,262144,2,P100\n"
    "openb-node-0001,96000,786432,8,V100M32\n";

constexpr const char* kPods =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "p0,12000,16384,1,1000,,LS,Running,0,500,10\n"
    "p1,6500,12288,1,460,P100,LS,Running,20,100,30\n"
    "p2,1000,1024,0,0,,BE,Pending,40,,\n"
    "p3,2000,2048,4,1000,V100M16|V100M32,LS,Succeeded,50,60,60\n";

TEST(AlibabaReaderTest, NodesBecomeATypedGpuCluster) {
  Result<std::vector<AlibabaNode>> nodes = ParseAlibabaNodes(kNodes);
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[1].cpus, 96u);
  EXPECT_EQ((*nodes)[1].gpus, 8u);
  EXPECT_EQ((*nodes)[1].model, "v100m32");
  auto config = LoadConfigText(AlibabaSlurmConf(*nodes), AlibabaGresConf(*nodes));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(TotalCpus(**config), 160u);
  EXPECT_EQ(TotalGpus(**config), 10u);
}

TEST(AlibabaReaderTest, PodsBecomeOneTaskJobs) {
  Result<Trace> t = ParseAlibabaPods(kPods);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->jobs.size(), 2u);  // p2 never ran, p3 ran for 0 s
  EXPECT_EQ(t->stats.skipped_runtime, 2u);
  EXPECT_EQ(t->stats.rounded_gpus, 1u);
  const TraceJob& a = t->jobs[0];
  EXPECT_EQ(a.submit_s, 0);
  EXPECT_EQ(a.runtime_s, 490);
  EXPECT_EQ(a.cpus_per_task, 12u);
  EXPECT_EQ(a.gpus, 1u);
  EXPECT_EQ(a.mem_mb, 16384u);
  const TraceJob& b = t->jobs[1];
  EXPECT_EQ(b.cpus_per_task, 7u);  // 6.5 CPUs round up
  EXPECT_EQ(b.gpus, 1u);           // 0.46 of a GPU takes a whole one
  EXPECT_EQ(b.gpu_type, "p100");
  EXPECT_FALSE(ParseAlibabaPods("name,cpu_milli\n").ok());
}

}  // namespace
}  // namespace rota::sim
