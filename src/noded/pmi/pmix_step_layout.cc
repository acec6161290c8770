#include "noded/pmi/pmix_step_layout.h"

#include <fmt/format.h>

#include <algorithm>

namespace rota::noded {

Result<PmixStepLayout> PmixStepLayout::From(const wire::PmixSetup& setup) {
  if (setup.nodes_size() == 0) return InvalidArgument("a PMIx step without nodes");
  if (setup.nodes_size() != setup.tasks_per_node_size()) {
    return InvalidArgument(fmt::format("a PMIx step of {} nodes with task counts for {}",
                                       setup.nodes_size(), setup.tasks_per_node_size()));
  }
  if (setup.node_index() >= static_cast<uint32_t>(setup.nodes_size())) {
    return InvalidArgument(fmt::format("node index {} outside a step of {} nodes",
                                       setup.node_index(), setup.nodes_size()));
  }
  PmixStepLayout layout;
  layout.nspace_ = fmt::format("slurm.pmix.{}.{}", setup.job_id(), setup.step_id());
  layout.node_index_ = setup.node_index();
  layout.nodes_.assign(setup.nodes().begin(), setup.nodes().end());
  layout.tasks_per_node_.assign(setup.tasks_per_node().begin(), setup.tasks_per_node().end());
  for (size_t n = 0; n < layout.nodes_.size(); ++n) {
    if (layout.tasks_per_node_[n] == 0) {
      return InvalidArgument("node " + layout.nodes_[n] + " of a PMIx step has no tasks");
    }
    layout.first_rank_.push_back(layout.size_);
    layout.size_ += layout.tasks_per_node_[n];
  }
  return layout;
}

std::string PmixStepLayout::NodeList() const { return fmt::format("{}", fmt::join(nodes_, ",")); }

std::string PmixStepLayout::RanksOf(uint32_t node) const {
  std::string ranks;
  for (uint32_t r = first_rank_[node]; r < first_rank_[node] + tasks_per_node_[node]; ++r) {
    if (!ranks.empty()) ranks += ',';
    ranks += std::to_string(r);
  }
  return ranks;
}

std::string PmixStepLayout::ProcessMap() const {
  std::string map;
  for (uint32_t n = 0; n < node_count(); ++n) {
    if (n > 0) map += ';';
    map += RanksOf(n);
  }
  return map;
}

std::string PmixStepLayout::LocalPeers() const { return RanksOf(node_index_); }

uint32_t PmixStepLayout::NodeOf(uint32_t rank) const {
  // The last node whose first rank is at or below `rank`.
  auto after = std::upper_bound(first_rank_.begin(), first_rank_.end(), rank);
  return static_cast<uint32_t>(after - first_rank_.begin()) - 1;
}

}  // namespace rota::noded
