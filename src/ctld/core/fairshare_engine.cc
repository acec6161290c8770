#include "ctld/core/fairshare_engine.h"

#include <algorithm>
#include <unordered_set>

#include "common/strings.h"
#include "ctld/core/usage_ledger_state.h"
#include "ctld/core/usage_reset.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

constexpr char kRootAccount[] = "root";

bool HasFlag(const conf::ClusterConfig& config, std::string_view flag) {
  for (const std::string& f : config.settings.priority_flags) {
    if (EqualsIgnoreCase(f, flag)) return true;
  }
  return false;
}

bool Listed(const auto& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

std::string FairshareEngine::AccountOf(const wire::JobSpec& spec, const PolicyTable* policy) {
  if (!spec.account().empty()) return spec.account();
  if (policy != nullptr) {
    const UserPolicy* user = policy->FindUser(spec.user());
    if (user != nullptr && !user->default_account.empty()) return user->default_account;
  }
  return kRootAccount;
}

void FairshareEngine::Update(const Inputs& in, int64_t now, Effects& effects) {
  const conf::ClusterConfig& config = in.config;
  const PolicyTable* policy = in.policy;
  const bool max_tres = HasFlag(config, "MAX_TRES");
  std::vector<sched::UsageCharge> charges;
  const int64_t since = ledger_.updated();
  for (const auto& [id, job] : in.jobs) {
    wire::JobState state = job->state();
    if (job->start_time() <= 0) continue;
    const bool running = state == wire::JOB_STATE_RUNNING;
    // A job that ended since the last update is charged up to its end.
    const bool ended = !running && state != wire::JOB_STATE_PENDING &&
                       state != wire::JOB_STATE_SUSPENDED && job->end_time() > since;
    if (!running && !ended) continue;
    sched::UsageCharge c;
    c.user = job->spec().user();
    c.start = job->start_time();
    c.end = running ? 0 : job->end_time();
    const std::string account = AccountOf(job->spec(), policy);
    if (policy != nullptr) {
      for (const AccountPolicy* a : policy->Lineage(account)) c.lineage.push_back(a->name);
    }
    if (c.lineage.empty()) c.lineage.push_back(account);
    if (c.lineage.back() != kRootAccount) c.lineage.push_back(kRootAccount);
    Result<TresCounts> tres = TresCounts::Parse(job->alloc_tres());
    TresCounts counts = tres.ok() ? *tres : TresCounts{};
    if (!counts.Has("cpu")) counts.Set("cpu", std::max<uint32_t>(job->alloc_cpus(), 1));
    static const TresWeights kNoWeights;
    const conf::PartitionConfig* part = config.FindPartition(job->spec().partition());
    c.rate =
        sched::JobBilling(counts, part != nullptr ? part->billing_weights : kNoWeights, max_tres);
    c.qos = JobQos(job->spec());
    if (policy != nullptr) {
      const QosPolicy* qos = policy->FindQos(c.qos);
      if (qos != nullptr) {
        c.rate *= qos->usage_factor;
        c.usage_factor = qos->usage_factor;
      }
    }
    c.tres = std::move(counts);
    charges.push_back(std::move(c));
  }
  const bool had_usage = !ledger_.entries().empty();
  ledger_.Advance(now, config.settings.priority_decay_half_life, charges,
                  LastUsageReset(config.settings.priority_usage_reset_period, now));
  tree_ = std::make_shared<const sched::ShareTree>(BuildTree(in));
  // One record per recomputation (PriorityCalcPeriod), none while no usage.
  if (had_usage || cleared_unsaved_ || !ledger_.entries().empty()) {
    cleared_unsaved_ = false;
    *effects.records.emplace_back().mutable_fairshare_usage() = LedgerToState(ledger_);
  }
}

std::optional<double> FairshareEngine::Factor(const std::string& account,
                                              const std::string& user) const {
  if (!tree_) return std::nullopt;
  return tree_->Factor(account, user);
}

void FairshareEngine::Restore(const wire::UsageLedgerState& state) {
  ledger_ = LedgerFromState(state);
}

void FairshareEngine::ClearNow() {
  if (!ledger_.entries().empty()) cleared_unsaved_ = true;
  ledger_.Clear();
}

sched::ShareTree FairshareEngine::BuildTree(const Inputs& in) const {
  std::vector<sched::ShareNode> nodes;
  std::unordered_set<std::string> known;
  auto key = [](const std::string& account, const std::string& user) {
    return account + '\0' + user;
  };
  auto add = [&](const std::string& account, const std::string& user, const std::string& parent,
                 uint32_t shares, bool shares_parent) {
    if (!known.insert(key(account, user)).second) return;
    sched::ShareNode n;
    n.account = account;
    n.user = user;
    n.parent = parent;
    n.shares = shares;
    n.shares_parent = shares_parent;
    n.raw_usage = ledger_.Usage(account, user);
    nodes.push_back(std::move(n));
  };
  if (in.policy != nullptr) {
    for (const auto& [name, a] : in.policy->accounts()) {
      add(name, "", a.parent, a.shares, a.shares_parent);
    }
    // Each association of each user: a user in two accounts is two leaves.
    for (const auto& [key, a] : in.policy->associations()) {
      add(a.account, a.user, "", a.shares, a.shares_parent);
    }
  }
  // Without accounting (or beyond it): each user under the account its jobs
  // name, with one share.
  for (const auto& [k, usage] : ledger_.entries()) add(k.first, k.second, "", 1, false);
  for (const auto& [id, job] : in.jobs) {
    if (model::IsFinished(job->state())) continue;
    const std::string account = AccountOf(job->spec(), in.policy);
    add(account, "", "", 1, false);
    add(account, job->spec().user(), "", 1, false);
  }
  return sched::ShareTree::Compute(std::move(nodes), !HasFlag(in.config, "NO_FAIR_TREE"));
}

wire::FairshareResponse FairshareEngine::Describe(const Inputs& in,
                                                  const wire::FairshareRequest& request,
                                                  const std::string& caller_user) const {
  wire::FairshareResponse out;
  out.set_priority_type(in.config.settings.priority_type);
  out.set_fair_tree(!HasFlag(in.config, "NO_FAIR_TREE"));
  const sched::ShareTree tree = BuildTree(in);
  for (const sched::ShareRow& r : tree.rows()) {
    if (!request.accounts().empty() && !Listed(request.accounts(), r.account)) continue;
    if (!r.user.empty()) {
      bool shown = request.all_users() || Listed(request.users(), r.user) ||
                   (request.users().empty() && r.user == caller_user);
      if (!shown) continue;
    }
    wire::FairshareRow* row = out.add_rows();
    row->set_account(r.account);
    row->set_user(r.user);
    row->set_depth(r.depth);
    row->set_raw_shares(r.raw_shares);
    row->set_norm_shares(r.norm_shares);
    row->set_raw_usage(r.raw_usage);
    row->set_norm_usage(r.norm_usage);
    row->set_effective_usage(r.effective_usage);
    row->set_fairshare(r.fairshare);
    row->set_level_fs(r.level_fs);
  }
  return out;
}

}  // namespace rota::ctld
