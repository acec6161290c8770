#include "cli/format/sinfo_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rota::cli::format {
namespace {

using wire::NodeInfo;

constexpr int64_t kNow = 1795936455;  // Sun Nov 29 07:14:15 2026 UTC.

// The observed cluster (/work/shared/slurm-observed/config/slurm.conf and
// scontrol-node.txt): n1-n4, 32 CPUs, 8 A100s each; n4 drained by root.
std::vector<NodeInfo> ObservedNodes() {
  std::vector<NodeInfo> nodes;
  auto add = [&](const std::string& name, const std::string& state, uint32_t alloc_cpus,
                 uint64_t alloc_mem, const std::string& gres_used) -> NodeInfo& {
    NodeInfo& n = nodes.emplace_back();
    n.mutable_record()->set_name(name);
    n.mutable_record()->set_state(state);
    n.set_cpus(32);
    n.set_alloc_cpus(alloc_cpus);
    n.set_real_memory_mb(512000);
    n.set_alloc_mem_mb(alloc_mem);
    n.set_gres("gpu:a100:8");
    n.set_gres_used(gres_used);
    n.add_partitions("batch");
    n.add_partitions("short");
    n.set_sockets(2);
    n.set_cores_per_socket(16);
    n.set_threads_per_core(1);
    n.set_boards(1);
    n.set_weight(1);
    return n;
  };
  add("n1", "MIXED", 2, 2048, "gpu:a100:8(IDX:0-7)");
  add("n2", "MIXED", 1, 1024, "gpu:a100:8(IDX:0-7)");
  add("n3", "MIXED", 1, 1024, "gpu:a100:8(IDX:0-7)");
  NodeInfo& n4 = add("n4", "IDLE+DRAIN", 0, 0, "gpu:a100:0(IDX:N/A)");
  n4.mutable_record()->set_drain(true);
  n4.mutable_record()->set_reason("anchor maintenance test");
  n4.mutable_record()->set_reason_uid(0);
  n4.mutable_record()->set_reason_time(1795936444);  // 2026-11-29T07:14:04
  return nodes;
}

std::vector<SinfoPartition> ObservedPartitions() {
  SinfoPartition batch;
  batch.name = "batch";
  batch.is_default = true;
  batch.max_time = 86400;
  batch.default_time = 3600;
  batch.nodes = {"n1", "n2", "n3", "n4"};
  SinfoPartition shrt = batch;
  shrt.name = "short";
  shrt.is_default = false;
  shrt.max_time = 1800;
  shrt.default_time = 600;
  shrt.priority_job_factor = 100;
  return {batch, shrt};
}

std::string Sinfo(const SinfoOptions& options) {
  const SinfoContext ctx{kNow, 0, {{0, "root"}}};
  Result<Listing> listing = RenderSinfo(ObservedPartitions(), ObservedNodes(), options, ctx);
  EXPECT_TRUE(listing.ok()) << listing.status().ToString();
  if (!listing.ok()) return "";
  EXPECT_TRUE(listing->errors.empty());
  return listing->text;
}

// ---- Golden listings, copied from /work/shared/slurm-observed/sinfo.txt ----

TEST(SinfoGoldenTest, Default) {
  EXPECT_EQ(Sinfo({}),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "batch*       up 1-00:00:00      1  drain n4\n"
            "batch*       up 1-00:00:00      3    mix n[1-3]\n"
            "short        up      30:00      1  drain n4\n"
            "short        up      30:00      3    mix n[1-3]\n");
}

TEST(SinfoGoldenTest, Reasons) {
  SinfoOptions o;
  o.list_reasons = true;
  EXPECT_EQ(Sinfo(o),
            "REASON               USER      TIMESTAMP           NODELIST\n"
            "anchor maintenance t root      2026-11-29T07:14:04 n4\n");
}

TEST(SinfoGoldenTest, NodesLong) {
  SinfoOptions o;
  o.node_oriented = true;
  o.long_format = true;
  EXPECT_EQ(Sinfo(o),
            "Sun Nov 29 07:14:15 2026\n"
            "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE "
            "REASON              \n"
            "n1             1    batch*       mixed 32     2:16:1 512000        0      1   (null) "
            "none                \n"
            "n1             1     short       mixed 32     2:16:1 512000        0      1   (null) "
            "none                \n"
            "n2             1    batch*       mixed 32     2:16:1 512000        0      1   (null) "
            "none                \n"
            "n2             1     short       mixed 32     2:16:1 512000        0      1   (null) "
            "none                \n"
            "n3             1    batch*       mixed 32     2:16:1 512000        0      1   (null) "
            "none                \n"
            "n3             1     short       mixed 32     2:16:1 512000        0      1   (null) "
            "none                \n"
            "n4             1    batch*     drained 32     2:16:1 512000        0      1   (null) "
            "anchor maintenance t\n"
            "n4             1     short     drained 32     2:16:1 512000        0      1   (null) "
            "anchor maintenance t\n");
}

TEST(SinfoGoldenTest, CustomFormat) {
  SinfoOptions o;
  o.format = "%P %a %l %D %t %N %G %C";
  EXPECT_EQ(Sinfo(o),
            "PARTITION AVAIL TIMELIMIT NODES STATE NODELIST GRES CPUS(A/I/O/T)\n"
            "batch* up 1-00:00:00 1 drain n4 gpu:a100:8 0/0/32/32\n"
            "batch* up 1-00:00:00 3 mix n[1-3] gpu:a100:8 4/92/0/96\n"
            "short up 30:00 1 drain n4 gpu:a100:8 0/0/32/32\n"
            "short up 30:00 3 mix n[1-3] gpu:a100:8 4/92/0/96\n");
}

TEST(SinfoGoldenTest, NodesLongFormatNames) {
  SinfoOptions o;
  o.node_oriented = true;
  o.format_long = "NodeList,StateLong,CPUsState,Gres,GresUsed,Memory,AllocMem";
  EXPECT_EQ(Sinfo(o),
            "NODELIST            STATE               CPUS(A/I/O/T)       GRES                "
            "GRES_USED           MEMORY              ALLOCMEM            \n"
            "n1                  mixed               2/30/0/32           gpu:a100:8          "
            "gpu:a100:8(IDX:0-7) 512000              2048                \n"
            "n1                  mixed               2/30/0/32           gpu:a100:8          "
            "gpu:a100:8(IDX:0-7) 512000              2048                \n"
            "n2                  mixed               1/31/0/32           gpu:a100:8          "
            "gpu:a100:8(IDX:0-7) 512000              1024                \n"
            "n2                  mixed               1/31/0/32           gpu:a100:8          "
            "gpu:a100:8(IDX:0-7) 512000              1024                \n"
            "n3                  mixed               1/31/0/32           gpu:a100:8          "
            "gpu:a100:8(IDX:0-7) 512000              1024                \n"
            "n3                  mixed               1/31/0/32           gpu:a100:8          "
            "gpu:a100:8(IDX:0-7) 512000              1024                \n"
            "n4                  drained             0/0/32/32           gpu:a100:8          "
            "gpu:a100:0(IDX:N/A) 512000              0                   \n"
            "n4                  drained             0/0/32/32           gpu:a100:8          "
            "gpu:a100:0(IDX:N/A) 512000              0                   \n");
}

// ---- Preset formats not in the observed files, built by Slurm's rules ----

TEST(SinfoPresetTest, Nodes) {
  SinfoOptions o;
  o.node_oriented = true;
  EXPECT_EQ(Sinfo(o),
            "NODELIST   NODES PARTITION STATE \n"
            "n1             1    batch* mix   \n"
            "n1             1     short mix   \n"
            "n2             1    batch* mix   \n"
            "n2             1     short mix   \n"
            "n3             1    batch* mix   \n"
            "n3             1     short mix   \n"
            "n4             1    batch* drain \n"
            "n4             1     short drain \n");
}

TEST(SinfoPresetTest, Summarize) {
  SinfoOptions o;
  o.summarize = true;
  EXPECT_EQ(Sinfo(o),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T)  NODELIST\n"
            "batch*       up 1-00:00:00          3/0/1/4  n[1-4]\n"
            "short        up      30:00          3/0/1/4  n[1-4]\n");
}

