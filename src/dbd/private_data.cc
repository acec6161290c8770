#include "dbd/private_data.h"

#include <algorithm>
#include <set>

namespace rota::dbd {

PrivateData PrivateData::From(const std::vector<std::string>& values) {
  auto has = [&](const char* what) {
    return std::find(values.begin(), values.end(), what) != values.end();
  };
  PrivateData p;
  p.jobs = has("jobs");
  p.users = has("users");
  p.accounts = has("accounts");
  p.usage = has("usage");
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

void KeepOwnJobTexts(uint32_t uid, std::vector<wire::AccountingJob>& jobs) {
  for (wire::AccountingJob& job : jobs) {
    if (job.uid() == uid) continue;
    job.clear_script();
    job.clear_environment();
  }
}

Status KeepOwnAccounts(const std::string& kind, const std::string& user, AccountingStore& store,
                       std::vector<wire::AcctEntity>& entities) {
  if (kind != "account" && kind != "assoc") return Status::Ok();
  Result<std::vector<wire::AcctEntity>> assocs = store.ListEntities("assoc", {});
  if (!assocs.ok()) return assocs.status();
  auto field = [](const wire::AcctEntity& e, const char* key) {
    auto it = e.fields().find(key);
    return it == e.fields().end() ? std::string() : it->second;
  };
  std::set<std::string> mine;
  // An unknown caller (no name) belongs to no account.
  for (const wire::AcctEntity& a : *assocs) {
    if (!user.empty() && field(a, "User") == user) mine.insert(field(a, "Account"));
  }
  std::erase_if(entities, [&](const wire::AcctEntity& e) {
    return !mine.contains(kind == "account" ? e.name() : field(e, "Account"));
  });
  return Status::Ok();
}

}  // namespace rota::dbd
