#include "cli/accounting/sacctmgr_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "common/strings.h"

namespace rota::cli {
namespace {

std::string Kind(const std::string& word) {
  const std::string w = ToLower(word);
  if (w == "account" || w == "accounts") return "account";
  if (w == "user" || w == "users") return "user";
  if (w == "qos") return "qos";
  if (w == "cluster" || w == "clusters") return "cluster";
  if (w == "assoc" || w == "association" || w == "associations") return "assoc";
  return "";
}

void AddNames(std::vector<std::string>& out, std::string_view list) {
  for (std::string_view n : Split(list, ',')) {
    if (!n.empty()) out.emplace_back(n);
  }
}

constexpr std::array kAccountColumns = {
    EntityColumn{"Account", "Account", 10, ""},
    EntityColumn{"Descr", "Descr", 20, "Description"},
    EntityColumn{"Org", "Org", 20, "Organization"},
    EntityColumn{"ParentName", "Par Name", 10, "Parent"},
    EntityColumn{"Fairshare", "Share", 9, "Fairshare"},
    EntityColumn{"Priority", "Priority", 10, "Priority"},
    EntityColumn{"GrpTRESMins", "GrpTRESMins", 13, "GrpTRESMins"},
    EntityColumn{"GrpTRESRunMins", "GrpTRESRunMins", 20, "GrpTRESRunMins"},
    EntityColumn{"QOS", "QOS", 20, "QOS"},
    EntityColumn{"DefaultQOS", "Def QOS", 9, "DefaultQOS", "DefQOS"},
};
constexpr std::array kUserColumns = {
    EntityColumn{"User", "User", 10, ""},
    EntityColumn{"DefaultAccount", "Def Acct", 10, "DefaultAccount"},
    EntityColumn{"AdminLevel", "Admin", 9, "AdminLevel"},
    EntityColumn{"Fairshare", "Share", 9, "Fairshare"},
};
constexpr std::array kQosColumns = {
    EntityColumn{"Name", "Name", 10, ""},
    EntityColumn{"Priority", "Priority", 10, "Priority"},
    EntityColumn{"MaxWall", "MaxWall", 11, "MaxWall"},
    EntityColumn{"MaxJobsPerUser", "MaxJobsPU", 9, "MaxJobsPerUser"},
    EntityColumn{"MaxSubmitJobsPerUser", "MaxSubmitPU", 11, "MaxSubmitJobsPerUser"},
    EntityColumn{"GrpJobs", "GrpJobs", 7, "GrpJobs"},
    EntityColumn{"GrpSubmitJobs", "GrpSubmit", 9, "GrpSubmitJobs"},
    EntityColumn{"GrpTRES", "GrpTRES", 13, "GrpTRES"},
    EntityColumn{"GrpTRESMins", "GrpTRESMins", 13, "GrpTRESMins"},
    EntityColumn{"GrpTRESRunMins", "GrpTRESRunMins", 20, "GrpTRESRunMins"},
    EntityColumn{"MaxTRESPerUser", "MaxTRESPU", 13, "MaxTRESPerUser"},
    EntityColumn{"MaxTRESPerJob", "MaxTRES", 13, "MaxTRESPerJob"},
    EntityColumn{"UsageFactor", "UsageFactor", 11, "UsageFactor"},
    EntityColumn{"Flags", "Flags", 10, "Flags"},
    EntityColumn{"Preempt", "Preempt", 10, "Preempt"},
    EntityColumn{"PreemptMode", "PreemptMode", 11, "PreemptMode"},
    EntityColumn{"Description", "Descr", 11, "Description"},
};

// rotadbd fills ControlHost, ControlPort, RPC, Fairshare and QOS.
constexpr std::array kClusterColumns = {
    EntityColumn{"Cluster", "Cluster", 10, ""},
    EntityColumn{"ControlHost", "ControlHost", 15, "ControlHost"},
    EntityColumn{"ControlPort", "ControlPort", 12, "ControlPort"},
    EntityColumn{"RPC", "RPC", 5, "RPC"},
    EntityColumn{"Fairshare", "Share", 9, "Fairshare"},
    EntityColumn{"GrpJobs", "GrpJobs", 7, "GrpJobs"},
    EntityColumn{"GrpTRES", "GrpTRES", 13, "GrpTRES"},
    EntityColumn{"GrpSubmitJobs", "GrpSubmit", 9, "GrpSubmitJobs"},
    EntityColumn{"MaxJobs", "MaxJobs", 7, "MaxJobs"},
    EntityColumn{"MaxTRES", "MaxTRES", 13, "MaxTRES"},
    EntityColumn{"MaxSubmitJobs", "MaxSubmit", 9, "MaxSubmitJobs"},
    EntityColumn{"MaxWall", "MaxWall", 11, "MaxWall"},
    EntityColumn{"QOS", "QOS", 20, "QOS"},
    EntityColumn{"DefaultQOS", "Def QOS", 9, "DefaultQOS", "DefQOS"},
};

std::vector<EntityColumn> ColumnsOf(const std::string& kind) {
  if (kind == "account") return {kAccountColumns.begin(), kAccountColumns.end()};
  if (kind == "cluster") return {kClusterColumns.begin(), kClusterColumns.end()};
  if (kind == "user") return {kUserColumns.begin(), kUserColumns.end()};
  return {kQosColumns.begin(), kQosColumns.end()};
}

// Slurm's default columns per kind.
std::string_view DefaultFormat(const std::string& kind) {
  if (kind == "account") return "Account,Descr,Org";
  if (kind == "user") return "User,DefaultAccount,AdminLevel";
  if (kind == "cluster") {
    return "Cluster,ControlHost,ControlPort,RPC,Share,GrpJobs,GrpTRES,GrpSubmit,MaxJobs,MaxTRES,"
           "MaxSubmit,MaxWall,QOS,DefQOS";
  }
  return "Name,Priority,MaxWall,MaxJobsPerUser,MaxSubmitJobsPerUser,GrpTRES,MaxTRESPerUser,"
         "MaxTRESPerJob";
}

}  // namespace

Result<SacctmgrCommand> ParseSacctmgrCommand(const std::vector<std::string>& words) {
  if (words.size() < 2) return InvalidArgument("No command given");
  SacctmgrCommand c;
  const std::string verb = ToLower(words[0]);
  if (verb == "add" || verb == "create") {
    c.verb = SacctmgrVerb::kAdd;
  } else if (verb == "show" || verb == "list") {
    c.verb = SacctmgrVerb::kShow;
  } else if (verb == "delete" || verb == "remove") {
    c.verb = SacctmgrVerb::kDelete;
  } else if (verb == "modify" || verb == "update") {
    c.verb = SacctmgrVerb::kModify;
  } else {
    return InvalidArgument(fmt::format("Invalid command: {}", words[0]));
  }
  c.kind = Kind(words[1]);
  if (c.kind.empty()) return InvalidArgument(fmt::format("Unknown entity: {}", words[1]));
  bool after_set = false;  // modify: what follows `set` are the changes
  for (size_t i = 2; i < words.size(); ++i) {
    const std::string& w = words[i];
    const std::string lower = ToLower(w);
    if (lower == "set") after_set = true;
    if (lower == "where" || lower == "set") continue;
    if (c.kind == "user" && c.verb == SacctmgrVerb::kShow &&
        (lower == "withassoc" || lower == "withassocs")) {
      c.with_assoc = true;
      continue;
    }
    size_t eq = w.find('=');
    if (eq == std::string::npos) {
      AddNames(c.names, w);
      continue;
    }
    std::string key = w.substr(0, eq);
    std::string value = w.substr(eq + 1);
    const std::string key_lower = ToLower(key);
    const bool account_key = key_lower == "account" || key_lower == "accounts";
    if (c.verb == SacctmgrVerb::kModify && after_set) {
      c.settings.emplace_back(key, value);
    } else if (c.kind == "assoc" && account_key) {
      AddNames(c.accounts, value);
    } else if (c.kind == "assoc" && (key_lower == "user" || key_lower == "users")) {
      AddNames(c.users, value);
    } else if (c.kind == "assoc" && (key_lower == "cluster" || key_lower == "clusters")) {
      AddNames(c.clusters, value);
    } else if (c.kind == "user" && account_key && c.verb != SacctmgrVerb::kAdd) {
      AddNames(c.accounts, value);
    } else if (key_lower == "name" || key_lower == "names" ||
               (c.kind != "account" && key_lower == c.kind) ||
               (c.kind == "account" && (key_lower == "account" || key_lower == "accounts") &&
                c.verb != SacctmgrVerb::kAdd)) {
      AddNames(c.names, value);
    } else if (key_lower == "format") {
      c.format = value;
    } else if (c.verb == SacctmgrVerb::kAdd) {
      c.settings.emplace_back(key, value);
    } else {
      return InvalidArgument(fmt::format("Unknown condition: {}", w));
    }
  }
  if (c.verb == SacctmgrVerb::kModify && c.settings.empty()) {
    return InvalidArgument("You didn't give me anything to set");
  }
  if (c.kind == "cluster" && c.verb == SacctmgrVerb::kModify) {
    return InvalidArgument("Clusters have no settings to modify here: set limits on account root");
  }
  if (c.kind == "assoc" && c.verb != SacctmgrVerb::kShow) {
    return InvalidArgument("Associations change through sacctmgr add|modify|delete user");
  }
  if (c.verb != SacctmgrVerb::kShow && c.names.empty()) {
    return InvalidArgument(fmt::format("You need to name the {} to {}", c.kind, words[0]));
  }
  return c;
}

std::vector<wire::AcctEntity> EntitiesToAdd(const SacctmgrCommand& command) {
  std::vector<wire::AcctEntity> out;
  for (const std::string& name : command.names) {
    wire::AcctEntity e;
    e.set_kind(command.kind);
    e.set_name(name);
    bool has_default = false;
    std::string account;
    for (const auto& [key, value] : command.settings) {
      const std::string k = ToLower(key);
      if (command.kind == "user" && (k == "account" || k == "accounts")) {
        account = std::string(Split(value, ',').front());  // rotadbd makes the associations
      }
      if (k == "defaultaccount") has_default = true;
      (*e.mutable_fields())[key] = value;
    }
    // As Slurm: a user's first account is its default unless one is named.
    if (command.kind == "user" && !has_default && !account.empty()) {
      (*e.mutable_fields())["DefaultAccount"] = account;
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::string> RenderTable(const std::vector<EntityColumn>& table, std::string_view spec,
                                SacctLayout layout, bool no_header,
                                const std::vector<std::map<std::string, std::string>>& rows) {
  std::vector<EntityColumn> chosen;
  std::vector<PlainColumn> columns;
  for (std::string_view item : format::SplitFieldList(spec)) {
    std::string_view name = item.substr(0, item.find('%'));
    auto it = std::find_if(table.begin(), table.end(), [&](const EntityColumn& c) {
      return ToLower(c.name) == ToLower(name) || ToLower(c.header) == ToLower(name) ||
             (!c.alias.empty() && ToLower(c.alias) == ToLower(name));
    });
    if (it == table.end()) return InvalidArgument(fmt::format("Unknown field '{}'", name));
    std::optional<format::NamedWidth> entry = format::ParseNamedWidth(item);
    if (!entry) return InvalidArgument(fmt::format("Unknown field '{}'", item));
    const int width = entry->width ? static_cast<int>(*entry->width) : it->width;
    chosen.push_back(*it);
    columns.push_back({std::string(it->header), width, false});
  }
  std::vector<std::vector<std::string>> cells;
  for (const auto& values : rows) {
    std::vector<std::string> row;
    for (const EntityColumn& c : chosen) {
      auto f = values.find(std::string(c.setting));
      row.push_back(f == values.end() ? "" : f->second);
    }
    cells.push_back(std::move(row));
  }
  return RenderColumns(columns, layout, no_header, cells);
}

Result<std::string> RenderEntities(const std::string& kind, const std::string& format,
                                   SacctLayout layout, bool no_header,
                                   const std::vector<wire::AcctEntity>& entities) {
  std::vector<std::map<std::string, std::string>> rows;
  for (const wire::AcctEntity& e : entities) {
    std::map<std::string, std::string>& row =
        rows.emplace_back(e.fields().begin(), e.fields().end());
    row[""] = e.name();
  }
  const std::string spec = format.empty() ? std::string(DefaultFormat(kind)) : format;
  return RenderTable(ColumnsOf(kind), spec, layout, no_header, rows);
}

wire::ModifyEntitiesRequest ModifyRequest(const SacctmgrCommand& command) {
  wire::ModifyEntitiesRequest req;
  req.set_kind(command.kind);
  for (const std::string& n : command.names) req.add_names(n);
  for (const std::string& a : command.accounts) req.add_accounts(a);
  for (const auto& [key, value] : command.settings) (*req.mutable_set())[key] = value;
  return req;
}

std::string DescribeAdd(const SacctmgrCommand& command) {
  const char* what = command.kind == "account"   ? "Account(s)"
                     : command.kind == "user"    ? "User(s)"
                     : command.kind == "cluster" ? "Cluster(s)"
                                                 : "QOS(s)";
  std::string out = fmt::format(" Adding {}\n", what);
  for (const std::string& n : command.names) out += fmt::format("  {}\n", n);
  if (!command.settings.empty()) {
    out += " Settings\n";
    for (const auto& [key, value] : command.settings) {
      out += fmt::format("  {:<15} = {}\n", key, value);
    }
  }
  return out;
}

}  // namespace rota::cli