TEST(SinfoPresetTest, Long) {
  SinfoOptions o;
  o.long_format = true;
  EXPECT_EQ(
      Sinfo(o),
      "Sun Nov 29 07:14:15 2026\n"
      "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE NODELIST\n"
      "batch*       up 1-00:00:00 1-infinite   no       NO        all      1     drained n4\n"
      "batch*       up 1-00:00:00 1-infinite   no       NO        all      3       mixed n[1-3]\n"
      "short        up      30:00 1-infinite   no       NO        all      1     drained n4\n"
      "short        up      30:00 1-infinite   no       NO        all      3       mixed n[1-3]\n");
}

TEST(SinfoPresetTest, NoHeader) {
  SinfoOptions o;
  o.no_header = true;
  o.format = "%R %D";
  EXPECT_EQ(Sinfo(o), "batch 4\nshort 4\n");
}

// ---- Grouping and states ----

TEST(SinfoGroupingTest, LinesFollowTheFormatsAttributes) {
  const std::vector<SinfoPartition> parts = ObservedPartitions();
  const std::vector<NodeInfo> nodes = ObservedNodes();
  // No attribute at all: one line, each node once although in two partitions.
  std::vector<SinfoRow> rows = GroupNodes(parts, nodes, GroupingRule{}, nullptr);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].nodes.size(), 4u);
  // By partition: two lines.
  GroupingRule by_part;
  by_part.keys.push_back([](const SinfoPartition& p, const NodeInfo&) { return p.name; });
  rows = GroupNodes(parts, nodes, by_part, nullptr);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].partition->name, "short");
  // -N: a line per (partition, node); `keep` filters nodes.
  GroupingRule per_node;
  per_node.one_row_per_node = true;
  rows = GroupNodes(parts, nodes, per_node,
                    [](const NodeInfo& n) { return n.record().name() != "n2"; });
  EXPECT_EQ(rows.size(), 6u);
}

