#include "dbd/private_data.h"

#include <algorithm>

namespace rota::dbd {

PrivateData PrivateData::From(const std::vector<std::string>& values) {
  auto has = [&](const char* what) {
    return std::find(values.begin(), values.end(), what) != values.end();
  };
  PrivateData p;
  p.jobs = has("jobs");
  p.users = has("users");
  return p;
}

bool SeesEverything(uint32_t uid, const std::string& user, uint32_t slurm_user_uid,
                    AccountingStore& store) {
  if (uid == 0 || uid == slurm_user_uid) return true;
  if (user.empty()) return false;
  Result<std::vector<wire::AcctEntity>> found = store.ListEntities("user", {user});
  if (!found.ok() || found->empty()) return false;
  auto level = found->front().fields().find("AdminLevel");
  return level != found->front().fields().end() &&
         (level->second == "Operator" || level->second == "Administrator");
}

void KeepOwnJobs(uint32_t uid, std::vector<wire::AccountingJob>& jobs) {
  std::erase_if(jobs, [uid](const wire::AccountingJob& job) { return job.uid() != uid; });
}

}  // namespace rota::dbd
