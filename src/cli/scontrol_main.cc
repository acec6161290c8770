// scontrol: view and change the cluster.
#include <getopt.h>

#include <iostream>
#include <string>
#include <vector>

#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/cluster_option.h"
#include "cli/scontrol_hostlist.h"
#include "cli/scontrol_licenses.h"
#include "cli/scontrol_option_table.h"
#include "cli/scontrol_reservation.h"
#include "cli/scontrol_show.h"
#include "cli/show_config.h"
#include "cli/slurm_version.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "token.pb.h"

namespace {

using rota::EqualsIgnoreCase;
using rota::cli::ControllerClient;

int Fail(const std::string& message) {
  std::cerr << "scontrol: error: " << message << "\n";
  return 1;
}

std::unique_ptr<ControllerClient> Connect() {
  auto client = ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) {
    Fail(client.status().message());
    return nullptr;
  }
  return std::move(client).value();
}

int ShowJobs(const std::vector<std::string>& ids, bool one_liner, bool details) {
  auto client = Connect();
  if (!client) return 1;
  rota::wire::ListJobsRequest req;
  for (const std::string& id : ids) {
    for (std::string_view piece : rota::Split(id, ',')) req.add_job_ids(std::string(piece));
  }
  req.set_include_finished(true);
  rota::wire::ListJobsResponse resp;
  rota::Status s = client->Call(rota::api::kListJobs, req, &resp);
  if (!s.ok()) return Fail(s.message());
  if (resp.jobs().empty()) {
    if (!ids.empty()) {
      std::cerr << "slurm_load_jobs error: Invalid job id specified\n";
      return 1;
    }
    std::cout << "No jobs in the system\n";
    return 0;
  }
  for (const auto& job : resp.jobs())
    std::cout << rota::cli::FormatJobDetails(job, resp.now(), one_liner, details);
  return 0;
}

int ShowNodes(const std::vector<std::string>& names, bool one_liner) {
  auto client = Connect();
  if (!client) return 1;
  rota::wire::ListNodesResponse resp;
  rota::Status s = client->Call(rota::api::kListNodes, rota::wire::Empty(), &resp);
  if (!s.ok()) return Fail(s.message());
  std::vector<std::string> wanted;
  if (!names.empty()) {
    auto expanded = rota::ExpandHostlist(names.front());
    if (!expanded.ok()) return Fail(expanded.status().message());
    wanted = *expanded;
  }
  bool any = false;
  for (const auto& n : resp.nodes()) {
    if (!wanted.empty() &&
        std::find(wanted.begin(), wanted.end(), n.record().name()) == wanted.end())
      continue;
    std::cout << rota::cli::FormatNodeDetails(n, one_liner);
    any = true;
  }
  if (!any && !names.empty()) return Fail("Node " + names.front() + " not found");
  return 0;
}

int ShowPartitions(const std::vector<std::string>& names, bool one_liner) {
  rota::conf::Diagnostics diags;
  auto config = rota::conf::LoadClusterConfig(rota::cli::CommandSlurmConfPath(), diags);
  if (!config.ok()) return Fail(diags.ToString() + config.status().message());
  bool any = false;
  for (const auto& p : (*config)->partitions) {
    if (!names.empty() && p.name != names.front()) continue;
    std::cout << rota::cli::FormatPartitionDetails(p, **config, one_liner);
    any = true;
  }
  if (!any && !names.empty()) return Fail("Partition " + names.front() + " not found");
  return 0;
}

int ShowLicenses(const std::vector<std::string>& names, bool one_liner) {
  rota::conf::Diagnostics diags;
  auto config = rota::conf::LoadClusterConfig(rota::cli::CommandSlurmConfPath(), diags,
                                              rota::conf::ConfigScope::kSlurmConfOnly);
  if (!config.ok()) return Fail(diags.ToString() + config.status().message());
  auto client = Connect();
  if (!client) return 1;
  rota::wire::ListJobsResponse resp;
  rota::Status s = client->Call(rota::api::kListJobs, rota::wire::ListJobsRequest(), &resp);
  if (!s.ok()) return Fail(s.message());
  const std::string name = names.empty() ? "" : names.front();
  std::string out = rota::cli::FormatLicenses((*config)->settings.licenses, resp, name, one_liner);
  if (out.empty() && !name.empty()) return Fail("License " + name + " not found");
  if (out.empty()) out = "No licenses configured in the system\n";
  std::cout << out;
  return 0;
}

