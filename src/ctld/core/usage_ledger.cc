#include "ctld/core/usage_ledger.h"

#include <algorithm>
#include <cmath>

namespace rota::ctld {
namespace {

// TRES that exist once per cluster rather than on nodes: MAX_TRES adds them.
bool GlobalTres(const std::string& key) {
  return key.starts_with("license/") || key.starts_with("bb/") || key.starts_with("fs/");
}

}  // namespace

double DecayFactor(int64_t elapsed_s, int64_t half_life_s) {
  if (half_life_s <= 0 || elapsed_s <= 0) return 1.0;
  return std::exp2(-static_cast<double>(elapsed_s) / static_cast<double>(half_life_s));
}

double JobBilling(const TresCounts& tres, const TresWeights& weights, bool max_tres) {
  if (weights.empty()) return static_cast<double>(tres.Get("cpu"));
  double sum = 0, node_max = 0, global = 0;
  for (const auto& [key, weight] : weights) {
    if (key == "billing") continue;
    double value = weight * static_cast<double>(tres.Get(key));
    sum += value;
    if (GlobalTres(key)) {
      global += value;
    } else {
      node_max = std::max(node_max, value);
    }
  }
  return max_tres ? node_max + global : sum;
}

void UsageLedger::Advance(int64_t now, int64_t half_life_s, const std::vector<UsageCharge>& charges,
                          int64_t last_reset) {
  if (updated_ != 0 && now < updated_) return;
  if (last_reset > 0 && last_reset <= now && updated_ != 0 && updated_ < last_reset) {
    // Charges below then start at the boundary.
    Clear();
    updated_ = last_reset;
    last_reset_ = last_reset;
  }
  if (updated_ != 0) {
    double decay = DecayFactor(now - updated_, half_life_s);
    if (decay != 1.0) {
      for (auto& [key, usage] : usage_) usage *= decay;
      for (auto& [key, tres] : tres_usage_) {
        for (auto& [name, usage] : tres) usage *= decay;
      }
      for (auto& [qos, tres] : qos_usage_) {
        for (auto& [name, usage] : tres) usage *= decay;
      }
    }
  }
  for (const UsageCharge& c : charges) {
    int64_t from = std::max(c.start, updated_);
    int64_t to = c.end > 0 ? std::min(c.end, now) : now;
    if (c.start <= 0 || to <= from || c.rate <= 0 || c.lineage.empty()) continue;
    const double seconds = static_cast<double>(to - from);
    double add = c.rate * seconds;
    usage_[{c.lineage.front(), c.user}] += add;
    for (const std::string& account : c.lineage) usage_[{account, ""}] += add;
    // Per TRES: what the job holds, and billing as fair-share counts it.
    auto charge = [&](TresUsageMap& into) {
      for (const auto& [key, count] : c.tres.counts()) {
        if (key == "billing") continue;  // Billing is the rate's, below
        into[key] += static_cast<double>(count) * c.usage_factor * seconds;
      }
      into["billing"] += add;
    };
    charge(tres_usage_[{c.lineage.front(), c.user}]);
    for (const std::string& account : c.lineage) charge(tres_usage_[{account, ""}]);
    if (!c.qos.empty()) charge(qos_usage_[c.qos]);
  }
  updated_ = now;
}

void UsageLedger::Clear() {
  usage_.clear();
  tres_usage_.clear();
  qos_usage_.clear();
}

double UsageLedger::Usage(const std::string& account, const std::string& user) const {
  auto it = usage_.find({account, user});
  return it == usage_.end() ? 0.0 : it->second;
}

double UsageLedger::TresUsage(const std::string& account, const std::string& user,
                              const std::string& tres) const {
  auto it = tres_usage_.find({account, user});
  if (it == tres_usage_.end()) return 0.0;
  auto t = it->second.find(tres);
  return t == it->second.end() ? 0.0 : t->second;
}

double UsageLedger::QosTresUsage(const std::string& qos, const std::string& tres) const {
  auto it = qos_usage_.find(qos);
  if (it == qos_usage_.end()) return 0.0;
  auto t = it->second.find(tres);
  return t == it->second.end() ? 0.0 : t->second;
}

wire::UsageLedgerState UsageLedger::ToState() const {
  wire::UsageLedgerState s;
  s.set_updated(updated_);
  s.set_last_reset(last_reset_);
  for (const auto& [key, usage] : usage_) {
    wire::UsageEntry* e = s.add_entries();
    e->set_account(key.first);
    e->set_user(key.second);
    e->set_usage(usage);
    if (auto t = tres_usage_.find(key); t != tres_usage_.end()) {
      e->mutable_tres()->insert(t->second.begin(), t->second.end());
    }
  }
  for (const auto& [qos, tres] : qos_usage_) {
    wire::QosUsageEntry* q = s.add_qos();
    q->set_qos(qos);
    q->mutable_tres()->insert(tres.begin(), tres.end());
  }
  return s;
}

UsageLedger UsageLedger::FromState(const wire::UsageLedgerState& state) {
  UsageLedger l;
  l.updated_ = state.updated();
  l.last_reset_ = state.last_reset();
  for (const wire::UsageEntry& e : state.entries()) {
    l.usage_[{e.account(), e.user()}] = e.usage();
    if (!e.tres().empty()) {
      l.tres_usage_[{e.account(), e.user()}] = TresUsageMap(e.tres().begin(), e.tres().end());
    }
  }
  for (const wire::QosUsageEntry& q : state.qos()) {
    l.qos_usage_[q.qos()] = TresUsageMap(q.tres().begin(), q.tres().end());
  }
  return l;
}

}  // namespace rota::ctld
