#pragma once

// The PMI-2 server of one node of a job step (srun --mpi=pmi2, docs/mpi.md),
// which also serves PMI-1 clients (MPICH's "simple" PMI: a task whose init
// names version 1 speaks PMI-1's lines for the rest of its conversation), as
// Slurm's mpi/pmi2 does:
// answers its local tasks' commands and keeps the step's key-value space as
// this node sees it. A fence is global: once every local task entered it, the
// node's puts since the last fence go to srun (Effects::fence), which merges
// every node's and sends the whole set back (OnFenceDone); then every local
// task's fence returns. Pure: the caller moves the bytes. Not thread-safe.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "noded/pmi/pmi2_wire.h"

namespace rota::noded {

// What a node's tasks learn about their step.
struct Pmi2StepShape {
  std::string job_id;           // PMI_JOBID: "JOBID.STEPID"
  uint32_t size = 0;            // Tasks in the step
  std::vector<uint32_t> ranks;  // This node's tasks' ranks, by local task
  uint32_t local_tasks = 0;     // Tasks on this node
  std::string process_mapping;  // PMI_process_mapping (Pmi2ProcessMapping)
};

// Slurm's PMI_process_mapping for a block distribution of tasks over nodes:
// "(vector,(FIRST_NODE,NODES,TASKS_PER_NODE),...)", one triple per run of
// consecutive nodes with the same count: {2,2} -> "(vector,(0,2,2))".
std::string Pmi2ProcessMapping(const std::vector<uint32_t>& tasks_per_node);
// The same for any distribution, from the node of each rank: consecutive
// ranks on one node make a block, and blocks of one size on consecutive nodes
// a triple. Cyclic over 2 nodes of 2: "(vector,(0,2,1),(0,2,1))".
std::string Pmi2ProcessMappingOfRanks(const std::vector<uint32_t>& node_of_rank);

using Pmi2Pairs = std::vector<std::pair<std::string, std::string>>;

class Pmi2NodeSession {
 public:
  struct Fence {
    uint32_t round = 0;  // 0 for the step's first fence, then 1, 2, ...
    Pmi2Pairs puts;      // By key; a key put twice holds its last value
  };
  struct Abort {
    uint32_t rank = 0;
    std::string message;
  };
  // What the caller does after a message: write `replies` to the tasks (by
  // local index), send `fence` to srun, end the step on `abort`.
  struct Effects {
    std::vector<std::pair<uint32_t, std::string>> replies;
    std::optional<Fence> fence;
    std::optional<Abort> abort;
  };

  explicit Pmi2NodeSession(Pmi2StepShape shape);

  // A command from local task `local_task` (< shape.local_tasks).
  Effects OnMessage(uint32_t local_task, const Pmi2Message& message);
  // srun's merged puts of every node for fence `round`.
  Effects OnFenceDone(uint32_t round, const Pmi2Pairs& pairs);
  // The task's PMI connection closed (it exited). A task that initialised
  // and did not finalize would leave the others waiting in a fence for ever:
  // that aborts the step.
  Effects OnDisconnect(uint32_t local_task);

  bool Finalized(uint32_t local_task) const { return finalized_.count(local_task) != 0; }

 private:
  std::string Reply(const Pmi2Message& request, Pmi2Message answer) const;
  Pmi2Message Found(std::string command, const std::optional<std::string>& value) const;

  const Pmi2StepShape shape_;
  std::map<std::string, std::string> committed_;  // Exchanged by fences so far
  std::map<std::string, std::string> pending_;    // Put here since the last fence
  std::map<std::string, std::string> node_attributes_;
  // Tasks waiting for a node attribute (info-getnodeattr wait=TRUE): key ->
  // (task, request).
  std::multimap<std::string, std::pair<uint32_t, Pmi2Message>> attribute_waiters_;
  std::map<uint32_t, Pmi2Message> in_fence_;  // Local task -> its fence request
  uint32_t round_ = 0;                        // The fence being entered
  bool fence_sent_ = false;                   // round_'s puts went to srun
  std::set<uint32_t> initialised_;
  std::set<uint32_t> finalized_;
  std::set<uint32_t> pmi1_;  // Tasks that speak PMI-1

  // A PMI-1 command (line form) of a task that opened with version 1.
  void OnPmi1Message(uint32_t local_task, const Pmi2Message& message, Effects& effects);
  // Enters `local_task` into the fence; the node's puts go to srun once every
  // local task is in it.
  void EnterFence(uint32_t local_task, const Pmi2Message& request, Effects& effects);
  std::optional<std::string> Lookup(const std::string& key) const;
};

}  // namespace rota::noded