int ShowConfig() {
  rota::conf::Diagnostics diags;
  auto config = rota::conf::LoadClusterConfig(rota::cli::CommandSlurmConfPath(), diags);
  if (!config.ok()) return Fail(diags.ToString() + config.status().message());
  rota::cli::ShowConfigContext context;
  context.now = time(nullptr);
  context.controller_host =
      (*config)->settings.controllers.empty() ? "" : (*config)->settings.controllers[0].name;
  // Whether the controller answers, as the last line says.
  if (auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
      client.ok()) {
    rota::wire::Empty pong;
    context.controller_up = (*client)->Call(rota::api::kPing, rota::wire::Empty(), &pong).ok();
  }
  std::cout << rota::cli::FormatShowConfig(**config, context);
  return 0;
}

// scontrol ping: whether each controller answers, as Slurm prints it (exit 1
// when one is down); and, on a line of Rota's own, why one refuses changes.
int Ping() {
  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) return Fail(client.status().message());
  const auto& controllers = (*client)->config().settings.controllers;
  bool all_up = true;
  for (size_t i = 0; i < controllers.size(); ++i) {
    const std::string role =
        i == 0 ? "primary" : (i == 1 ? "backup" : "backup" + std::to_string(i));
    rota::Result<std::string> body = (*client)->CallAt(i, rota::api::kPing, rota::wire::Empty());
    rota::wire::PingResponse pong;
    const bool up = body.ok() && pong.ParseFromString(*body);
    all_up = all_up && up;
    std::cout << "Slurmctld(" << role << ") at " << controllers[i].name << " is "
              << (up ? "UP" : "DOWN") << "\n";
    if (up && !pong.refusing_changes().empty()) {
      std::cout << "Slurmctld(" << role << ") refuses changes: " << pong.refusing_changes() << "\n";
    }
  }
  return all_up ? 0 : 1;
}

// scontrol takeover [INDEX]: the INDEXth SlurmctldHost (default 1, the
// backup) takes control; the one in control hands over at its next renewal.
int Takeover(const std::vector<std::string>& args) {
  size_t index = 1;
  if (!args.empty()) {
    std::optional<uint64_t> n = rota::ParseUint(args[0]);
    if (!n) return Fail("Invalid takeover index: " + args[0]);
    index = *n;
  }
  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) return Fail(client.status().message());
  if (index >= (*client)->config().settings.controllers.size()) {
    return Fail("no backup controller " + std::to_string(index) + " (SlurmctldHost names " +
                std::to_string((*client)->config().settings.controllers.size()) + ")");
  }
  rota::Result<std::string> done =
      (*client)->CallAt(index, rota::api::kTakeover, rota::wire::Empty());
  return done.ok() ? 0 : Fail(done.status().message());
}

// scontrol token [lifespan=SECONDS] [username=NAME]: prints SLURM_JWT=TOKEN,
// as Slurm does, for rotarestd's X-SLURM-USER-TOKEN.
int Token(const std::vector<std::string>& args) {
  rota::wire::TokenRequest req;
  for (const std::string& a : args) {
    const size_t eq = a.find('=');
    const std::string key = a.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (EqualsIgnoreCase(key, "lifespan")) {
      std::optional<uint64_t> secs = rota::ParseUint(value);
      if (!secs || *secs == 0) return Fail("Invalid lifespan: " + value);
      req.set_lifespan_s(static_cast<int64_t>(*secs));
    } else if (EqualsIgnoreCase(key, "username")) {
      if (value.empty()) return Fail("Invalid username");
      req.set_username(value);
    } else {
      return Fail("Invalid token argument: " + a);
    }
  }
  auto client = Connect();
  if (!client) return 1;
  rota::wire::TokenResponse resp;
  rota::Status s = client->Call(rota::api::kIssueToken, req, &resp);
  if (!s.ok()) return Fail("Unable to create token: " + s.message());
  std::cout << "SLURM_JWT=" << resp.token() << "\n";
  return 0;
}

