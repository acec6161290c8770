#pragma once

// The CPU time of a set of processes read from /proc, as Slurm's
// jobacct_gather/linux reads it: for each process its own user and system
// time plus that of the children it has reaped. cgroup v1 uses it for sstat's
// live CPU figures when jobs get no cpuacct cage (JobAcctGatherType other
// than jobacct_gather/cgroup): a cpuacct cgroup per job costs every job a
// mkdir and rmdir in the kernel, for a figure only sstat shows.

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "noded/cage/cgroup_backend.h"

namespace rota::noded {

// User and system time from one /proc/PID/stat line (fields 14-17: utime,
// stime, cutime, cstime, in clock ticks of `ticks_per_second`); nullopt when
// the line is not one. The command name (field 2) may hold spaces and
// parentheses: the fields are counted from its last ')'.
std::optional<CageCpuTime> ParseProcStatCpu(std::string_view stat_line, long ticks_per_second);

// The sum over `pids` of their /proc (under `proc_root`) stat lines; a process
// gone meanwhile counts nothing. nullopt when none could be read.
std::optional<CageCpuTime> ProcessesCpuTime(const std::vector<pid_t>& pids,
                                            const std::string& proc_root = "/proc");

}  // namespace rota::noded
