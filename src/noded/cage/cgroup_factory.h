#pragma once

// Chooses the cage for a node: cgroup v1 or v2 as cgroup.conf and the host
// call for, or the unenforced stand-in. Apart from cgroup_backend.h, which
// the implementations include, so that the interface does not depend on them.

#include <memory>
#include <string>

#include "conf/cgroup_conf.h"
#include "noded/cage/cgroup_backend.h"

namespace rota::noded {

// The backend cgroup.conf and the host call for, for node `node` (whose
// cgroups live under rota/<node>/ so that virtual nodes can share a host).
// Without root or without usable cgroups it returns the unenforced stand-in
// and logs a loud warning saying so. `cpu_time_cage`: cgroup v1 gives jobs a
// cpuacct cage for their CPU time (slurm.conf's
// JobAcctGatherType=jobacct_gather/cgroup); without it sstat's CPU time
// comes from /proc.
std::unique_ptr<CgroupBackend> MakeCgroupBackend(const conf::CgroupConf& conf,
                                                 const std::string& node, bool cpu_time_cage);

}  // namespace rota::noded
