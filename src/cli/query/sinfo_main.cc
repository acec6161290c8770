// sinfo: view nodes and partitions.
#include <getopt.h>
#include <pwd.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/cluster_option.h"
#include "cli/format/sinfo_fields.h"
#include "cli/format/sinfo_reservations.h"
#include "cli/local_time.h"
#include "cli/query/sinfo_option_table.h"
#include "cli/slurm_version.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "rota.pb.h"

namespace {

using rota::cli::format::PartitionAvail;
using rota::cli::format::SinfoPartition;

SinfoPartition ToSinfo(const rota::conf::PartitionConfig& p) {
  SinfoPartition s;
  s.name = p.name;
  s.is_default = p.is_default;
  s.avail = p.state == "DOWN"       ? PartitionAvail::kDown
            : p.state == "DRAIN"    ? PartitionAvail::kDrain
            : p.state == "INACTIVE" ? PartitionAvail::kInactive
                                    : PartitionAvail::kUp;
  s.max_time = p.max_time;
  s.default_time = p.default_time.value_or(0);
  s.nodes = p.nodes;
  s.min_nodes = p.min_nodes;
  s.max_nodes = p.max_nodes == rota::conf::kUnlimitedCount ? 0 : p.max_nodes;
  s.oversubscribe = p.oversubscribe;
  s.allow_groups = rota::Join(p.allow_groups, ",");
  s.priority_tier = p.priority_tier;
  s.priority_job_factor = p.priority_job_factor;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rota::cli::sinfo_options;  // kLong, kShort and the option ids
  rota::cli::format::SinfoOptions options;
  std::vector<std::string> partitions;
  std::vector<std::string> states;
  std::string nodes_filter;
  // -M, else SLURM_CLUSTERS: checked before anything is contacted.
  std::string clusters = rota::cli::ClustersFromEnvironment();
  int iterate_s = 0;          // -i: seconds between listings
  bool reservations = false;  // -T: the reservations instead of the nodes
  // -d / -r: only the nodes that do not answer / that do (the '*' state flag).
  bool dead_only = false, responding_only = false;
  int c;
  int long_index = -1;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'h':
        options.no_header = true;
        break;
      case 'N':
        options.node_oriented = true;
        break;
      case 'l':
        options.long_format = true;
        break;
      case 'R':
        options.list_reasons = true;
        break;
      case 'o':
        options.format = optarg;
        break;
      case 'O':
        options.format_long = optarg;
        break;
      case 'p':
        for (std::string_view p : rota::Split(optarg, ',')) partitions.emplace_back(p);
        break;
      case 't':
        for (std::string_view t : rota::Split(optarg, ',')) states.emplace_back(rota::ToLower(t));
        break;
      case 's':
        options.summarize = true;
        break;
      case 'S':
        options.sort = optarg;
        break;
      case 'n':
        nodes_filter = optarg;
        break;
      case 'M':
        clusters = optarg;
        break;
      case 'T':
        reservations = true;
        break;
      case 'd':
        dead_only = true;
        break;
      case 'r':
        responding_only = true;
        break;
      case kNoOp:
      case 'a':
      case 'v':
      case 'e':  // Nodes are grouped by their whole configuration anyway
        break;
      case 1001:
        std::cout << "Usage: sinfo [-h] [-N] [-l] [-R] [-s] [-d|-r] [-T] [-o FORMAT] [-O FORMAT]\n"
                     "             [-p PARTITIONS] [-t STATES] [-n NODES] [-i SECONDS]\n";
        return 0;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      case 'i': {
        const std::optional<uint64_t> secs = rota::ParseUint(optarg);
        if (!secs || *secs == 0 || *secs > 86400) {
          std::cerr << "sinfo: error: --iterate=" << optarg << "\n";
          return 1;
        }
        iterate_s = static_cast<int>(*secs);
        break;
      }
      default:
        if (rota::cli::ReportRefusedOption("sinfo", c, kLong, long_index, kRefused)) return 1;
        std::cerr << "Try \"sinfo --help\" for more information\n";
        return 1;
    }
  }
  if (!clusters.empty()) {
    if (rota::Status s = rota::cli::CheckClusterOption(clusters, rota::cli::CommandSlurmConfPath());
        !s.ok()) {
      std::cerr << "sinfo: error: " << s.message() << "\n";
      return 1;
    }
  }
  // Unknown format fields are told now, before the controller is asked (the
  // listing goes on without them, as in Slurm).
  if (auto empty = rota::cli::format::RenderSinfo({}, {}, options, {}); empty.ok()) {
    for (const std::string& e : empty->errors) std::cerr << "sinfo: error: " << e << "\n";
  }
  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "sinfo: error: " << client.status().message() << "\n";
    return 1;
  }
  // One listing; -i repeats it every N seconds, a blank line between, until
  // interrupted, as Slurm's sinfo does.
  auto list_reservations = [&]() -> int {
    rota::wire::ListReservationsResponse response;
    rota::Status s = (*client)->Call(rota::api::kListReservations,
                                     rota::wire::ReservationNameRequest(), &response);
    if (!s.ok()) {
      std::cerr << "sinfo: error: " << s.message() << "\n";
      return 1;
    }
    std::cout << rota::cli::format::RenderSinfoReservations(
        {response.reservations().begin(), response.reservations().end()}, response.now(),
        rota::cli::UtcOffsetSeconds(response.now()), options.no_header);
    return 0;
  };
  auto list_once = [&]() -> int {
    if (reservations) return list_reservations();
    rota::wire::ListNodesResponse response;
    rota::Status s = (*client)->Call(rota::api::kListNodes, rota::wire::Empty(), &response);
    if (!s.ok()) {
      std::cerr << "sinfo: error: " << s.message() << "\n";
      return 1;
    }
    std::vector<SinfoPartition> parts;
    for (const auto& p : (*client)->config().partitions) {
      if (p.hidden) continue;
      if (!partitions.empty() &&
          std::find(partitions.begin(), partitions.end(), p.name) == partitions.end())
        continue;
      parts.push_back(ToSinfo(p));
    }
    std::vector<std::string> wanted_nodes;
    if (!nodes_filter.empty()) wanted_nodes = rota::ExpandHostlist(nodes_filter).value_or({});
    std::vector<rota::wire::NodeInfo> nodes;
    rota::cli::format::SinfoContext ctx;
    ctx.now = response.now();
    ctx.utc_offset_s = rota::cli::UtcOffsetSeconds(ctx.now);
    for (const auto& n : response.nodes()) {
      if (!wanted_nodes.empty() && std::find(wanted_nodes.begin(), wanted_nodes.end(),
                                             n.record().name()) == wanted_nodes.end()) {
        continue;
      }
      const uint32_t bits = rota::cli::format::NodeStateBits(n);
      const bool responding = (bits & rota::cli::format::node_state::kNoRespond) == 0;
      if ((dead_only && responding) || (responding_only && !responding)) continue;
      if (!states.empty()) {
        std::string compact = rota::cli::format::NodeStateCompactText(bits);
        std::string base = compact.substr(0, compact.find_first_of("*~#"));
        if (std::find(states.begin(), states.end(), base) == states.end()) continue;
      }
      nodes.push_back(n);
      uint32_t uid = n.record().reason_uid();
      if (!ctx.user_names.count(uid)) {
        passwd* pw = getpwuid(uid);
        ctx.user_names[uid] = pw != nullptr ? pw->pw_name : std::to_string(uid);
      }
    }
    auto listing = rota::cli::format::RenderSinfo(parts, nodes, options, ctx);
    if (!listing.ok()) {
      std::cerr << "sinfo: error: " << listing.status().message() << "\n";
      return 1;
    }
    std::cout << listing->text;
    return 0;
  };
  if (iterate_s == 0) return list_once();
  for (;;) {
    if (const int rc = list_once(); rc != 0) return rc;
    std::cout << "\n" << std::flush;
    std::this_thread::sleep_for(std::chrono::seconds(iterate_s));
  }
}
