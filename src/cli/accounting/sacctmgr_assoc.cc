#include "cli/accounting/sacctmgr_assoc.h"

#include <algorithm>
#include <array>
#include <map>

#include "common/qos_list.h"
#include "common/strings.h"

namespace rota::cli {
namespace {

constexpr std::array kAssocColumns = {
    EntityColumn{"Cluster", "Cluster", 10, "Cluster"},
    EntityColumn{"Account", "Account", 10, "Account"},
    EntityColumn{"User", "User", 10, "User"},
    EntityColumn{"Partition", "Partition", 10, "Partition"},
    EntityColumn{"Fairshare", "Share", 9, "Fairshare"},
    EntityColumn{"Priority", "Priority", 10, "Priority"},
    EntityColumn{"GrpJobs", "GrpJobs", 7, "GrpJobs"},
    EntityColumn{"GrpTRES", "GrpTRES", 13, "GrpTRES"},
    EntityColumn{"GrpSubmitJobs", "GrpSubmit", 9, "GrpSubmitJobs"},
    EntityColumn{"GrpTRESMins", "GrpTRESMins", 13, "GrpTRESMins"},
    EntityColumn{"GrpTRESRunMins", "GrpTRESRunMins", 20, "GrpTRESRunMins"},
    EntityColumn{"MaxJobs", "MaxJobs", 7, "MaxJobs"},
    EntityColumn{"MaxSubmitJobs", "MaxSubmit", 9, "MaxSubmitJobs"},
    EntityColumn{"MaxWall", "MaxWall", 11, "MaxWall"},
    EntityColumn{"QOS", "QOS", 20, "QOS"},
    EntityColumn{"DefaultQOS", "Def QOS", 9, "DefaultQOS", "DefQOS"},
    EntityColumn{"DefaultAccount", "Def Acct", 10, "DefaultAccount"},
    EntityColumn{"AdminLevel", "Admin", 9, "AdminLevel"},
};

constexpr char kAssocFormat[] =
    "Cluster,Account,User,Partition,Share,GrpJobs,GrpTRES,GrpSubmit,GrpTRESMins,MaxJobs,"
    "MaxSubmit,MaxWall,QOS,DefQOS";
constexpr char kWithAssocFormat[] =
    "User,DefaultAccount,AdminLevel,Cluster,Account,Partition,Share,MaxJobs,MaxSubmit,MaxWall,"
    "QOS,DefQOS";

using Row = std::map<std::string, std::string>;

std::string FieldOf(const wire::AcctEntity& e, const std::string& key) {
  auto it = e.fields().find(key);
  return it == e.fields().end() ? "" : it->second;
}

bool Wanted(const std::vector<std::string>& filter, const std::string& value) {
  return filter.empty() || std::find(filter.begin(), filter.end(), value) != filter.end();
}

// The association tree as sacctmgr prints it.
class Tree {
 public:
  explicit Tree(const AssocData& data) : data_(data) {
    for (const wire::AcctEntity& a : data.accounts) accounts_[a.name()] = &a;
    for (const wire::AcctEntity& a : data.accounts) {
      if (a.name() == "root") continue;  // The top: nobody's child
      std::string parent = FieldOf(a, "Parent");
      children_[parent.empty() ? "root" : parent].push_back(a.name());
    }
    for (const wire::AcctEntity& a : data.assocs) users_of_[FieldOf(a, "Account")].push_back(&a);
  }

  // `visit(account entity or nullptr for root, account name, user assoc or nullptr)`.
  template <typename Visit>
  void Walk(const std::string& account, const Visit& visit, int depth = 0) const {
    if (depth > 64) return;  // rotadbd refuses cycles; stop anyway
    auto acct = accounts_.find(account);
    const wire::AcctEntity* entity = acct == accounts_.end() ? nullptr : acct->second;
    visit(entity, account, nullptr);
    if (auto it = users_of_.find(account); it != users_of_.end()) {
      std::vector<const wire::AcctEntity*> users = it->second;
      std::sort(users.begin(), users.end(), [](const auto* a, const auto* b) {
        return FieldOf(*a, "User") < FieldOf(*b, "User");
      });
      for (const wire::AcctEntity* u : users) visit(entity, account, u);
    }
    if (auto it = children_.find(account); it != children_.end()) {
      std::vector<std::string> names = it->second;
      std::sort(names.begin(), names.end());
      for (const std::string& child : names) Walk(child, visit, depth + 1);
    }
  }

