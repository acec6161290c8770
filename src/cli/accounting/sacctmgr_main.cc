// sacctmgr: accounts, users and QoS in rotadbd.
#include <getopt.h>
#include <poll.h>
#include <pwd.h>
#include <unistd.h>

#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "accounting_admin.pb.h"
#include "api/dbd_methods.h"
#include "api/methods.h"
#include "cli/accounting/sacctmgr_assoc.h"
#include "cli/accounting/sacctmgr_command.h"
#include "cli/accounting/sacctmgr_events.h"
#include "cli/accounting/sacctmgr_option_table.h"
#include "cli/client/accounting_client.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/slurm_version.h"
#include "common/strings.h"
#include "common/user_names.h"
#include "conf/config_loader.h"
#include "policy.pb.h"
#include "rota.pb.h"

namespace {

using rota::cli::SacctLayout;

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: sacctmgr [-i] [-n] [-P|-p] COMMAND ENTITY [NAMES] [Key=Value ...]\n"
               "  COMMAND: add|create, show|list, delete|remove, modify|update\n"
               "  ENTITY:  account, user, qos, cluster; show also assoc (and user ... withassoc)\n"
               "           and events [Nodes=..] [States=..] [Start=..] [End=..] [format=..]\n"
               "  -i, --immediate    commit without asking\n"
               "  -n, --noheader     no header\n"
               "  -P, --parsable2    '|' between fields;  -p, --parsable: '|' after each\n");
}

// Slurm asks before committing; an answer other than y (or none in 30 s) discards.
bool Confirmed() {
  std::cout << "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): "
            << std::flush;
  pollfd p{STDIN_FILENO, POLLIN, 0};
  if (poll(&p, 1, 30'000) <= 0) return false;
  std::string answer;
  std::getline(std::cin, answer);
  return !answer.empty() && (answer[0] == 'y' || answer[0] == 'Y');
}

// Tells the controller that the policy changed, so that it reads it from
// rotadbd now rather than at its next refresh. A controller that is down
// reads it when it starts; nothing to report.
void TellController() {
  auto controller = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!controller.ok()) return;
  rota::wire::Empty resp;
  (void)(*controller)->Call(rota::api::kPolicyChanged, rota::wire::PolicyChangedRequest(), &resp);
}

// Lists `kind` from rotadbd into `out`.
rota::Status List(rota::cli::AccountingClient& client, const std::string& kind,
                  std::vector<rota::wire::AcctEntity>& out) {
  rota::wire::ListEntitiesRequest req;
  req.set_kind(kind);
  rota::wire::ListEntitiesResponse resp;
  ROTA_RETURN_IF_ERROR(client.Call(rota::api::kDbdListEntities, req, &resp));
  out.assign(resp.entities().begin(), resp.entities().end());
  return rota::Status::Ok();
}

// sacctmgr show assoc | show user withassoc.
int ShowAssociations(rota::cli::AccountingClient& client, const rota::cli::SacctmgrCommand& command,
                     SacctLayout layout, bool no_header) {
  rota::cli::AssocData data;
  data.cluster = client.config().settings.cluster_name;
  rota::Status s = List(client, "account", data.accounts);
  if (s.ok()) s = List(client, "user", data.users);
  if (s.ok()) s = List(client, "assoc", data.assocs);
  if (!s.ok()) {
    std::cerr << "sacctmgr: error: " << s.message() << "\n";
    return 1;
  }
  auto text = command.kind == "assoc"
                  ? rota::cli::RenderAssociations(command, data, layout, no_header)
                  : rota::cli::RenderUsersWithAssocs(command, data, layout, no_header);
  if (!text.ok()) {
    std::cerr << " " << text.status().message() << "\n";
    return 1;
  }
  std::cout << *text;
  return 0;
}

// The accounting daemon's client; says why on stderr when there is none.
rota::Result<std::unique_ptr<rota::cli::AccountingClient>> OpenAccounting() {
  auto client = rota::cli::AccountingClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) std::cerr << "sacctmgr: error: " << client.status().message() << "\n";
  return client;
}

