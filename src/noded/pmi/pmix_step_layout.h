#pragma once

// Where each rank of a srun --mpi=pmix step runs, in the terms PMIx gives its
// clients (docs/mpi.md): the node list and process map that become
// PMIX_NODE_MAP and PMIX_PROC_MAP, the local peers, each rank's node and
// local rank, for ranks dealt as srun -m said (block unless the setup lists
// them). Pure.

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "pmix_helper.pb.h"

namespace rota::noded {

class PmixStepLayout {
 public:
  // Errors: no nodes, counts that do not match the nodes, a node without
  // tasks, a node index outside them, task ids that are not each rank once.
  static Result<PmixStepLayout> From(const wire::PmixSetup& setup);

  // Slurm's name for the step's namespace: slurm.pmix.JOB.STEP.
  const std::string& nspace() const { return nspace_; }
  uint32_t size() const { return size_; }
  uint32_t node_count() const { return static_cast<uint32_t>(nodes_.size()); }
  uint32_t node_index() const { return node_index_; }
  const std::string& node_name(uint32_t node) const { return nodes_[node]; }
  uint32_t local_size() const { return static_cast<uint32_t>(local_ranks().size()); }
  // This node's ranks, by local task.
  const std::vector<uint32_t>& local_ranks() const { return ranks_[node_index_]; }
  // The lowest of them (PMIX_LOCALLDR).
  uint32_t local_leader() const;

  // "n1,n2": the input of PMIx_generate_regex.
  std::string NodeList() const;
  // "0,1,2,3;4,5,6,7": each node's ranks, nodes by ";", for PMIx_generate_ppn.
  std::string ProcessMap() const;
  // This node's ranks, "4,5,6,7".
  std::string LocalPeers() const;
  // REQUIRES: rank < size().
  uint32_t NodeOf(uint32_t rank) const { return node_of_[rank]; }
  uint32_t LocalRankOf(uint32_t rank) const { return local_rank_of_[rank]; }

 private:
  PmixStepLayout() = default;
  std::string RanksOf(uint32_t node) const;

  std::string nspace_;
  uint32_t size_ = 0;
  uint32_t node_index_ = 0;
  std::vector<std::string> nodes_;
  std::vector<std::vector<uint32_t>> ranks_;  // Per node, by local task
  std::vector<uint32_t> node_of_;             // Per rank
  std::vector<uint32_t> local_rank_of_;       // Per rank
};

}  // namespace rota::noded
