#pragma once

// Configless operation, the fetching side: where the controller is when no
// slurm.conf says so (`rotad --conf-server`, $SLURM_CONF_SERVER, the DNS SRV
// record _slurmctld._tcp), the credential used before any slurm.conf has been
// read, and the call that fetches the files (api::kFetchConfig; the serving
// side is conf/config_files.h and the controller's service).

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "auth/credential.h"
#include "common/status.h"
#include "conf/config_files.h"
#include "rota.pb.h"

namespace rota::api {

// Slurm's default SlurmctldPort, for a server named without a port.
constexpr uint16_t kDefaultSlurmctldPort = 6817;

struct ConfServer {
  std::string host;
  uint16_t port = kDefaultSlurmctldPort;
  bool operator==(const ConfServer&) const = default;
};

// "HOST[:PORT][,HOST[:PORT]...]" (slurmd's --conf-server). Errors name the
// part that is not a host and port.
Result<std::vector<ConfServer>> ParseConfServers(std::string_view text);

// The SRV records of _slurmctld._tcp, found as Slurm's daemons and commands
// find them (res_search, so resolv.conf's search domains apply), lowest
// priority first (the primary), then highest weight. Empty when there are
// none or no resolver answers.
std::vector<ConfServer> LookupSlurmctldSrv();
// Where a daemon or command without a configuration file looks: the servers
// $SLURM_CONF_SERVER names (errors: its own), else the SRV records.
Result<std::vector<ConfServer>> ConfServersFromEnvironmentOrDns();
// The answer of a DNS query for SRV records, parsed; split from the lookup for
// tests. Malformed answers give nothing.
std::vector<ConfServer> ParseSrvAnswer(const unsigned char* answer, int length);

// The credential settings before slurm.conf is known: auth/slurm with the key
// `conf_dir`/slurm.key when that file exists (read by root and SlurmUser;
// others are sent to the credential socket as usual), else auth/munge with
// munged's default socket.
auth::AuthSettings BootstrapAuthSettings(const std::string& conf_dir);

// A digest of the set (names and contents): what a node compares with the
// controller's to know its copy is current.
std::string ConfigFilesDigest(const std::vector<conf::ConfigFileCopy>& files);

wire::ConfigFilesResponse ConfigFilesToWire(const std::vector<conf::ConfigFileCopy>& files);
std::vector<conf::ConfigFileCopy> ConfigFilesFromWire(const wire::ConfigFilesResponse& response);

// Asks each server in turn for the files; the first answer wins. Errors: the
// last server's, prefixed by its address.
Result<wire::ConfigFilesResponse> FetchConfigFiles(const std::vector<ConfServer>& servers,
                                                   auth::CredentialIssuer& issuer,
                                                   std::chrono::milliseconds timeout);

}  // namespace rota::api