int JobAction(const std::string& action, const std::vector<std::string>& ids,
              const std::vector<std::pair<std::string, std::string>>& fields = {}) {
  if (ids.empty()) return Fail("job id required");
  auto client = Connect();
  if (!client) return 1;
  rota::wire::UpdateJobRequest req;
  for (const std::string& id : ids) {
    for (std::string_view piece : rota::Split(id, ',')) req.add_job_ids(std::string(piece));
  }
  req.set_action(action);
  for (const auto& [k, v] : fields) (*req.mutable_fields())[k] = v;
  rota::wire::UpdateJobResponse resp;
  rota::Status s = client->Call(rota::api::kUpdateJob, req, &resp);
  if (!s.ok()) return Fail(s.message());
  for (const std::string& e : resp.errors()) {
    size_t colon = e.find(": ");
    std::cerr << e.substr(colon + 2) << " for job " << e.substr(0, colon) << "\n";
  }
  return resp.errors().empty() ? 0 : 1;
}

int Update(const std::vector<std::string>& args) {
  std::vector<std::pair<std::string, std::string>> fields;
  std::string job_id;
  std::string node;
  for (const std::string& a : args) {
    size_t eq = a.find('=');
    if (eq == std::string::npos) return Fail("Invalid input: " + a);
    std::string key = a.substr(0, eq);
    std::string value = a.substr(eq + 1);
    if (EqualsIgnoreCase(key, "JobId")) {
      job_id = value;
    } else if (EqualsIgnoreCase(key, "NodeName")) {
      node = value;
    } else {
      fields.push_back({key, value});
    }
  }
  if (!job_id.empty()) return JobAction("", {job_id}, fields);
  if (node.empty()) return Fail("Update requires JobId= or NodeName=");
  rota::wire::UpdateNodeRequest req;
  req.set_nodes(node);
  for (const auto& [k, v] : fields) {
    if (EqualsIgnoreCase(k, "State")) {
      req.set_state(v);
    } else if (EqualsIgnoreCase(k, "Reason")) {
      req.set_reason(v);
    } else {
      return Fail("Update of node " + k + " is not supported");
    }
  }
  auto client = Connect();
  if (!client) return 1;
  rota::wire::Empty resp;
  rota::Status s = client->Call(rota::api::kUpdateNode, req, &resp);
  if (!s.ok()) return Fail(s.message());
  return 0;
}

// `tag` is `entity`, or its first `min_len` or more letters (any case).
bool IsEntityPrefix(std::string_view tag, std::string_view entity, size_t min_len) {
  return tag.size() >= min_len && tag.size() <= entity.size() &&
         EqualsIgnoreCase(tag, entity.substr(0, tag.size()));
}

