#pragma once

// PrivateData for rotadbd: what an ordinary user may see of other users
// through sacct and sacctmgr. Slurm reads it from slurmdbd.conf; where that
// file does not set it, rotadbd takes slurm.conf's, so one key hides the same
// things from squeue and from sacct. Root, SlurmUser and users with AdminLevel
// Operator or Administrator see everything.

#include <cstdint>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "dbd/accounting_store.h"

namespace rota::dbd {

struct PrivateData {
  bool jobs = false;   // sacct: only the caller's own jobs
  bool users = false;  // sacctmgr list users: only the caller
  // From the key's values (lower case, as the parsers give them).
  static PrivateData From(const std::vector<std::string>& values);
};

// Whether `uid` sees everything: root, SlurmUser, or a user whom the store
// gives AdminLevel Operator or Administrator. `user`: uid's name.
bool SeesEverything(uint32_t uid, const std::string& user, uint32_t slurm_user_uid,
                    AccountingStore& store);

// Drops the jobs of users other than `uid`.
void KeepOwnJobs(uint32_t uid, std::vector<wire::AccountingJob>& jobs);

}  // namespace rota::dbd
