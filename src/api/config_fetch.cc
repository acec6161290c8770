#include "api/config_fetch.h"

#include <arpa/nameser.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <resolv.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "api/methods.h"
#include "api/signed_call.h"
#include "auth/sha256.h"
#include "common/strings.h"
#include "rpc/client.h"

namespace rota::api {

Result<std::vector<ConfServer>> ParseConfServers(std::string_view text) {
  std::vector<ConfServer> servers;
  for (std::string_view part : Split(text, ',')) {
    part = Trim(part);
    ConfServer server;
    const size_t colon = part.rfind(':');
    // A bracketed IPv6 address keeps its colons: [::1]:6817.
    const bool bracketed = !part.empty() && part.front() == '[';
    const size_t close = bracketed ? part.find(']') : std::string_view::npos;
    std::string_view host = part;
    if (bracketed && close != std::string_view::npos) {
      host = part.substr(1, close - 1);
      if (close + 1 < part.size()) {
        if (part[close + 1] != ':') return InvalidArgument(fmt::format("bad server \"{}\"", part));
        std::optional<uint64_t> port = ParseUint(part.substr(close + 2));
        if (!port || *port == 0 || *port > 65535) {
          return InvalidArgument(fmt::format("bad port in \"{}\"", part));
        }
        server.port = static_cast<uint16_t>(*port);
      }
    } else if (colon != std::string_view::npos && part.find(':') == colon) {
      host = part.substr(0, colon);
      std::optional<uint64_t> port = ParseUint(part.substr(colon + 1));
      if (!port || *port == 0 || *port > 65535) {
        return InvalidArgument(fmt::format("bad port in \"{}\"", part));
      }
      server.port = static_cast<uint16_t>(*port);
    }
    if (host.empty()) return InvalidArgument(fmt::format("no host in \"{}\"", part));
    server.host = std::string(host);
    servers.push_back(std::move(server));
  }
  return servers;
}

std::vector<ConfServer> ParseSrvAnswer(const unsigned char* answer, int length) {
  struct Record {
    uint16_t priority, weight;
    ConfServer server;
  };
  std::vector<Record> records;
  ns_msg message;
  if (length <= 0 || ns_initparse(answer, length, &message) != 0) return {};
  for (int i = 0; i < ns_msg_count(message, ns_s_an); ++i) {
    ns_rr rr;
    if (ns_parserr(&message, ns_s_an, i, &rr) != 0 || ns_rr_type(rr) != ns_t_srv) continue;
    const unsigned char* data = ns_rr_rdata(rr);
    if (ns_rr_rdlen(rr) < 7) continue;
    Record r;
    r.priority = ns_get16(data);
    r.weight = ns_get16(data + 2);
    r.server.port = ns_get16(data + 4);
    char target[NS_MAXDNAME];
    if (dn_expand(ns_msg_base(message), ns_msg_end(message), data + 6, target, sizeof target) < 0) {
      continue;
    }
    r.server.host = target;
    if (r.server.host.empty() || r.server.host == "." || r.server.port == 0) continue;
    records.push_back(std::move(r));
  }
  std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    return a.priority != b.priority ? a.priority < b.priority : a.weight > b.weight;
  });
  std::vector<ConfServer> servers;
  for (Record& r : records) servers.push_back(std::move(r.server));
  return servers;
}

std::vector<ConfServer> LookupSlurmctldSrv() {
  unsigned char answer[NS_PACKETSZ * 4];
  struct __res_state state {};
  if (res_ninit(&state) != 0) return {};
  const int length = res_nsearch(&state, "_slurmctld._tcp", ns_c_in, ns_t_srv, answer,
                                 static_cast<int>(sizeof answer));
  res_nclose(&state);
  return ParseSrvAnswer(answer, length);
}

Result<std::vector<ConfServer>> ConfServersFromEnvironmentOrDns() {
  if (const char* env = std::getenv("SLURM_CONF_SERVER"); env != nullptr && *env != '\0') {
    auto servers = ParseConfServers(env);
    if (!servers.ok()) return InvalidArgument("SLURM_CONF_SERVER: " + servers.status().message());
    return servers;
  }
  return LookupSlurmctldSrv();
}

auth::AuthSettings BootstrapAuthSettings(const std::string& conf_dir) {
  auth::AuthSettings settings;
  const std::string key = (std::filesystem::path(conf_dir) / "slurm.key").string();
  std::error_code error;
  if (std::filesystem::exists(key, error)) {
    settings.auth_type = "auth/slurm";
    settings.key_path = key;
  } else {
    settings.auth_type = "auth/munge";
  }
  return settings;
}

std::string ConfigFilesDigest(const std::vector<conf::ConfigFileCopy>& files) {
  std::string all;
  for (const conf::ConfigFileCopy& f : files) {
    // Lengths first, so that no two different sets run together the same.
    all += fmt::format("{}:{}:{}:", f.name.size(), f.content.size(), f.name);
    all += f.content;
  }
  const auth::Sha256Digest digest = auth::Sha256(all);
  std::string hex;
  for (uint8_t byte : digest) hex += fmt::format("{:02x}", byte);
  return hex;
}

wire::ConfigFilesResponse ConfigFilesToWire(const std::vector<conf::ConfigFileCopy>& files) {
  wire::ConfigFilesResponse out;
  for (const conf::ConfigFileCopy& f : files) {
    wire::ConfigFile& file = *out.add_files();
    file.set_name(f.name);
    file.set_content(f.content);
  }
  out.set_digest(ConfigFilesDigest(files));
  return out;
}

std::vector<conf::ConfigFileCopy> ConfigFilesFromWire(const wire::ConfigFilesResponse& response) {
  std::vector<conf::ConfigFileCopy> files;
  for (const wire::ConfigFile& f : response.files()) files.push_back({f.name(), f.content()});
  return files;
}

Result<wire::ConfigFilesResponse> FetchConfigFiles(const std::vector<ConfServer>& servers,
                                                   auth::CredentialIssuer& issuer,
                                                   std::chrono::milliseconds timeout) {
  Status last = Status(StatusCode::kUnavailable, "no configuration server named");
  for (const ConfServer& server : servers) {
    rpc::RpcClient rpc;
    Status connected = rpc.Connect(server.host, server.port, timeout);
    Result<std::string> body =
        connected.ok()
            ? SignedCall(rpc, issuer, kFetchConfig, wire::Empty().SerializeAsString(), timeout)
            : Result<std::string>(connected);
    wire::ConfigFilesResponse response;
    if (body.ok() && response.ParseFromString(*body)) return response;
    const Status why = body.ok() ? InvalidArgument("malformed answer") : body.status();
    last = Status(why.code(), fmt::format("{}:{}: {}", server.host, server.port, why.message()));
  }
  return last;
}

}  // namespace rota::api
