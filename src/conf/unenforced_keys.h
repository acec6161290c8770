#pragma once

// The keys Rota accepts in a site's files but does not act on: a
// configuration written for Slurm keeps loading, and the administrator is
// told, at the key's line, that it changes nothing here (`rotactld
// --check-config` prints it; the daemons log it at start). One table
// (unenforced_keys.cc) lists them all, so that it shrinks as keys get
// implemented.

#include <string_view>

#include "conf/diagnostics.h"

namespace rota::conf {

// Where a key is written: its meaning depends on the kind of line.
enum class KeyPlace {
  kSlurmConf,      // A cluster-wide line of slurm.conf
  kNodeLine,       // NodeName=...
  kPartitionLine,  // PartitionName=...
  kCgroupConf,
  kGresConf,
  kSchedulerParameters,  // An option of SchedulerParameters= (its name, before any '=')
};

// The canonical spelling of `key` when it is accepted without effect in
// `place` (any case matches); empty otherwise.
std::string_view UnenforcedKey(KeyPlace place, std::string_view key);

// When `key` is one Rota accepts without effect in `place`, returns true and
// warns at `where`, unless `value` is what Rota does anyway (e.g.
// ProctrackType=proctrack/cgroup: jobs are always tracked by their cgroup).
// (For kSchedulerParameters the warning names SchedulerParameters.)
bool WarnIfUnenforced(KeyPlace place, std::string_view key, std::string_view value,
                      const SourceLocation& where, Diagnostics& diags);

}  // namespace rota::conf
