#pragma once

// What the controller concludes from node daemons' registrations: whether the
// hardware a node reports falls short of its NodeName line, in Slurm's words.
// The ControllerCore half (heartbeats, SlurmdTimeout, ReturnToService) is in
// node_liveness.cc as well.

#include <string>

#include "conf/slurm_conf.h"
#include "rota.pb.h"

namespace rota::ctld {

// The reason a node set DOWN for silence carries, as Slurm writes it.
inline constexpr char kNotResponding[] = "Not responding";

// SlurmdParameters=config_overrides: nodes take their configured hardware,
// whatever their daemons report.
bool HasConfigOverrides(const conf::SlurmConf& settings);

// Why `reported` falls short of `configured`, as Slurm's drain reasons say
// it ("Low socket*core*thread count (2 < 32)", "Low RealMemory (23000 <
// 256000)", "gres/gpu count reported lower than configured (7 < 8)"), joined
// with ", "; "" when nothing falls short. Zero CPUs or memory mean the daemon
// could not tell, and are not held against it.
std::string HardwareShortfall(const conf::NodeConfig& configured,
                              const wire::NodeRegisterRequest& reported);

}  // namespace rota::ctld
