#include "ctld/core/fairshare_privacy.h"

#include <algorithm>
#include <set>

namespace rota::ctld {

namespace {

bool Has(const std::vector<std::string>& values, const char* value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

}  // namespace

void HidePrivateShares(const std::vector<std::string>& private_data, const Caller& caller,
                       const PolicyTable* policy, wire::FairshareResponse& shares) {
  const bool usage = Has(private_data, "usage");
  const bool accounts = Has(private_data, "accounts") && policy != nullptr;
  if (!usage && !accounts) return;
  if (caller.privileged) return;
  const UserPolicy* user = policy != nullptr ? policy->FindUser(caller.user) : nullptr;
  if (user != nullptr && user->admin_level != AdminLevel::kNone) return;
  std::set<std::string> own_accounts;
  if (user != nullptr) own_accounts.insert(user->accounts.begin(), user->accounts.end());
  auto* rows = shares.mutable_rows();
  // Names come from the caller's uid (the server resolves it), never from the
  // request, so asking for another user's rows by name shows nothing.
  rows->erase(std::remove_if(rows->begin(), rows->end(),
                             [&](const wire::FairshareRow& row) {
                               if (usage && row.user() != caller.user) return true;
                               return accounts && !own_accounts.contains(row.account());
                             }),
              rows->end());
}

}  // namespace rota::ctld
