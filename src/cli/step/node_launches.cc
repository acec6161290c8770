#include "cli/step/node_launches.h"

#include <chrono>

#include "api/methods.h"

namespace rota::cli {

NodeLaunches::NodeLaunches(NodeCaller& nodes, const wire::JobStepRecord& step)
    : nodes_(nodes), step_(step) {}

NodeLaunches::~NodeLaunches() { Join(); }

void NodeLaunches::Start(const wire::LaunchTasksRequest& launch) {
  for (int i = 0; i < step_.nodes_size(); ++i) {
    wire::LaunchTasksRequest mine = launch;
    mine.set_node_index(static_cast<uint32_t>(i));
    launchers_.emplace_back([this, mine, node = step_.nodes(i)] {
      Status launched = nodes_.Call(node, api::kLaunchTasks, mine, std::chrono::seconds(60));
      std::lock_guard<std::mutex> lock(mu_);
      if (!launched.ok()) answers_.errors.push_back(node + ": " + launched.message());
      ++answers_.answered;
      if (launched.ok()) ++answers_.started;
    });
  }
}

void NodeLaunches::Join() {
  for (std::thread& t : launchers_) t.join();
  launchers_.clear();
}

LaunchAnswers NodeLaunches::Answers() {
  std::lock_guard<std::mutex> lock(mu_);
  return answers_;
}

void NodeLaunches::SignalAll(int signal) {
  wire::SignalTasksRequest req;
  req.set_job_id(step_.job_id());
  req.set_step_id(step_.step_id());
  req.set_signal(signal);
  for (const std::string& node : step_.nodes()) {
    nodes_.Call(node, api::kSignalTasks, req, std::chrono::seconds(10)).ok();
  }
}

}  // namespace rota::cli
