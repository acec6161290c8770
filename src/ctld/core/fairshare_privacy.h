#pragma once

// slurm.conf PrivateData for sshare: which rows of the fair-share tree an
// ordinary user may see. `usage` leaves them their own user rows only (the
// account rows add up other users' usage); `accounts` leaves only the rows of
// accounts they have an association with. Root, SlurmUser and AdminLevel
// Operator or Administrator see the whole tree.

#include <string>
#include <vector>

#include "ctld/core/caller.h"
#include "ctld/core/policy_table.h"
#include "fairshare.pb.h"

namespace rota::ctld {

// Drops from `shares` the rows `caller` may not see. `private_data`: the key's
// values (lower case); `policy`: the accounting table, null without
// accounting (then no account is known as the caller's, and `accounts` hides
// nothing: there are no account definitions to hide).
void HidePrivateShares(const std::vector<std::string>& private_data, const Caller& caller,
                       const PolicyTable* policy, wire::FairshareResponse& shares);

}  // namespace rota::ctld
