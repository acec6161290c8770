#include "dbd/cluster_entities.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/qos_list.h"
#include "common/strings.h"
#include "dbd/assoc_entities.h"

namespace rota::dbd {
namespace {

// What Slurm 22.05's controllers report as their RPC protocol version.
constexpr char kRpcVersion[] = "9728";
constexpr char kRoot[] = "root";

bool Contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

wire::AcctEntity Entity(const std::string& kind, const std::string& name,
                        std::initializer_list<std::pair<const char*, std::string>> fields) {
  wire::AcctEntity e;
  e.set_kind(kind);
  e.set_name(name);
  for (const auto& [k, v] : fields) (*e.mutable_fields())[k] = v;
  return e;
}

Result<bool> Stored(AccountingStore& store, const std::string& kind, const std::string& name) {
  auto found = store.ListEntities(kind, {name});
  if (!found.ok()) return found.status();
  return !found->empty();
}

}  // namespace

Status PrepareAddClusters(std::vector<wire::AcctEntity>& clusters, const HomeCluster& home,
                          AccountingStore& store) {
  for (wire::AcctEntity& c : clusters) {
    if (c.name().empty()) return InvalidArgument("No name given");
    if (!c.fields().empty()) {
      const auto& [key, value] = *c.fields().begin();
      return InvalidArgument(fmt::format("Unknown option: {}={}", key, value));
    }
    auto stored = Stored(store, "cluster", c.name());
    if (!stored.ok()) return stored.status();
    if (c.name() == home.name || *stored) {
      return Status(StatusCode::kAlreadyExists, fmt::format("Cluster {} already exists", c.name()));
    }
  }
  return Status::Ok();
}

Result<std::vector<wire::AcctEntity>> ListClusters(const std::vector<std::string>& names,
                                                   const HomeCluster& home,
                                                   AccountingStore& store) {
  auto stored = store.ListEntities("cluster", {});
  if (!stored.ok()) return stored.status();
  std::vector<wire::AcctEntity> all;
  if (!home.name.empty()) {
    all.push_back(Entity("cluster", home.name,
                         {{"ControlHost", home.control_host},
                          {"ControlPort", std::to_string(home.control_port)},
                          {"RPC", kRpcVersion}}));
  }
  for (wire::AcctEntity& c : *stored) {
    if (c.name() == home.name) continue;
    // Never registered: Slurm shows no host and zeros.
    (*c.mutable_fields())["ControlPort"] = "0";
    (*c.mutable_fields())["RPC"] = "0";
    all.push_back(std::move(c));
  }
  // The root association's QoS list applies to the whole tree: the home
  // cluster's is the stored root account's; another cluster's is what Slurm
  // gives a new cluster's root.
  auto root = store.ListEntities("account", {kRoot});
  if (!root.ok()) return root.status();
  std::string home_qos;
  if (!root->empty()) {
    auto it = root->front().fields().find("QOS");
    if (it != root->front().fields().end()) {
      std::optional<std::vector<std::string>> list = ResolveQosList({it->second});
      if (list) home_qos = Join(*list, ",");
    }
  }
  std::vector<wire::AcctEntity> out;
  for (wire::AcctEntity& c : all) {
    if (!names.empty() && !Contains(names, c.name())) continue;
    (*c.mutable_fields())["Fairshare"] = "1";
    (*c.mutable_fields())["QOS"] = c.name() == home.name ? home_qos : "normal";
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const wire::AcctEntity& a, const wire::AcctEntity& b) {
    return a.name() < b.name();
  });
  return out;
}

Status CheckDeleteClusters(const std::vector<std::string>& names, const HomeCluster& home,
                           AccountingStore& store) {
  if (!Contains(names, home.name)) return Status::Ok();
  auto accounts = store.ListEntities("account", {});
  if (!accounts.ok()) return accounts.status();
  std::vector<std::string> below_root;
  for (const wire::AcctEntity& a : *accounts) {
    if (a.name() != kRoot) below_root.push_back(a.name());
  }
  std::string what = below_root.empty() ? std::string("the root association")
                                        : fmt::format("the root association and the accounts {}",
                                                      Join(below_root, ","));
  return Status(StatusCode::kFailedPrecondition,
                fmt::format("Cluster {} still has associations ({}): it is the ClusterName of "
                            "slurm.conf, whose associations rotadbd keeps; delete the accounts "
                            "and users instead",
                            home.name, what));
}

Status EnsureRootAssociation(AccountingStore& store) {
  auto accounts = store.ListEntities("account", {});
  if (!accounts.ok()) return accounts.status();
  const bool fresh = accounts->empty();
  std::vector<wire::AcctEntity> added;
  auto normal = Stored(store, "qos", "normal");
  if (!normal.ok()) return normal.status();
  if (!*normal) {
    added.push_back(Entity(
        "qos", "normal",
        {{"Description", "Normal QOS default"}, {"Priority", "0"}, {"UsageFactor", "1.000000"}}));
  }
  const bool has_root = std::any_of(accounts->begin(), accounts->end(),
                                    [](const wire::AcctEntity& a) { return a.name() == kRoot; });
  if (!has_root) {
    wire::AcctEntity root = Entity(
        "account", kRoot, {{"Description", "default root account"}, {"Organization", kRoot}});
    // A store that already has accounts was used without a QoS list on
    // root (every QoS allowed): it keeps that; a new one starts as Slurm's.
    if (fresh) (*root.mutable_fields())["QOS"] = "normal";
    added.push_back(std::move(root));
  }
  auto user = Stored(store, "user", kRoot);
  if (!user.ok()) return user.status();
  if (!*user) {
    added.push_back(
        Entity("user", kRoot, {{"DefaultAccount", kRoot}, {"AdminLevel", "Administrator"}}));
  }
  auto assoc = Stored(store, "assoc", AssocName(kRoot, kRoot));
  if (!assoc.ok()) return assoc.status();
  if (!*assoc) {
    added.push_back(
        Entity("assoc", AssocName(kRoot, kRoot), {{"Account", kRoot}, {"User", kRoot}}));
  }
  if (added.empty()) return Status::Ok();
  return store.AddEntities(added);
}

}  // namespace rota::dbd
