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
                          int64_t reset_period_s) {
  if (updated_ != 0 && now < updated_) return;
  if (reset_period_s > 0) {
    // Cleared when a period boundary (a multiple of it since the epoch) lies
    // between the last update and now: only what ran since counts.
    int64_t boundary = now - now % reset_period_s;
    if (updated_ != 0 && updated_ < boundary) {
      usage_.clear();
      updated_ = boundary;
      last_reset_ = boundary;
    }
  }
  if (updated_ != 0) {
    double decay = DecayFactor(now - updated_, half_life_s);
    if (decay != 1.0) {
      for (auto& [key, usage] : usage_) usage *= decay;
    }
  }
  for (const UsageCharge& c : charges) {
    int64_t from = std::max(c.start, updated_);
    int64_t to = c.end > 0 ? std::min(c.end, now) : now;
    if (c.start <= 0 || to <= from || c.rate <= 0 || c.lineage.empty()) continue;
    double add = c.rate * static_cast<double>(to - from);
    usage_[{c.lineage.front(), c.user}] += add;
    for (const std::string& account : c.lineage) usage_[{account, ""}] += add;
  }
  updated_ = now;
}

double UsageLedger::Usage(const std::string& account, const std::string& user) const {
  auto it = usage_.find({account, user});
  return it == usage_.end() ? 0.0 : it->second;
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
  }
  return s;
}

UsageLedger UsageLedger::FromState(const wire::UsageLedgerState& state) {
  UsageLedger l;
  l.updated_ = state.updated();
  l.last_reset_ = state.last_reset();
  for (const wire::UsageEntry& e : state.entries()) l.usage_[{e.account(), e.user()}] = e.usage();
  return l;
}

}  // namespace rota::ctld
