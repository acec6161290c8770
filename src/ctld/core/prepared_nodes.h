#pragma once

// PrologFlags=Alloc/Contain: the nodes of a job other than its first are
// prepared when it starts (the node messenger sends api::kPrepareJob before
// the batch launch; rotad makes the job's cgroup there, with its extern step,
// and runs the Prolog), so they hold something of the job until it ends,
// whether or not a step ever ran there.

#include "conf/cluster_config.h"
#include "ctld/core/effects.h"
#include "rota.pb.h"

namespace rota::ctld {

// Whether the job's other nodes are prepared at its start.
bool PreparesEveryNode(const conf::ClusterConfig& config);

// The job is ending: unless `effects` already carries a signal that ends it
// (a cancel, a time limit, a requeue), tells its other nodes to end it too
// (SIGTERM, SIGKILL after KillWait), so that their cages go. Nothing without
// PrologFlags=Alloc/Contain or on a single node.
void EndOnOtherNodes(const conf::ClusterConfig& config, const wire::JobRecord& job,
                     Effects& effects);

}  // namespace rota::ctld
