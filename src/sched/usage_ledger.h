#pragma once

// Fair-share usage: what each association (an account, or a user under an
// account) has consumed, in billing x seconds scaled by the QoS UsageFactor,
// decaying with PriorityDecayHalfLife. The same usage is kept per TRES, for
// each association and each QoS, for GrpTRESMins (limit_check.h). Pure: the
// time is a parameter. The controller advances the ledger at each
// PriorityCalcPeriod recomputation and keeps it durable as one state record
// per recomputation (field 22; ctld/core/usage_ledger_state.h converts it).

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/tres.h"

namespace rota::sched {

// 2^(-elapsed / half_life); 1 when half_life is 0 (no decay) or elapsed <= 0.
double DecayFactor(int64_t elapsed_s, int64_t half_life_s);

// A job's billing rate per second: each TRES count times the partition's
// TRESBillingWeights weight, summed, or with PriorityFlags=MAX_TRES the largest
// of the per-node TRES (cpu, mem, node, gres/...) plus the sum of the others
// (licenses). No weights: the job's CPUs.
double JobBilling(const TresCounts& tres, const TresWeights& weights, bool max_tres);

// One job's share of an interval: `rate` (billing x UsageFactor) charged for
// the seconds it ran within [from, to).
struct UsageCharge {
  std::string user;
  std::string qos;  // Empty: counted in no QoS
  // What the job holds (cpu, mem in MB, node, gres/...) and the QoS
  // UsageFactor that scales it, as `rate` is scaled.
  TresCounts tres;
  double usage_factor = 1.0;
  // The job's account first, then its ancestors, root last.
  std::vector<std::string> lineage;
  double rate = 0;
  int64_t start = 0;  // When the job started running
  int64_t end = 0;    // When it ended; 0: still running
};

class UsageLedger {
 public:
  using Key = std::pair<std::string, std::string>;     // (account, user); user empty: account
  using TresUsageMap = std::map<std::string, double>;  // TRES -> TRES-seconds
  // Everything the ledger holds: what is kept durable.
  struct Contents {
    std::map<Key, double> usage;
    std::map<Key, TresUsageMap> tres_usage;
    std::map<std::string, TresUsageMap> qos_usage;
    int64_t updated = 0;
    int64_t last_reset = 0;
  };

  UsageLedger() = default;
  explicit UsageLedger(Contents contents) : c_(std::move(contents)) {}

  // Decays every association's usage from the last update to `now`, then adds
  // each charge (rate x seconds run since the last update) to its user's
  // association and to every account of its lineage. A `now` before the last
  // update changes nothing. `last_reset` > 0 (PriorityUsageResetPeriod's
  // latest boundary at or before `now`, usage_reset.h) clears all usage when
  // the last update came before it: only what ran since counts.
  void Advance(int64_t now, int64_t half_life_s, const std::vector<UsageCharge>& charges,
               int64_t last_reset = 0);
  // The wall clock stepped by `step` seconds: the last update moves with it,
  // so the next Advance charges and decays only the time truly elapsed.
  void ShiftTime(int64_t step) {
    if (c_.updated > 0) c_.updated += step;
  }
  // Clears all usage now (PriorityUsageResetPeriod=NOW).
  void Clear();

  double Usage(const std::string& account, const std::string& user = "") const;
  // Decayed TRES-seconds of `tres` ("cpu", "gres/gpu", "billing", ...) of an
  // association (user empty: the account and everything below it) or a QoS.
  double TresUsage(const std::string& account, const std::string& user,
                   const std::string& tres) const;
  double QosTresUsage(const std::string& qos, const std::string& tres) const;
  const std::map<Key, double>& entries() const { return c_.usage; }
  int64_t updated() const { return c_.updated; }
  const Contents& contents() const { return c_; }

 private:
  Contents c_;
};

}  // namespace rota::sched
