#pragma once

// The heart of rota-stepd: one job's life, outside rotad. Listens on the job's
// socket in the spool (signals and status questions from rotad, whichever
// rotad runs now), runs the job with BatchJob, writes its outcome to the spool
// and answers those waiting for it. Nothing here reports to the controller:
// rotad does, so that a job that ends while rotad is down is reported by the
// next one.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "noded/node_context.h"
#include "noded/stepd/batch_job.h"
#include "step.pb.h"

namespace rota::noded {

class StepDaemon {
 public:
  // REQUIRES: `node` outlives this object.
  StepDaemon(const NodeContext& node, wire::StepRecord record);
  ~StepDaemon();

  // Runs the job to its end and returns its outcome (also in the spool).
  // Errors: the socket could not be opened (the job did not start).
  Result<wire::JobExitedRequest> Run();

 private:
  void AcceptLoop(int listen_fd);
  void Serve(int fd);
  wire::StepStatus CurrentStatus();  // REQUIRES: mu_ held.

  const NodeContext& node_;
  const uint32_t job_id_;
  BatchJob job_;

  std::mutex mu_;
  std::condition_variable cv_;      // Notified when ended_ is set and when a connection ends.
  bool running_ = false;            // The script was started. Guarded by mu_.
  bool ended_ = false;              // outcome_ is final and recorded. Guarded by mu_.
  bool closing_ = false;            // The accept loop must stop. Guarded by mu_.
  int connections_ = 0;             // Connections being served. Guarded by mu_.
  wire::JobExitedRequest outcome_;  // Guarded by mu_.
  std::thread acceptor_;
};

}  // namespace rota::noded
