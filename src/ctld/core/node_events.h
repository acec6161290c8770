#pragma once

// Node events for accounting: the spans during which a node is out of
// service (DOWN, DRAIN, DRAINING), as `sacctmgr list events` shows them and
// sreport counts them as Down. The core calls Observe with each node record
// it persists; an event opens when the node goes out and closes (time_end)
// when it comes back or is taken out again for a new reason. Records go into
// Effects::node_events, which the server makes durable in the accounting
// outbox with the job records (ctld/server/accounting_outbox.h).
//
// An event is keyed by (node, time_start) and time_start is the node's
// reason_time, which the node record persists: after a restart, Restore
// finds the open events again from the restored nodes, so the record that
// closes one carries the start of the record that opened it. Nothing is
// produced unless AccountingStorageType=accounting_storage/slurmdbd.
//
// Thread confinement: owned by the ControllerCore (state loop thread).

#include <cstdint>
#include <map>
#include <string>

#include "conf/cluster_config.h"
#include "ctld/core/effects.h"
#include "ctld/core/node_table.h"
#include "node_events.pb.h"

namespace rota::ctld {

// DOWN, DRAINING (drained while jobs still run there) or DRAIN; "" when the
// node is in service.
std::string NodeEventState(const NodeRuntime& node);

// The node's TRES as accounting records them: "cpu=8,mem=64G,node=1", with
// gres/... when AccountingStorageTRES tracks it.
std::string NodeTres(const conf::ClusterConfig& config, const conf::NodeConfig& node);

class NodeEventTracker {
 public:
  // Forgets everything, then takes the nodes out of service in `nodes` as
  // open events (their start is their reason_time).
  void Restore(const conf::ClusterConfig& config, const NodeTable& nodes);
  // Compares `node` with the event open for it, if any, and appends what
  // opens, changes or closes to effects.node_events.
  void Observe(const conf::ClusterConfig& config, const NodeRuntime& node, int64_t now,
               Effects& effects);
  size_t open_count() const { return open_.size(); }

 private:
  std::map<std::string, wire::NodeEvent> open_;  // By node name
};

}  // namespace rota::ctld