  // The QOS and DefaultQOS that apply to `own` (an association or account
  // entity, or nullptr) under `account`.
  std::pair<std::string, std::string> Qos(const wire::AcctEntity* own,
                                          const std::string& account) const {
    std::vector<std::string> chain;
    std::string def;
    if (own != nullptr) {
      chain.push_back(FieldOf(*own, "QOS"));
      def = FieldOf(*own, "DefaultQOS");
    }
    std::string at = account;
    for (int depth = 0; !at.empty() && depth < 64; ++depth) {
      auto it = accounts_.find(at);
      if (it == accounts_.end()) break;
      if (it->second != own) {
        chain.push_back(FieldOf(*it->second, "QOS"));
        if (def.empty()) def = FieldOf(*it->second, "DefaultQOS");
      }
      at = FieldOf(*it->second, "Parent");
    }
    std::optional<std::vector<std::string>> list = ResolveQosList(chain);
    return {list ? Join(*list, ",") : "", def};
  }

  const std::vector<wire::AcctEntity>& users() const { return data_.users; }

 private:
  const AssocData& data_;
  std::map<std::string, const wire::AcctEntity*> accounts_;
  std::map<std::string, std::vector<std::string>> children_;
  std::map<std::string, std::vector<const wire::AcctEntity*>> users_of_;
};

Row RowOf(const Tree& tree, const std::string& cluster, const wire::AcctEntity* account_entity,
          const std::string& account, const wire::AcctEntity* assoc) {
  const wire::AcctEntity* own = assoc != nullptr ? assoc : account_entity;
  Row row;
  if (own != nullptr) row.insert(own->fields().begin(), own->fields().end());
  row.erase("Parent");
  row["Cluster"] = cluster;
  row["Account"] = account;
  row["User"] = assoc != nullptr ? FieldOf(*assoc, "User") : "";
  // One character assigned, not a literal: GCC 12 mistakes the inlined copy of
  // "1" for an overlapping memcpy (a -Wrestrict false positive) at -O2.
  if (std::string& fairshare = row["Fairshare"]; fairshare.empty()) fairshare.assign(1, '1');
  auto [qos, def] = tree.Qos(own, account);
  row["QOS"] = qos;
  row["DefaultQOS"] = def;
  return row;
}

}  // namespace

Result<std::string> RenderAssociations(const SacctmgrCommand& command, const AssocData& data,
                                       SacctLayout layout, bool no_header) {
  Tree tree(data);
  std::vector<Row> rows;
  tree.Walk("root", [&](const wire::AcctEntity* entity, const std::string& account,
                        const wire::AcctEntity* assoc) {
    // One tree, ClusterName's: another cluster has no associations.
    if (!Wanted(command.clusters, data.cluster)) return;
    if (!Wanted(command.accounts, account)) return;
    // A user filter shows only user associations.
    if (!command.users.empty() &&
        (assoc == nullptr || !Wanted(command.users, FieldOf(*assoc, "User")))) {
      return;
    }
    rows.push_back(RowOf(tree, data.cluster, entity, account, assoc));
  });
  const std::string spec = command.format.empty() ? kAssocFormat : command.format;
  return RenderTable({kAssocColumns.begin(), kAssocColumns.end()}, spec, layout, no_header, rows);
}

Result<std::string> RenderUsersWithAssocs(const SacctmgrCommand& command, const AssocData& data,
                                          SacctLayout layout, bool no_header) {
  Tree tree(data);
  std::map<std::string, std::vector<Row>> by_user;
  tree.Walk("root", [&](const wire::AcctEntity* entity, const std::string& account,
                        const wire::AcctEntity* assoc) {
    if (assoc == nullptr || !Wanted(command.accounts, account)) return;
    by_user[FieldOf(*assoc, "User")].push_back(RowOf(tree, data.cluster, entity, account, assoc));
  });
  std::vector<Row> rows;
  for (const wire::AcctEntity& u : data.users) {
    if (!Wanted(command.names, u.name())) continue;
    for (Row& r : by_user[u.name()]) {
      r["DefaultAccount"] = FieldOf(u, "DefaultAccount");
      r["AdminLevel"] = FieldOf(u, "AdminLevel");
      rows.push_back(std::move(r));
    }
  }
  const std::string spec = command.format.empty() ? kWithAssocFormat : command.format;
  return RenderTable({kAssocColumns.begin(), kAssocColumns.end()}, spec, layout, no_header, rows);
}

}  // namespace rota::cli
