#pragma once

// srun's launch of its step on the step's nodes: it asks every node daemon at
// once (a thread each) to start its share of the tasks (LaunchTasksRequest)
// and keeps their answers for srun's I/O relay (srun_io_relay.h), which reads
// them between polls; and it signals the step's tasks on every node. The
// relay sees the nodes through StepNodes, which tests fake. Thread-safe.

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli/client/node_caller.h"
#include "rota.pb.h"
#include "step_rpc.pb.h"

namespace rota::cli {

// What the step's nodes have answered to their launch so far.
struct LaunchAnswers {
  int answered = 0;                 // Nodes that answered
  int started = 0;                  // Of them, those whose tasks run
  std::vector<std::string> errors;  // "node: why" of each failed launch, as they came
};

// The step's nodes as srun's I/O relay needs them.
class StepNodes {
 public:
  virtual ~StepNodes() = default;
  // The answers so far (a copy, taken at once).
  virtual LaunchAnswers Answers() = 0;
  // Sends `signal` to the step's tasks on every node; returns once each node
  // answered or its call timed out.
  virtual void SignalAll(int signal) = 0;
};

class NodeLaunches : public StepNodes {
 public:
  // REQUIRES: `nodes` and `step` outlive this object.
  NodeLaunches(NodeCaller& nodes, const wire::JobStepRecord& step);
  ~NodeLaunches() override;  // Join()
  NodeLaunches(const NodeLaunches&) = delete;
  NodeLaunches& operator=(const NodeLaunches&) = delete;

  // Asks every node of the step to start its tasks: `launch` with each
  // node's index in the step. Returns at once; answers come in Answers().
  void Start(const wire::LaunchTasksRequest& launch);
  // Waits until every node answered (or its call timed out).
  void Join();

  LaunchAnswers Answers() override;
  void SignalAll(int signal) override;

 private:
  NodeCaller& nodes_;
  const wire::JobStepRecord& step_;
  std::mutex mu_;
  LaunchAnswers answers_;  // Guarded by mu_.
  std::vector<std::thread> launchers_;
};

}  // namespace rota::cli
