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
  for (size_t n = 0; n < layout.nodes_.size(); ++n) {
    if (setup.tasks_per_node(static_cast<int>(n)) == 0) {
      return InvalidArgument("node " + layout.nodes_[n] + " of a PMIx step has no tasks");
    }
    layout.size_ += setup.tasks_per_node(static_cast<int>(n));
  }
  if (setup.task_ids_size() != 0 && setup.task_ids_size() != static_cast<int>(layout.size_)) {
    return InvalidArgument("a PMIx step whose task ids do not match its task counts");
  }
  layout.node_of_.assign(layout.size_, UINT32_MAX);
  layout.local_rank_of_.assign(layout.size_, 0);
  uint32_t at = 0;
  for (size_t n = 0; n < layout.nodes_.size(); ++n) {
    std::vector<uint32_t>& ranks = layout.ranks_.emplace_back();
    for (uint32_t k = 0; k < setup.tasks_per_node(static_cast<int>(n)); ++k, ++at) {
      const uint32_t rank = setup.task_ids_size() != 0 ? setup.task_ids(static_cast<int>(at)) : at;
      if (rank >= layout.size_ || layout.node_of_[rank] != UINT32_MAX) {
        return InvalidArgument(fmt::format("task id {} of a PMIx step is out of place", rank));
      }
      layout.node_of_[rank] = static_cast<uint32_t>(n);
      layout.local_rank_of_[rank] = k;
      ranks.push_back(rank);
    }
  }
  return layout;
}

uint32_t PmixStepLayout::local_leader() const {
  return *std::min_element(local_ranks().begin(), local_ranks().end());
}

std::string PmixStepLayout::NodeList() const { return fmt::format("{}", fmt::join(nodes_, ",")); }

std::string PmixStepLayout::RanksOf(uint32_t node) const {
  return fmt::format("{}", fmt::join(ranks_[node], ","));
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

}  // namespace rota::noded