TEST(SinfoGroupingTest, EmptyPartitionsGetALine) {
  std::vector<SinfoPartition> parts = ObservedPartitions();
  SinfoPartition empty;
  empty.name = "empty";
  empty.avail = PartitionAvail::kInactive;
  parts.push_back(empty);
  SinfoOptions o;
  const SinfoContext ctx{kNow, 0, {}};
  Result<Listing> listing = RenderSinfo(parts, ObservedNodes(), o, ctx);
  ASSERT_TRUE(listing.ok());
  EXPECT_NE(listing->text.find("empty     inact   infinite      0    n/a \n"), std::string::npos)
      << listing->text;
}

TEST(SinfoStateTest, CompactAndLongNames) {
  auto bits = [](const std::string& state, uint32_t alloc, bool drain = false) {
    NodeInfo n;
    n.mutable_record()->set_state(state);
    n.mutable_record()->set_drain(drain);
    n.set_cpus(32);
    n.set_alloc_cpus(alloc);
    return NodeStateBits(n);
  };
  EXPECT_EQ(NodeStateCompactText(bits("IDLE", 0)), "idle");
  EXPECT_EQ(NodeStateCompactText(bits("ALLOCATED", 32)), "alloc");
  EXPECT_EQ(NodeStateCompactText(bits("MIXED", 3)), "mix");
  EXPECT_EQ(NodeStateCompactText(bits("DOWN*", 0)), "down*");
  EXPECT_EQ(NodeStateCompactText(bits("IDLE+DRAIN", 0)), "drain");
  EXPECT_EQ(NodeStateCompactText(bits("MIXED", 4, true)), "drng");
  EXPECT_EQ(NodeStateLongText(bits("MIXED", 4, true)), "draining");
  EXPECT_EQ(NodeStateCompactText(bits("ALLOCATED+COMPLETING", 32)), "comp");
  EXPECT_EQ(NodeStateCompactText(bits("UNKNOWN*", 0)), "unk*");
  EXPECT_EQ(NodeStateCompactText(bits("IDLE*", 0)), "idle*");
  EXPECT_EQ(NodeStateCompactText(bits("DRAIN", 0)), "drain");
  EXPECT_EQ(NodeStateLongText(bits("DRAIN", 0)), "drained");
  EXPECT_EQ(NodeStateCompactText(bits("", 8)), "mix");
}

TEST(SinfoFormatTest, UnknownFieldsAreReported) {
  SinfoOptions o;
  o.format = "%P %Q";
  const SinfoContext ctx{kNow, 0, {}};
  Result<Listing> listing = RenderSinfo(ObservedPartitions(), ObservedNodes(), o, ctx);
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->errors.size(), 1u);
  EXPECT_EQ(listing->errors[0], "Invalid node format specification: Q");
}

}  // namespace
}  // namespace rota::cli::format
