#pragma once

// Configless operation (SlurmctldParameters=enable_configless): the set of
// configuration files the controller hands to node daemons and commands that
// have no slurm.conf of their own, and the node's cache of that set.
//
// The set is slurm.conf, every file its Include lines match (also nested), and
// the companion files present beside it (gres.conf, cgroup.conf, topology.conf,
// oci.conf and the other *.conf files a Slurm site keeps there). Each file is
// named relative to slurm.conf's directory; an Include of a file outside that
// directory is rewritten to "included/<its absolute path>", so the cache reads
// the same wherever it is written. slurmdbd.conf and keys are never part of it.

#include <string>
#include <vector>

#include "common/status.h"

namespace rota::conf {

struct ConfigFileCopy {
  std::string name;  // Relative path: "slurm.conf", "nodes.d/a.conf"
  std::string content;
  bool operator==(const ConfigFileCopy&) const = default;
};

// The companion files served when present, in this order after slurm.conf.
const std::vector<std::string>& CompanionConfigFiles();

// Reads the set for `slurm_conf_path`. Errors name the file that could not be
// read (slurm.conf itself, or an Include that matches nothing).
Result<std::vector<ConfigFileCopy>> CollectConfigFiles(const std::string& slurm_conf_path);

// True for a name a cache may hold: relative, no "..", no empty part.
bool IsSafeConfigFileName(const std::string& name);

// Writes `files` into `dir` (made when missing, mode 0755): each file through
// a temporary and a rename, so a reader never sees half a file; files of an
// earlier set that this one lacks are removed; "slurm.key" (a link to the
// host's key, LinkHostKey) is kept. Refuses unsafe names and a set without
// slurm.conf before writing anything.
Status WriteConfigCache(const std::string& dir, const std::vector<ConfigFileCopy>& files);

// Links `dir`/slurm.key to `key_path` when that file exists, so that what
// reads the cached slurm.conf finds the key beside it, as usual (auth/slurm).
// Nothing when the key does not exist.
Status LinkHostKey(const std::string& dir, const std::string& key_path);

}  // namespace rota::conf