void Usage(std::ostream& to) {
  to << "Usage: scontrol [-o] [-d] show job|node|partition|licenses|config|hostnames|hostlist ...\n"
        "       scontrol hold|uhold|release|requeue|requeuehold|suspend|resume JOBID\n"
        "       scontrol update JobId=ID KEY=VALUE... | NodeName=NODES State=... Reason=...\n"
        "       scontrol create|update|delete|show reservation ...\n"
        "       scontrol reconfigure | ping | takeover [INDEX] | token [lifespan=N] "
        "[username=U]\n"
        "Options: -o/--oneliner, -d/--details, -M/--clusters=NAME, -Q/--quiet, -V/--version\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  bool one_liner = false;
  bool details = false;
  // -M, else SLURM_CLUSTERS: checked before anything is contacted.
  std::string clusters = rota::cli::ClustersFromEnvironment();
  using namespace rota::cli::scontrol_options;  // kLong, kShort, kRefused
  int c;
  int long_index = -1;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'M':
        clusters = optarg;
        break;
      case 'o':
        one_liner = true;
        break;
      case 'd':
        details = true;  // Jobs: the CPU ids, memory and GPU indices on each node.
        break;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      case 'h':
        Usage(std::cout);
        return 0;
      case 'a':  // Nothing is hidden here: every partition and node is shown
      case 'F':  // No node is in the FUTURE state here
      case 'Q':  // Nothing scontrol prints is silenced by it
      case 'v':
      case kNoOp:
        break;
      default:
        if (rota::cli::ReportRefusedOption("scontrol", c, kLong, long_index, kRefused)) return 1;
        std::cerr << "Try \"scontrol --help\" for more information\n";
        return 1;
    }
    long_index = -1;
  }
  args.assign(argv + optind, argv + argc);
  if (!clusters.empty()) {
    if (rota::Status s = rota::cli::CheckClusterOption(clusters, rota::cli::CommandSlurmConfPath());
        !s.ok()) {
      return Fail(s.message());
    }
  }
  if (args.empty()) {
    Usage(std::cerr);
    return 1;
  }
  const std::string& verb = args[0];
  if (EqualsIgnoreCase(verb, "version")) {
    std::cout << rota::cli::kSlurmVersionLine;
    return 0;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (EqualsIgnoreCase(verb, "show")) {
    if (rest.empty()) return Fail("show requires an entity");
    std::string entity = rest[0];
    std::vector<std::string> targets(rest.begin() + 1, rest.end());
    for (const char* e : {"hostnames", "hostlist", "hostlistsorted"}) {
      if (EqualsIgnoreCase(entity, e))
        return rota::cli::ShowHostlist(e, targets, std::cout, std::cerr);
    }
    // As Slurm's scontrol, an entity may be shortened ("j", "no", "part"),
    // and "jobid" is "job" (workflow tools write it).
    if (IsEntityPrefix(entity, "jobs", 1) || IsEntityPrefix(entity, "jobid", 4))
      return ShowJobs(targets, one_liner, details);
    if (IsEntityPrefix(entity, "nodes", 1)) return ShowNodes(targets, one_liner);
    if (IsEntityPrefix(entity, "partitions", 2)) {
      return ShowPartitions(targets, one_liner);
    }
    if (EqualsIgnoreCase(entity, "config")) return ShowConfig();
    if (EqualsIgnoreCase(entity, "licenses") || EqualsIgnoreCase(entity, "license") ||
        EqualsIgnoreCase(entity, "lic")) {
      return ShowLicenses(targets, one_liner);
    }
    if (EqualsIgnoreCase(entity, "reservation") || EqualsIgnoreCase(entity, "reservations") ||
        EqualsIgnoreCase(entity, "res")) {
      return rota::cli::ShowReservationCommand(targets, one_liner, std::cout, std::cerr);
    }
    return Fail("invalid entity:" + entity + " for keyword:show");
  }
  for (const char* action :
       {"hold", "uhold", "release", "requeue", "requeuehold", "suspend", "resume"}) {
    if (EqualsIgnoreCase(verb, action)) return JobAction(action, rest);
  }
  if (EqualsIgnoreCase(verb, "update")) {
    // ReservationName= names a reservation update ("update reservation ..." too).
    if (!rest.empty() && EqualsIgnoreCase(rest[0], "reservation")) rest.erase(rest.begin());
    for (const std::string& a : rest) {
      std::string key = a.substr(0, a.find('='));
      if (EqualsIgnoreCase(key, "ReservationName") || EqualsIgnoreCase(key, "Reservation")) {
        return rota::cli::UpdateReservationCommand(rest, std::cout, std::cerr);
      }
    }
    return Update(rest);
  }
  // scontrol create|delete reservation ...
  if ((EqualsIgnoreCase(verb, "create") || EqualsIgnoreCase(verb, "delete")) && !rest.empty() &&
      (EqualsIgnoreCase(rest[0], "reservation") || EqualsIgnoreCase(rest[0], "res"))) {
    std::vector<std::string> fields(rest.begin() + 1, rest.end());
    return EqualsIgnoreCase(verb, "create")
               ? rota::cli::CreateReservationCommand(fields, std::cout, std::cerr)
               : rota::cli::DeleteReservationCommand(fields, std::cerr);
  }
  if (EqualsIgnoreCase(verb, "ping")) return Ping();
  if (EqualsIgnoreCase(verb, "takeover")) return Takeover(rest);
  if (EqualsIgnoreCase(verb, "token")) return Token(rest);
  if (EqualsIgnoreCase(verb, "reconfigure")) {
    auto client = Connect();
    if (!client) return 1;
    rota::wire::Empty resp;
    rota::Status s = client->Call(rota::api::kReconfigure, rota::wire::Empty(), &resp);
    return s.ok() ? 0 : Fail(s.message());
  }
  return Fail("invalid keyword: " + verb);
}
