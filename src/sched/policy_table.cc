#include "sched/policy_table.h"

#include <algorithm>

#include "common/qos_list.h"

namespace rota::sched {
namespace {

bool LimitsStart(const PolicyLimits& l) {
  return l.max_jobs || l.grp_jobs || l.max_wall_s || !l.grp_tres.empty() ||
         !l.max_tres_per_user.empty() || !l.max_tres_per_job.empty() || !l.grp_tres_mins.empty() ||
         !l.grp_tres_run_mins.empty();
}

}  // namespace

PolicyTable::PolicyTable(Entities entities)
    : accounts_(std::move(entities.accounts)),
      users_(std::move(entities.users)),
      associations_(std::move(entities.associations)),
      qos_(std::move(entities.qos)) {
  // Associations of users that are gone (or not yet listed) do not count.
  for (auto it = associations_.begin(); it != associations_.end();) {
    auto user = users_.find(it->first.second);
    if (user == users_.end()) {
      it = associations_.erase(it);
      continue;
    }
    user->second.accounts.push_back(it->first.first);  // In account order
    ++it;
  }
  auto note = [&](const PolicyLimits& l) {
    has_start_limits_ |= LimitsStart(l);
    has_tres_mins_limits_ |= !l.grp_tres_mins.empty();
  };
  for (const auto& [name, a] : accounts_) {
    note(a.limits);
    max_assoc_priority_ = std::max(max_assoc_priority_, a.priority.value_or(0));
  }
  for (const auto& [key, a] : associations_) {
    note(a.limits);
    max_assoc_priority_ = std::max(max_assoc_priority_, a.priority.value_or(0));
  }
  for (const auto& [name, q] : qos_) note(q.limits);
  // rotadbd always has the root account (the default parent), stored or not.
  if (accounts_.count("root") == 0) accounts_["root"].name = "root";
}

const AccountPolicy* PolicyTable::FindAccount(const std::string& name) const {
  auto it = accounts_.find(name);
  return it == accounts_.end() ? nullptr : &it->second;
}

const UserPolicy* PolicyTable::FindUser(const std::string& name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : &it->second;
}

const QosPolicy* PolicyTable::FindQos(const std::string& name) const {
  auto it = qos_.find(name);
  return it == qos_.end() ? nullptr : &it->second;
}

std::vector<const AccountPolicy*> PolicyTable::Lineage(const std::string& account) const {
  // Called for every pending job in every pass: a short vector, no set (a
  // cycle shows as an account met again).
  std::vector<const AccountPolicy*> out;
  for (const AccountPolicy* a = FindAccount(account);
       a != nullptr && std::find(out.begin(), out.end(), a) == out.end();
       a = a->parent.empty() ? nullptr : FindAccount(a->parent)) {
    out.push_back(a);
  }
  return out;
}

uint32_t PolicyTable::MaxQosPriority() const {
  uint32_t max = 0;
  for (const auto& [name, qos] : qos_) max = std::max(max, qos.priority);
  return max;
}

uint32_t PolicyTable::AssocPriority(const std::string& user, const std::string& account) const {
  const AssociationPolicy* assoc = FindAssociation(user, account);
  if (assoc != nullptr && assoc->priority) return *assoc->priority;
  for (const AccountPolicy* a : Lineage(account)) {
    if (a->priority) return *a->priority;
  }
  return 0;
}

bool PolicyTable::HasAssociation(const std::string& user, const std::string& account) const {
  return !account.empty() && FindAssociation(user, account) != nullptr &&
         FindAccount(account) != nullptr;
}

const AssociationPolicy* PolicyTable::FindAssociation(const std::string& user,
                                                      const std::string& account) const {
  auto it = associations_.find({account, user});
  return it == associations_.end() ? nullptr : &it->second;
}

std::optional<std::vector<std::string>> PolicyTable::AllowedQos(const std::string& user,
                                                                const std::string& account) const {
  std::vector<std::string> chain;
  if (const AssociationPolicy* a = FindAssociation(user, account)) chain.push_back(a->qos);
  for (const AccountPolicy* a : Lineage(account)) chain.push_back(a->qos);
  return ResolveQosList(chain);
}

std::string PolicyTable::DefaultQos(const std::string& user, const std::string& account) const {
  const AssociationPolicy* assoc = FindAssociation(user, account);
  if (assoc != nullptr && !assoc->default_qos.empty()) return assoc->default_qos;
  for (const AccountPolicy* a : Lineage(account)) {
    if (!a->default_qos.empty()) return a->default_qos;
  }
  std::optional<std::vector<std::string>> allowed = AllowedQos(user, account);
  if (allowed && allowed->size() == 1) return allowed->front();
  return "normal";
}

}  // namespace rota::sched
