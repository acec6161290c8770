#include "cli/step/pmi_fence.h"

#include <fmt/format.h>

namespace rota::cli {

Result<std::optional<PmiPairs>> PmiFenceAggregator::Add(const std::string& node, uint32_t round,
                                                        PmiPairs puts) {
  if (round != round_) {
    return FailedPrecondition(
        fmt::format("PMI fence {} from {} while fence {} is under way", round, node, round_));
  }
  if (!given_.emplace(node, std::move(puts)).second) {
    return FailedPrecondition(fmt::format("{} entered PMI fence {} twice", node, round));
  }
  if (given_.size() < nodes_) return std::optional<PmiPairs>();
  std::map<std::string, std::string> merged;
  for (auto& [from, pairs] : given_) {
    for (auto& [k, v] : pairs) merged.emplace(std::move(k), std::move(v));
  }
  given_.clear();
  ++round_;
  return std::optional<PmiPairs>(
      PmiPairs(std::make_move_iterator(merged.begin()), std::make_move_iterator(merged.end())));
}

}  // namespace rota::cli
