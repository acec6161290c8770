#pragma once

// The fair-share usage ledger (sched/usage_ledger.h) as the controller keeps
// it durable: one wire::UsageLedgerState per PriorityCalcPeriod
// recomputation and in each snapshot.

#include "fairshare.pb.h"
#include "sched/usage_ledger.h"

namespace rota::ctld {

wire::UsageLedgerState LedgerToState(const sched::UsageLedger& ledger);
sched::UsageLedger LedgerFromState(const wire::UsageLedgerState& state);

}  // namespace rota::ctld
