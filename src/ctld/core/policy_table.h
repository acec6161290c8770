#pragma once

// The accounting policy the controller enforces (AccountingStorageEnforce),
// built from what rotadbd keeps (sacctmgr): the table of sched/policy_table.h
// with the records it came from, which AccountingStorageEnforce's checks ask
// for, and a job's QoS. Immutable once built; the state loop swaps in a new
// table when rotadbd's changes.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/tres.h"
#include "policy.pb.h"
#include "rota.pb.h"
#include "sched/policy_table.h"

namespace rota::ctld {

// The QoS a job runs under: the one it names, else Slurm's "normal".
const std::string& JobQos(const wire::JobSpec& spec);

// Which checks AccountingStorageEnforce asks for. `limits`, `qos` and `safe`
// imply `associations`, as in Slurm; `all` is everything but nojobs/nosteps.
struct Enforcement {
  bool associations = false;
  bool limits = false;
  bool qos = false;
  bool safe = false;

  static Enforcement FromSettings(const std::vector<std::string>& accounting_storage_enforce);
  bool any() const { return associations; }
};

// The policy's own types live in sched/ (pure policy); the controller names
// them as its own.
using sched::AccountPolicy;
using sched::AdminLevel;
using sched::AssociationPolicy;
using sched::PolicyLimits;
using sched::QosPolicy;
using sched::UserPolicy;

// The table, with the rotadbd records it was built from (what the controller
// keeps durable).
class PolicyTable : public sched::PolicyTable {
 public:
  // Builds the table from rotadbd's entities. Values rotadbd checked parse;
  // one that does not (an older or newer rotadbd) is ignored, not fatal.
  static std::shared_ptr<const PolicyTable> FromState(wire::PolicyState state);
  // What the table was built from.
  const wire::PolicyState& state() const { return state_; }

 private:
  PolicyTable(Entities entities, wire::PolicyState state)
      : sched::PolicyTable(std::move(entities)), state_(std::move(state)) {}

  wire::PolicyState state_;
};

}  // namespace rota::ctld