// sacctmgr list events.
int ListEvents(const std::vector<std::string>& words, SacctLayout layout, bool no_header) {
  auto command = rota::cli::ParseEventsCommand({words.begin() + 2, words.end()},
                                               static_cast<int64_t>(std::time(nullptr)));
  if (!command.ok()) {
    std::cerr << " " << command.status().message() << "\n";
    return 1;
  }
  auto client = OpenAccounting();
  if (!client.ok()) return 1;
  rota::wire::QueryNodeEventsResponse resp;
  rota::Status s = (*client)->Call(rota::api::kDbdQueryNodeEvents, command->query, &resp);
  if (!s.ok()) {
    std::cerr << "sacctmgr: error: " << s.message() << "\n";
    return 1;
  }
  auto text = rota::cli::RenderEvents({resp.events().begin(), resp.events().end()}, *command,
                                      layout, no_header, rota::UserNameOrNumber);
  if (!text.ok()) {
    std::cerr << " " << text.status().message() << "\n";
    return 1;
  }
  std::cout << *text;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rota::cli::sacctmgr_options;  // kLong, kShort and the option ids
  bool immediate = false, no_header = false;
  bool associations = false;  // -s: users shown with their associations
  bool read_only = false;     // -r: list and show only
  SacctLayout layout = SacctLayout::kAligned;
  int c;
  // '+': options only before the command, so "format=..." and the like stay words.
  int long_index = -1;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'i':
        immediate = true;
        break;
      case 'n':
        no_header = true;
        break;
      case 'p':
        layout = SacctLayout::kParsable;
        break;
      case 'P':
        layout = SacctLayout::kParsable2;
        break;
      case 'h':
        Usage(stdout);
        return 0;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      case 'Q':
      case 'v':
        break;
      case 's':
        associations = true;
        break;
      case 'r':
        read_only = true;
        break;
      default:
        if (rota::cli::ReportRefusedOption("sacctmgr", c, kLong, long_index, kRefused)) return 1;
        Usage(stderr);
        return 1;
    }
  }
  std::vector<std::string> words(argv + optind, argv + argc);
  if (words.size() == 1 && rota::ToLower(words[0]) == "version") {
    std::cout << rota::cli::kSlurmVersionLine;
    return 0;
  }
  if (words.size() >= 2 && rota::cli::IsEventsEntity(words[1]) &&
      (rota::ToLower(words[0]) == "list" || rota::ToLower(words[0]) == "show")) {
    return ListEvents(words, layout, no_header);
  }
  auto command = rota::cli::ParseSacctmgrCommand(words);
  if (!command.ok()) {
    std::cerr << " " << command.status().message() << "\n";
    return 1;
  }
  if (read_only && command->verb != rota::cli::SacctmgrVerb::kShow) {
    std::cerr << "sacctmgr: error: read-only (-r): only list and show are allowed\n";
    return 1;
  }
  if (associations && command->verb == rota::cli::SacctmgrVerb::kShow && command->kind == "user") {
    command->with_assoc = true;
  }
  auto client = OpenAccounting();
  if (!client.ok()) return 1;
  switch (command->verb) {
    case rota::cli::SacctmgrVerb::kShow: {
      if (command->kind == "assoc" || command->with_assoc) {
        return ShowAssociations(**client, *command, layout, no_header);
      }
      rota::wire::ListEntitiesRequest req;
      req.set_kind(command->kind);
      for (const std::string& n : command->names) req.add_names(n);
      rota::wire::ListEntitiesResponse resp;
      rota::Status s = (*client)->Call(rota::api::kDbdListEntities, req, &resp);
      if (!s.ok()) {
        std::cerr << "sacctmgr: error: " << s.message() << "\n";
        return 1;
      }
      auto text = rota::cli::RenderEntities(command->kind, command->format, layout, no_header,
                                            {resp.entities().begin(), resp.entities().end()});
      if (!text.ok()) {
        std::cerr << " " << text.status().message() << "\n";
        return 1;
      }
      std::cout << *text;
      return 0;
    }
    case rota::cli::SacctmgrVerb::kAdd: {
      std::cout << rota::cli::DescribeAdd(*command);
      if (!immediate && !Confirmed()) {
        std::cout << " Changes Discarded\n";
        return 0;
      }
      rota::wire::AddEntitiesRequest req;
      for (auto& e : rota::cli::EntitiesToAdd(*command)) *req.add_entities() = std::move(e);
      rota::wire::Empty resp;
      rota::Status s = (*client)->Call(rota::api::kDbdAddEntities, req, &resp);
      if (!s.ok()) {
        std::cerr << " " << s.message() << "\n";
        return 1;
      }
      TellController();
      return 0;
    }
    case rota::cli::SacctmgrVerb::kModify: {
      std::cout << " Modified " << command->kind << "...\n";
      for (const std::string& n : command->names) std::cout << "  " << n << "\n";
      if (!immediate && !Confirmed()) {
        std::cout << " Changes Discarded\n";
        return 0;
      }
      rota::wire::ModifyEntitiesResponse resp;
      rota::Status s =
          (*client)->Call(rota::api::kDbdModifyEntities, rota::cli::ModifyRequest(*command), &resp);
      if (!s.ok()) {
        std::cerr << " " << s.message() << "\n";
        return 1;
      }
      TellController();
      return 0;
    }
    case rota::cli::SacctmgrVerb::kDelete: {
      if (!immediate) {
        std::cout << " Deleting " << command->kind << "(s)...\n";
        for (const std::string& n : command->names) std::cout << "  " << n << "\n";
        if (!Confirmed()) {
          std::cout << " Changes Discarded\n";
          return 0;
        }
      }
      rota::wire::DeleteEntitiesRequest req;
      req.set_kind(command->kind);
      for (const std::string& n : command->names) req.add_names(n);
      for (const std::string& a : command->accounts) req.add_accounts(a);
      rota::wire::DeleteEntitiesResponse resp;
      rota::Status s = (*client)->Call(rota::api::kDbdDeleteEntities, req, &resp);
      if (!s.ok()) {
        std::cerr << " " << s.message() << "\n";
        return 1;
      }
      if (resp.deleted().empty()) {
        std::cout << " Nothing deleted\n";
        return 0;
      }
      if (immediate) {
        std::cout << (command->accounts.empty() ? " Deleting " + command->kind + "(s)...\n"
                                                : std::string(" Deleting user associations...\n"));
      }
      for (const std::string& n : resp.deleted()) std::cout << "  " << n << "\n";
      TellController();
      return 0;
    }
  }
  return 0;
}
