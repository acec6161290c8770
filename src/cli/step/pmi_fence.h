#pragma once

// srun's side of a PMI-2 fence across the nodes of a step (docs/mpi.md):
// each node sends the puts of its tasks once they all entered fence `round`;
// when every node has, the merged set goes back to all of them and their
// tasks' fences return. Pure; not thread-safe.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace rota::cli {

using PmiPairs = std::vector<std::pair<std::string, std::string>>;

class PmiFenceAggregator {
 public:
  // REQUIRES: nodes > 0 (the step's node count).
  explicit PmiFenceAggregator(size_t nodes) : nodes_(nodes) {}

  // `node`'s puts for fence `round`. Returns the merged puts of every node,
  // sorted by key, once the last node's came (a key put on several nodes
  // keeps the value of the node first by name); nullopt before. Errors: the
  // node already sent this round, or a round other than the one under way.
  Result<std::optional<PmiPairs>> Add(const std::string& node, uint32_t round, PmiPairs puts);

  uint32_t round() const { return round_; }

 private:
  const size_t nodes_;
  uint32_t round_ = 0;                     // The fence under way
  std::map<std::string, PmiPairs> given_;  // Node -> its puts, this round
};

}  // namespace rota::cli
