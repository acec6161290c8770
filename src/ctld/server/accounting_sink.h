#pragma once

#include <vector>

#include "accounting.pb.h"
#include "common/status.h"
#include "node_events.pb.h"

namespace rota::ctld {

// Makes the accounting records of a batch (Effects::accounting) durable:
// called on the state loop thread before the batch's state records are
// appended, so no state change that accounting should hear of is durable
// without its record (accounting_outbox.h). An error stops the controller.
class AccountingSink {
 public:
  virtual ~AccountingSink() = default;
  virtual Status Record(const std::vector<wire::AccountingJob>& records) = 0;
  // The same for node events (Effects::node_events), after the batch's jobs.
  virtual Status RecordNodeEvents(const std::vector<wire::NodeEvent>& events) = 0;
};

}  // namespace rota::ctld
