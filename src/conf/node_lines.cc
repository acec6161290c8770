// NodeName lines of slurm.conf.
#include <fmt/format.h>

#include <map>

#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/key_table.h"
#include "conf/slurm_conf_parser.h"
#include "conf/unenforced_keys.h"

namespace rota::conf {
namespace {

// One NodeName line's values before they are spread over its hosts. The
// socket/core/CPU counts depend on each other, so which were given matters.
struct NodeLineFields {
  NodeConfig node;
  std::string hostnames;  // NodeHostname=, a hostlist aligned with NodeName=
  std::string addresses;  // NodeAddr=
  std::string ports;      // Port=: one port, or a range aligned with NodeName= ("[17001-17004]")
  bool cpus_given = false;
  bool sockets_given = false;
  bool cores_given = false;
  uint32_t sockets_per_board = 0;
};

Status ParseGresField(std::string_view v, std::vector<GresSpec>& out) {
  Result<std::vector<GresSpec>> list = ParseGresList(v);
  if (!list.ok())
    return InvalidArgument(fmt::format("is not a GRES list ({})", list.status().message()));
  out = std::move(list).value();
  return Status::Ok();
}

Status ParseNodeState(std::string_view v, std::string& out) {
  // A state may carry flags after '+' (e.g. IDLE+DRAIN in saved state); the base decides.
  std::string base = ToUpper(v.substr(0, v.find('+')));
  for (std::string_view s :
       {"CLOUD", "DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "UNKNOWN", "IDLE", "RESUME"}) {
    if (base == s) {
      out = ToUpper(v);
      return Status::Ok();
    }
  }
  return InvalidArgument("is not a node state (UNKNOWN, IDLE, DOWN, DRAIN, FUTURE, CLOUD, ...)");
}

const KeyTable<NodeLineFields>& NodeKeys() {
  using F = NodeLineFields;
  static const KeyTable<F> table{
      {"CPUs",
       [](F& f, std::string_view v) {
         f.cpus_given = true;
         return ParseUint32Value(v, f.node.cpus);
       }},
      {"Procs",
       [](F& f, std::string_view v) {
         f.cpus_given = true;
         return ParseUint32Value(v, f.node.cpus);
       }},
      {"Boards", [](F& f, std::string_view v) { return ParseUint32Value(v, f.node.boards); }},
      {"Sockets",
       [](F& f, std::string_view v) {
         f.sockets_given = true;
         return ParseUint32Value(v, f.node.sockets);
       }},
      {"SocketsPerBoard", Uint32Field(&F::sockets_per_board)},
      {"CoresPerSocket",
       [](F& f, std::string_view v) {
         f.cores_given = true;
         return ParseUint32Value(v, f.node.cores_per_socket);
       }},
      {"ThreadsPerCore",
       [](F& f, std::string_view v) { return ParseUint32Value(v, f.node.threads_per_core); }},
      {"RealMemory",
       [](F& f, std::string_view v) { return ParseMemoryValue(v, f.node.real_memory_mb); }},
      {"TmpDisk", [](F& f, std::string_view v) { return ParseMemoryValue(v, f.node.tmp_disk_mb); }},
      {"Gres", [](F& f, std::string_view v) { return ParseGresField(v, f.node.gres); }},
      {"Feature",
       [](F& f, std::string_view v) {
         f.node.features = ParseListValue(v);
         return Status::Ok();
       }},
      {"Features",
       [](F& f, std::string_view v) {
         f.node.features = ParseListValue(v);
         return Status::Ok();
       }},
      {"Weight", [](F& f, std::string_view v) { return ParseUint32Value(v, f.node.weight); }},
      {"State", [](F& f, std::string_view v) { return ParseNodeState(v, f.node.state); }},
      {"Reason",
       [](F& f, std::string_view v) {
         f.node.reason = std::string(v);
         return Status::Ok();
       }},
      {"Port", StringField(&F::ports)},
      {"NodeHostname", StringField(&F::hostnames)},
      {"NodeAddr", StringField(&F::addresses)},
  };
  return table;
}

// Fills in the counts Slurm infers from the ones given. A line that gives
// CPUs and Sockets but no CoresPerSocket (the form many sites paste, e.g.
// "CPUs=128 Sockets=2") has CPUs / (Sockets * ThreadsPerCore) cores per
// socket: without that, gres.conf Cores= ranges over the real cores would
// name cores the node does not have.
void DeriveCounts(NodeLineFields& f, const SourceLocation& where, std::string_view names,
                  Diagnostics& diags) {
  NodeConfig& n = f.node;
  const bool sockets_known = f.sockets_given || f.sockets_per_board > 0;
  if (!f.sockets_given && f.sockets_per_board > 0) n.sockets = n.boards * f.sockets_per_board;
  if (f.cpus_given && sockets_known && !f.cores_given && n.sockets * n.threads_per_core > 0) {
    const uint32_t derived = std::max(1u, n.cpus / (n.sockets * n.threads_per_core));
    if (derived != n.cores_per_socket) {
      diags.Warning(where, fmt::format("NodeName={}: CoresPerSocket not given; using {} "
                                       "(CPUs={} / Sockets={} / ThreadsPerCore={})",
                                       names, derived, n.cpus, n.sockets, n.threads_per_core));
      n.cores_per_socket = derived;
    }
  }
  if (!sockets_known && f.cpus_given && n.cores_per_socket * n.threads_per_core > 0) {
    n.sockets = std::max(1u, n.cpus / (n.cores_per_socket * n.threads_per_core));
  }
  if (n.sockets == 0 || n.cores_per_socket == 0 || n.threads_per_core == 0) {
    diags.Error(where, fmt::format("NodeName={}: Sockets, CoresPerSocket and ThreadsPerCore must "
                                   "be at least 1",
                                   names));
    return;
  }
  uint32_t threads = n.sockets * n.cores_per_socket * n.threads_per_core;
  if (!f.cpus_given) {
    n.cpus = threads;
  } else if (n.cpus != threads && n.cpus != n.cores()) {
    diags.Warning(where, fmt::format("NodeName={}: CPUs={} does not match Sockets*CoresPerSocket*"
                                     "ThreadsPerCore={}",
                                     names, n.cpus, threads));
  }
}

// Expands NodeHostname=/NodeAddr= so each node gets its own; a single value is shared.
std::vector<std::string> AlignedNames(const std::string& expr, size_t count, std::string_view key,
                                      const SourceLocation& where, Diagnostics& diags) {
  if (expr.empty()) return {};
  Result<std::vector<std::string>> names = ExpandHostlist(expr);
  if (!names.ok()) {
    diags.Error(where, fmt::format("{}={}: {}", key, expr, names.status().message()));
    return {};
  }
  if (names->size() == 1) return std::vector<std::string>(count, names->front());
  if (names->size() != count) {
    diags.Error(where, fmt::format("{}={} names {} hosts but NodeName= names {}", key, expr,
                                   names->size(), count));
    return {};
  }
  return std::move(names).value();
}

}  // namespace

void ParseNodeLine(const ConfigLine& line, const std::vector<KeyValue>& defaults,
                   ClusterConfig& config, Diagnostics& diags) {
  const std::string& names_expr = line.pairs.front().value;
  Result<std::vector<std::string>> names = ExpandHostlist(names_expr);
  if (!names.ok()) {
    diags.Error(line.where, fmt::format("NodeName={}: {}", names_expr, names.status().message()));
    return;
  }
  NodeLineFields fields;
  fields.node.where = line.where;
  for (const KeyValue& kv : defaults) NodeKeys().Apply(kv, fields, line.where, diags);
  for (size_t i = 1; i < line.pairs.size(); ++i) {
    const KeyValue& kv = line.pairs[i];
    bool known = NodeKeys().Apply(kv, fields, line.where, diags);
    if (!WarnIfUnenforced(KeyPlace::kNodeLine, kv.key, kv.value, line.where, diags) && !known) {
      diags.Warning(line.where, fmt::format("unknown NodeName key {} (ignored)", kv.key));
    }
  }
  DeriveCounts(fields, line.where, names_expr, diags);
  std::vector<std::string> hostnames =
      AlignedNames(fields.hostnames, names->size(), "NodeHostname", line.where, diags);
  std::vector<std::string> addresses =
      AlignedNames(fields.addresses, names->size(), "NodeAddr", line.where, diags);
  // Several node daemons on one host each need a port: Port=[17001-17004]
  // gives the nodes of NodeName=n[1-4] one each, in order.
  std::vector<uint16_t> ports;
  for (const std::string& p :
       AlignedNames(fields.ports, names->size(), "Port", line.where, diags)) {
    uint16_t port = 0;
    Status s = ParsePortValue(p, port);
    if (!s.ok()) {
      diags.Error(line.where, fmt::format("Port={}: {}", p, s.message()));
      ports.clear();
      break;
    }
    ports.push_back(port);
  }

  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    if (auto it = config.node_index.find(name); it != config.node_index.end()) {
      diags.Error(line.where, fmt::format("node {} is already defined at line {}", name,
                                          config.nodes[it->second].where.line));
      continue;
    }
    NodeConfig node = fields.node;
    node.name = name;
    node.hostname = hostnames.empty() ? name : hostnames[i];
    node.address = addresses.empty() ? node.hostname : addresses[i];
    if (!ports.empty()) node.port = ports[i];
    config.node_index[name] = config.nodes.size();
    config.nodes.push_back(std::move(node));
  }
}

void AssignSharedHostPorts(ClusterConfig& config) {
  std::map<std::string, std::vector<NodeConfig*>> by_address;
  for (NodeConfig& n : config.nodes) {
    if (n.port == 0) by_address[n.address].push_back(&n);
  }
  for (auto& [address, nodes] : by_address) {
    if (nodes.size() < 2) continue;
    for (size_t k = 0; k < nodes.size(); ++k) {
      nodes[k]->port = static_cast<uint16_t>(config.settings.slurmd_port + k);
    }
  }
}

bool IsNodeLineKey(std::string_view key) { return NodeKeys().Find(key) != nullptr; }

}  // namespace rota::conf
