#include "ctld/core/usage_ledger_state.h"

namespace rota::ctld {

wire::UsageLedgerState LedgerToState(const sched::UsageLedger& ledger) {
  const sched::UsageLedger::Contents& c = ledger.contents();
  wire::UsageLedgerState s;
  s.set_updated(c.updated);
  s.set_last_reset(c.last_reset);
  for (const auto& [key, usage] : c.usage) {
    wire::UsageEntry* e = s.add_entries();
    e->set_account(key.first);
    e->set_user(key.second);
    e->set_usage(usage);
    if (auto t = c.tres_usage.find(key); t != c.tres_usage.end()) {
      e->mutable_tres()->insert(t->second.begin(), t->second.end());
    }
  }
  for (const auto& [qos, tres] : c.qos_usage) {
    wire::QosUsageEntry* q = s.add_qos();
    q->set_qos(qos);
    q->mutable_tres()->insert(tres.begin(), tres.end());
  }
  return s;
}

sched::UsageLedger LedgerFromState(const wire::UsageLedgerState& state) {
  using TresUsageMap = sched::UsageLedger::TresUsageMap;
  sched::UsageLedger::Contents c;
  c.updated = state.updated();
  c.last_reset = state.last_reset();
  for (const wire::UsageEntry& e : state.entries()) {
    c.usage[{e.account(), e.user()}] = e.usage();
    if (!e.tres().empty()) {
      c.tres_usage[{e.account(), e.user()}] = TresUsageMap(e.tres().begin(), e.tres().end());
    }
  }
  for (const wire::QosUsageEntry& q : state.qos()) {
    c.qos_usage[q.qos()] = TresUsageMap(q.tres().begin(), q.tres().end());
  }
  return sched::UsageLedger(std::move(c));
}

}  // namespace rota::ctld
