#pragma once

// rotad without a slurm.conf of its own (configless, as slurmd --conf-server):
// the files come from the controller (api/config_fetch.h) and are kept in a
// cache directory, from which the daemon and its step daemons read them as
// they would read /etc/slurm. A daemon that cannot reach the controller starts
// from the cache of its last run; without one it keeps trying.

#include <chrono>
#include <string>
#include <vector>

#include "api/config_fetch.h"
#include "common/status.h"

namespace rota::noded {

// Slurm's place for the cache, where the commands on the host look too.
inline constexpr const char* kConfigCacheDir = "/run/slurm/conf";

struct ConfiglessSource {
  std::vector<api::ConfServer> servers;  // In the order tried
  std::string cache_dir = kConfigCacheDir;
  // The host's key for auth/slurm (api::BootstrapAuthSettings): used for the
  // first fetch and linked into the cache, so the cached slurm.conf finds it.
  std::string conf_dir = "/etc/slurm";
};

// Where the files come from, in Slurm's order: `--conf-server` (`flag`); none
// when a file was named (-f, `file_named`) or `local_conf` exists; else
// $SLURM_CONF_SERVER; else the DNS SRV record _slurmctld._tcp. Empty: read
// `local_conf` as usual.
Result<std::vector<api::ConfServer>> ConfigServers(const std::string& flag,
                                                   const std::string& local_conf, bool file_named);

struct ConfiglessStart {
  std::string slurm_conf_path;  // In the cache
  std::string digest;           // Of the files fetched; empty when started from the cache
};

// Fetches the files into the cache (or falls back to it) and says where
// slurm.conf now is. Retries every `retry` while neither works; gives up
// (kUnavailable) after `give_up`, which the daemon sets to forever.
Result<ConfiglessStart> StartConfigless(const ConfiglessSource& source,
                                        std::chrono::milliseconds retry,
                                        std::chrono::milliseconds give_up);

// Writes a fetched set into the cache, with the host key's link. The new
// files apply to every job step from now on (each rota-stepd reads them).
Status StoreFetchedConfig(const std::string& cache_dir, const std::string& conf_dir,
                          const wire::ConfigFilesResponse& files);

}  // namespace rota::noded
