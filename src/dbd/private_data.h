#pragma once

// PrivateData for rotadbd: what an ordinary user may see of other users
// through sacct, sacctmgr and sreport. Slurm reads it from slurmdbd.conf;
// where that file does not set it, rotadbd takes slurm.conf's, so one key
// hides the same things from squeue and from sacct. Root, SlurmUser and
// users with AdminLevel Operator or Administrator see everything.

#include <cstdint>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "dbd/accounting_store.h"

namespace rota::dbd {

struct PrivateData {
  bool jobs = false;   // sacct: only the caller's own jobs
  bool users = false;  // sacctmgr list users: only the caller
  // sacctmgr list accounts and associations: only the accounts the caller
  // has an association with. (Slurm shows the accounts a user coordinates;
  // Rota has no coordinators, so membership stands in for it.)
  bool accounts = false;
  // sreport's user and account reports: only the caller's own usage. (sshare
  // asks rotactld, which applies slurm.conf's: ctld/core/fairshare_privacy.h.)
  bool usage = false;
  // Whether an ordinary user gets only their own job records: for sacct
  // (jobs), and for sreport's usage reports (jobs or usage).
  bool OwnJobsOnly(bool usage_report) const { return jobs || (usage_report && usage); }
  // From the key's values (lower case, as the parsers give them).
  static PrivateData From(const std::vector<std::string>& values);
};

// Whether `uid` sees everything: root, SlurmUser, or a user whom the store
// gives AdminLevel Operator or Administrator. `user`: uid's name.
bool SeesEverything(uint32_t uid, const std::string& user, uint32_t slurm_user_uid,
                    AccountingStore& store);

// Drops the jobs of users other than `uid`.
void KeepOwnJobs(uint32_t uid, std::vector<wire::AccountingJob>& jobs);

// Clears the batch script and environment of the jobs of users other than
// `uid`: they may hold what their owner keeps secret, so only the owner and
// those who see everything read them, whatever PrivateData says.
void KeepOwnJobTexts(uint32_t uid, std::vector<wire::AccountingJob>& jobs);

// PrivateData=accounts: drops from a listing of `kind` ("account" or "assoc";
// other kinds are left alone) what lies outside the accounts `user` has an
// association with, as the store holds them.
Status KeepOwnAccounts(const std::string& kind, const std::string& user, AccountingStore& store,
                       std::vector<wire::AcctEntity>& entities);

}  // namespace rota::dbd
