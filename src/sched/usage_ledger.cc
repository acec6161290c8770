#include "sched/usage_ledger.h"

#include <algorithm>
#include <cmath>

namespace rota::sched {
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
  if (c_.updated != 0 && now < c_.updated) return;
  if (last_reset > 0 && last_reset <= now && c_.updated != 0 && c_.updated < last_reset) {
    // Charges below then start at the boundary.
    Clear();
    c_.updated = last_reset;
    c_.last_reset = last_reset;
  }
  if (c_.updated != 0) {
    double decay = DecayFactor(now - c_.updated, half_life_s);
    if (decay != 1.0) {
      for (auto& [key, usage] : c_.usage) usage *= decay;
      for (auto& [key, tres] : c_.tres_usage) {
        for (auto& [name, usage] : tres) usage *= decay;
      }
      for (auto& [qos, tres] : c_.qos_usage) {
        for (auto& [name, usage] : tres) usage *= decay;
      }
    }
  }
  for (const UsageCharge& c : charges) {
    int64_t from = std::max(c.start, c_.updated);
    int64_t to = c.end > 0 ? std::min(c.end, now) : now;
    if (c.start <= 0 || to <= from || c.rate <= 0 || c.lineage.empty()) continue;
    const double seconds = static_cast<double>(to - from);
    double add = c.rate * seconds;
    c_.usage[{c.lineage.front(), c.user}] += add;
    for (const std::string& account : c.lineage) c_.usage[{account, ""}] += add;
    // Per TRES: what the job holds, and billing as fair-share counts it.
    auto charge = [&](TresUsageMap& into) {
      for (const auto& [key, count] : c.tres.counts()) {
        if (key == "billing") continue;  // Billing is the rate's, below
        into[key] += static_cast<double>(count) * c.usage_factor * seconds;
      }
      into["billing"] += add;
    };
    charge(c_.tres_usage[{c.lineage.front(), c.user}]);
    for (const std::string& account : c.lineage) charge(c_.tres_usage[{account, ""}]);
    if (!c.qos.empty()) charge(c_.qos_usage[c.qos]);
  }
  c_.updated = now;
}

void UsageLedger::Clear() {
  c_.usage.clear();
  c_.tres_usage.clear();
  c_.qos_usage.clear();
}

double UsageLedger::Usage(const std::string& account, const std::string& user) const {
  auto it = c_.usage.find({account, user});
  return it == c_.usage.end() ? 0.0 : it->second;
}

double UsageLedger::TresUsage(const std::string& account, const std::string& user,
                              const std::string& tres) const {
  auto it = c_.tres_usage.find({account, user});
  if (it == c_.tres_usage.end()) return 0.0;
  auto t = it->second.find(tres);
  return t == it->second.end() ? 0.0 : t->second;
}

double UsageLedger::QosTresUsage(const std::string& qos, const std::string& tres) const {
  auto it = c_.qos_usage.find(qos);
  if (it == c_.qos_usage.end()) return 0.0;
  auto t = it->second.find(tres);
  return t == it->second.end() ? 0.0 : t->second;
}

}  // namespace rota::sched
