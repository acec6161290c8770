#pragma once

// Hand-built cluster models for the selection's unit tests and benchmarks.

#include <string>
#include <vector>

#include "sched/cluster_model.h"

namespace rota::sched::testing {

struct GpuGroup {
  std::string type;
  uint32_t count = 0;
  int socket = -1;  // -1: local to every socket
};

inline NodeShape MakeNode(std::string name, uint32_t sockets, uint32_t cores_per_socket,
                          MemoryMb mem_mb, const std::vector<GpuGroup>& gpus, GpuTypes& types,
                          std::vector<std::string> features = {}) {
  NodeShape n;
  n.name = std::move(name);
  n.sockets = sockets;
  n.cores_per_socket = cores_per_socket;
  n.memory_mb = mem_mb;
  n.features = std::move(features);
  for (const GpuGroup& g : gpus) {
    uint32_t mask = g.socket < 0 ? AllSocketsMask(sockets) : SocketBit(g.socket);
    for (uint32_t i = 0; i < g.count; ++i) n.gpus.push_back({types.Intern(g.type), mask});
  }
  return n;
}

inline void AddNode(ClusterModel& m, NodeShape n) {
  m.index.emplace(n.name, static_cast<uint32_t>(m.nodes.size()));
  m.nodes.push_back(std::move(n));
}

inline std::vector<uint32_t> AllNodes(const ClusterModel& m) {
  std::vector<uint32_t> all;
  for (uint32_t i = 0; i < m.nodes.size(); ++i) all.push_back(i);
  return all;
}

}  // namespace rota::sched::testing
