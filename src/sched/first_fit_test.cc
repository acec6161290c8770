#include "sched/first_fit.h"

#include <gtest/gtest.h>

namespace rota::sched {
namespace {

NodeResources Node(std::string name, uint32_t cpus, MemoryMb mem, uint32_t a100 = 0,
                   std::set<std::string> features = {}) {
  NodeResources n;
  n.name = std::move(name);
  n.cpus = cpus;
  n.mem_mb = mem;
  if (a100 > 0) n.gpus_by_type["a100"] = a100;
  n.features = std::move(features);
  return n;
}

std::vector<std::string> Names(const std::vector<NodeResources>& nodes, const Placement& p) {
  std::vector<std::string> out;
  for (size_t i : p.node_indices) out.push_back(nodes[i].name);
  return out;
}

TEST(FirstFitTest, TakesFirstNodesThatFit) {
  std::vector<NodeResources> nodes = {Node("n1", 2, 1000), Node("n2", 8, 1000),
                                      Node("n3", 8, 4000)};
  ResourceRequest req;
  req.cpus_per_node = 4;
  req.mem_per_node_mb = 2000;
  auto p = FirstFit(nodes, req);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(Names(nodes, *p), std::vector<std::string>{"n3"});
  req.nodes = 2;
  EXPECT_FALSE(FirstFit(nodes, req).has_value());
}

TEST(FirstFitTest, GpusByTypeAndFeatures) {
  std::vector<NodeResources> nodes = {Node("g1", 8, 100, 2, {"a100"}),
                                      Node("g2", 8, 100, 4, {"a100", "ib"})};
  ResourceRequest req;
  req.gpus_per_node = 3;
  req.gpu_type = "a100";
  EXPECT_EQ(Names(nodes, *FirstFit(nodes, req)), std::vector<std::string>{"g2"});
  req.gpu_type = "h100";
  EXPECT_FALSE(FirstFit(nodes, req).has_value());
  req.gpu_type = "";
  req.gpus_per_node = 1;
  req.required_features = {"ib"};
  EXPECT_EQ(Names(nodes, *FirstFit(nodes, req)), std::vector<std::string>{"g2"});
  req.required_features.clear();
  req.any_of_features = {{"h100", "a100"}};
  req.nodes = 2;
  EXPECT_EQ(Names(nodes, *FirstFit(nodes, req)), (std::vector<std::string>{"g1", "g2"}));
}

TEST(FirstFitTest, NodelistExcludeAndExclusive) {
  std::vector<NodeResources> nodes = {Node("n1", 4, 100), Node("n2", 4, 100), Node("n3", 4, 100)};
  nodes[0].idle = false;
  ResourceRequest req;
  req.nodes = 2;
  req.required_nodes = {"n3"};
  EXPECT_EQ(Names(nodes, *FirstFit(nodes, req)), (std::vector<std::string>{"n3", "n1"}));
  req.excluded_nodes = {"n1"};
  EXPECT_EQ(Names(nodes, *FirstFit(nodes, req)), (std::vector<std::string>{"n3", "n2"}));
  req.excluded_nodes.clear();
  req.exclusive = true;
  EXPECT_EQ(Names(nodes, *FirstFit(nodes, req)), (std::vector<std::string>{"n3", "n2"}));
  req.required_nodes = {"n1"};
  EXPECT_FALSE(FirstFit(nodes, req).has_value());
}

}  // namespace
}  // namespace rota::sched
