#include "sched/node_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <tuple>

#include "sched/availability_profile.h"
#include "sched/select.h"
#include "sched/test_cluster.h"

namespace rota::sched {
namespace {

using testing::AddNode;
using testing::MakeNode;

// A random cluster: nodes of a few layouts and weights, GPUs of `types`
// kinds (0: none), features "fast" on some.
ClusterModel RandomCluster(std::mt19937& rng, uint32_t nodes, int types) {
  ClusterModel m;
  for (uint32_t i = 0; i < nodes; ++i) {
    std::vector<testing::GpuGroup> gpus;
    if (types > 0 && rng() % 4 != 0) {
      uint32_t count = 1 + rng() % 8;
      std::string type = types > 1 && rng() % 2 ? "v100" : "a100";
      gpus.push_back({type, count, rng() % 3 == 0 ? 0 : -1});
    }
    std::vector<std::string> features;
    if (rng() % 2) features.push_back("fast");
    NodeShape n = MakeNode("n" + std::to_string(i), 1 + rng() % 2, 4 + rng() % 13,
                           16000 + 16000 * (rng() % 4), gpus, m.gpu_types, features);
    n.weight = 1 + rng() % 3;
    if (rng() % 5 == 0) n.threads_per_core = 2;
    AddNode(m, std::move(n));
  }
  m.empty_usage = m.EmptyUsage();
  return m;
}

Request RandomRequest(std::mt19937& rng, const ClusterModel& m) {
  Request r;
  switch (rng() % 9) {
    case 0:  // One GPU and a few cores
      r.gpus_per_node = 1;
      r.cpus_per_task = 1 + rng() % 4;
      break;
    case 1:  // N nodes with tasks per node
      r.nodes = 1 + rng() % 3;
      r.tasks_per_node = 1 + rng() % 4;
      r.tasks = r.nodes * r.tasks_per_node;
      r.cpus_per_task = 1 + rng() % 2;
      break;
    case 2:  // As few nodes as the tasks need
      r.nodes_fixed = false;
      r.nodes = 1;
      r.tasks = 1 + rng() % 24;
      r.cpus_per_task = 1 + rng() % 2;
      break;
    case 3:  // --gpus over fixed nodes (scanned)
      r.nodes = 1 + rng() % 2;
      r.tasks = r.nodes;
      r.gpus_per_job = 1 + rng() % 6;
      break;
    case 4:  // GPUs per task
      r.tasks = 1 + rng() % 3;
      r.nodes = 1;
      r.gpus_per_task = 1;
      r.cpus_per_task = 2;
      break;
    case 5:  // Whole node
      r.exclusive = true;
      break;
    case 7:  // GPUs with cores of their socket only: fits by counts, may not place
      r.nodes = 1 + rng() % 2;
      r.tasks = r.nodes;
      r.gpus_per_node = 1 + rng() % 2;
      r.cpus_per_task = 2 + rng() % 12;
      r.enforce_binding = true;
      if (rng() % 2) {  // As few nodes as need be
        r.nodes_fixed = false;
        r.nodes = 1;
        r.tasks = 1 + rng() % 2;
      }
      break;
    case 8:  // GPUs per socket
      r.gpus_per_socket = 1;
      r.sockets_per_node = 1 + rng() % 2;
      r.cpus_per_task = 1 + rng() % 4;
      break;
    default:  // Cores only, on N nodes
      r.nodes = 1 + rng() % 4;
      r.tasks = r.nodes;
      r.cpus_per_task = 1 + rng() % 8;
      break;
  }
  switch (rng() % 4) {
    case 0:
      r.memory = MemoryRule::kPerNode;
      r.mem_mb = 1000 * (1 + rng() % 40);
      break;
    case 1:
      r.memory = MemoryRule::kPerCpu;
      r.mem_mb = 500 * (1 + rng() % 4);
      break;
    case 2:
      if (r.wants_gpus()) {
        r.memory = MemoryRule::kPerGpu;
        r.mem_mb = 4000;
      }
      break;
    default:
      break;
  }
  if (r.wants_gpus() && rng() % 2) r.gpu_type = m.gpu_types.Find(rng() % 2 ? "a100" : "v100");
  if (rng() % 6 == 0) r.constraint = *FeatureExpr::Parse("fast");
  if (rng() % 8 == 0) r.excluded_nodes = {static_cast<uint32_t>(rng() % m.nodes.size())};
  return r;
}

std::vector<uint64_t> RandomBits(std::mt19937& rng, size_t nodes, uint32_t percent) {
  std::vector<uint64_t> bits((nodes + 63) / 64, 0);
  for (size_t n = 0; n < nodes; ++n) {
    if (rng() % 100 < percent) bits[n >> 6] |= uint64_t{1} << (n & 63);
  }
  return bits;
}

std::vector<uint32_t> Both(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint32_t> out;
  for (uint32_t n = 0; n < a.size() * 64; ++n) {
    if (((a[n >> 6] & b[n >> 6]) >> (n & 63)) & 1u) out.push_back(n);
  }
  return out;
}

void ExpectSame(const Selection& plain, const Selection& walked, const std::string& what) {
  ASSERT_EQ(plain.allocation.has_value(), walked.allocation.has_value()) << what;
  EXPECT_EQ(plain.detail, walked.detail) << what;
  if (plain.allocation) {
    EXPECT_EQ(plain.allocation->nodes, walked.allocation->nodes) << what;
  }
}

// The preference key of Select, computed afresh.
std::vector<uint32_t> SortedByKey(const ClusterModel& m, const std::vector<NodeUsage>& usage) {
  std::vector<uint32_t> nodes(m.nodes.size());
  for (uint32_t n = 0; n < nodes.size(); ++n) nodes[n] = n;
  auto key = [&](uint32_t n) {
    return std::make_tuple(m.nodes[n].weight, std::popcount(usage[n].free_gpus),
                           usage[n].free_count, usage[n].free_mem_mb, n);
  };
  std::sort(nodes.begin(), nodes.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  return nodes;
}

std::vector<uint32_t> Walked(const NodeOrder& order, uint32_t min_gpus, uint32_t min_slots) {
  std::vector<uint32_t> out;
  order.Walk(min_gpus, min_slots, [&](uint32_t n) {
    out.push_back(n);
    return true;
  });
  return out;
}

TEST(NodeOrderTest, KeptInStepMatchesAFreshSort) {
  std::mt19937 rng(5);
  ClusterModel m = RandomCluster(rng, 300, 2);
  std::vector<NodeUsage> usage = m.EmptyUsage();
  NodeOrder order;
  order.Reset(m, usage);
  EXPECT_EQ(Walked(order, 0, 0), SortedByKey(m, usage));
  std::vector<Allocation> running;
  for (int round = 0; round < 2000; ++round) {
    if (!running.empty() && rng() % 3 == 0) {
      size_t i = rng() % running.size();
      for (const NodeAllocation& a : running[i].nodes) {
        ASSERT_TRUE(GiveBack(m, usage[a.node], a));
        order.Update(a.node, usage[a.node]);
      }
      running.erase(running.begin() + static_cast<long>(i));
      continue;
    }
    std::vector<uint32_t> one{static_cast<uint32_t>(rng() % m.nodes.size())};
    Selection s = Select(m, usage, one, RandomRequest(rng, m));
    if (!s.allocation) continue;
    for (const NodeAllocation& a : s.allocation->nodes) {
      ASSERT_TRUE(Take(m, usage[a.node], a));
      order.Update(a.node, usage[a.node]);
    }
    running.push_back(*s.allocation);
  }
  std::vector<uint32_t> all = SortedByKey(m, usage);
  EXPECT_EQ(Walked(order, 0, 0), all);
  // Stepping over nodes short of GPUs or slots leaves the rest in order.
  for (auto [g, c] : {std::pair{1u, 0u}, {2u, 3u}, {0u, 9u}, {8u, 1u}}) {
    std::vector<uint32_t> want;
    for (uint32_t n : all) {
      if (static_cast<uint32_t>(std::popcount(usage[n].free_gpus)) >= g &&
          usage[n].free_count >= c) {
        want.push_back(n);
      }
    }
    EXPECT_EQ(Walked(order, g, c), want) << g << " GPUs, " << c << " slots";
  }
}

TEST(NodeOrderTest, GpuTypesEveryGpuAccepts) {
  ClusterModel one;
  AddNode(one, MakeNode("a", 1, 4, 1000, {{"a100", 2}}, one.gpu_types));
  AddNode(one, MakeNode("b", 1, 4, 1000, {}, one.gpu_types));
  NodeOrder o;
  o.Reset(one, one.EmptyUsage());
  EXPECT_TRUE(o.AcceptsEveryGpu(GpuTypes::kAny));
  EXPECT_TRUE(o.AcceptsEveryGpu(one.gpu_types.Find("a100")));
  EXPECT_FALSE(o.AcceptsEveryGpu(GpuTypes::kUnknown));
  AddNode(one, MakeNode("c", 1, 4, 1000, {{"v100", 1}}, one.gpu_types));
  o.Reset(one, one.EmptyUsage());
  EXPECT_TRUE(o.AcceptsEveryGpu(GpuTypes::kAny));
  EXPECT_FALSE(o.AcceptsEveryGpu(one.gpu_types.Find("a100")));
}

// SelectInOrder gives Select's answer on random clusters, usages, candidate
// sets and requests, with the order kept in step as jobs come and go.
void AgreesWithPlainScan(uint32_t seed, int gpu_types) {
  std::mt19937 rng(seed);
  ClusterModel m = RandomCluster(rng, 40 + rng() % 200, gpu_types);
  std::vector<NodeUsage> usage = m.EmptyUsage();
  NodeOrder order;
  order.Reset(m, usage);
  std::vector<Allocation> running;
  int walked = 0;
  int placed = 0;
  for (int round = 0; round < 1500; ++round) {
    if (!running.empty() && rng() % 4 == 0) {
      size_t i = rng() % running.size();
      for (const NodeAllocation& a : running[i].nodes) {
        ASSERT_TRUE(GiveBack(m, usage[a.node], a));
        order.Update(a.node, usage[a.node]);
      }
      running.erase(running.begin() + static_cast<long>(i));
      continue;
    }
    Request req = RandomRequest(rng, m);
    std::vector<uint64_t> among = RandomBits(rng, m.nodes.size(), rng() % 2 ? 100 : 60);
    std::vector<uint64_t> also = RandomBits(rng, m.nodes.size(), rng() % 2 ? 100 : 80);
    Selection plain = Select(m, usage, Both(among, also), req);
    Selection walked_sel = SelectInOrder(m, usage, order, among, &also, req);
    std::string what = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    ASSERT_NO_FATAL_FAILURE(ExpectSame(plain, walked_sel, what));
    walked += WalksInOrder(m, order, req);
    EXPECT_EQ(WalksInOrder(m, order, req), WalksInOrder(m, req)) << what;
    if (!plain.allocation) continue;
    ++placed;
    for (const NodeAllocation& a : plain.allocation->nodes) {
      ASSERT_TRUE(Take(m, usage[a.node], a));
      order.Update(a.node, usage[a.node]);
    }
    running.push_back(*plain.allocation);
  }
  // The comparison covered the walk, not only the fallback, and placements.
  EXPECT_GT(walked, 500);
  EXPECT_GT(placed, 200);
}

TEST(NodeOrderTest, SelectInOrderAgreesWithPlainScanOneGpuType) {
  for (uint32_t seed = 1; seed <= 6; ++seed) AgreesWithPlainScan(seed, 1);
}

TEST(NodeOrderTest, SelectInOrderAgreesWithPlainScanTwoGpuTypes) {
  for (uint32_t seed = 11; seed <= 14; ++seed) AgreesWithPlainScan(seed, 2);
}

TEST(NodeOrderTest, SelectInOrderAgreesWithPlainScanNoGpus) {
  for (uint32_t seed = 21; seed <= 23; ++seed) AgreesWithPlainScan(seed, 0);
}

// The profile's order follows its view through bookings and later times.
TEST(NodeOrderTest, ProfileOrderFollowsItsView) {
  std::mt19937 rng(31);
  ClusterModel m = RandomCluster(rng, 120, 1);
  AvailabilityProfile profile(m, m.EmptyUsage(), 1000, 60);
  for (int i = 0; i < 300; ++i) {
    int64_t t = 1000 + 600 * (rng() % 10);
    const std::vector<NodeUsage>& usage = profile.FreeDuring(t, t + 3600, 2, {1, 0});
    const NodeOrder& order = profile.Order(2);
    ASSERT_EQ(Walked(order, 0, 0), SortedByKey(m, usage)) << i;
    std::vector<uint64_t> all = profile.NodeBits(testing::AllNodes(m));
    Request req = RandomRequest(rng, m);
    Selection s = SelectInOrder(m, usage, order, all, &profile.OpenBits(2), req);
    ExpectSame(Select(m, usage, Both(all, profile.OpenBits(2)), req), s, std::to_string(i));
    if (s.allocation) profile.Book(t, t + 3600, *s.allocation);
  }
}

}  // namespace
}  // namespace rota::sched
