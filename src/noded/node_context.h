#pragma once

// What every job on a node shares with the daemon that runs it. Owned by
// NodeDaemon, which outlives its jobs.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "conf/cluster_config.h"
#include "noded/cage/cgroup_backend.h"
#include "noded/container/container_store.h"
#include "noded/controller_link.h"
#include "noded/gpu/gpu_allocator.h"
#include "noded/gpu/gpu_watch.h"
#include "noded/node_settings.h"

namespace rota::noded {

// Set once when the daemon stops; waits that should end then wait on it.
class StopFlag {
 public:
  void Set() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopped_ = true;
    }
    cv_.notify_all();
  }
  bool IsSet() {
    std::lock_guard<std::mutex> lock(mu_);
    return stopped_;
  }
  // Sleeps up to `d`; true when the flag was set meanwhile (or before).
  bool WaitFor(std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, d, [this] { return stopped_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;  // Guarded by mu_.
};

struct NodeContext {
  std::shared_ptr<const conf::ClusterConfig> config;
  NodeSettings settings;
  GpuAllocator* gpus = nullptr;          // Thread-safe.
  CgroupBackend* cgroups = nullptr;      // Thread-safe across jobs.
  ControllerLink* controller = nullptr;  // Thread-safe.
  StopFlag* stop = nullptr;
  // rotad only, and only where the GPUs are sampled: null otherwise.
  GpuWatch* gpu_watch = nullptr;  // Thread-safe.
  // rotad only: the jobs' containers (pyxis' options). Null elsewhere.
  ContainerStore* containers = nullptr;  // Thread-safe.
};

}  // namespace rota::noded
