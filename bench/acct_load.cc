// Finished job records for the accounting benchmark beside Slurm's slurmdbd
// (bench/vs-slurm/dbd.sh): the same jobs for both sides.
//
//   acct_load send SLURM_CONF N START USERS
//       records jobs 1..N in rotadbd through the RecordJobs RPC, 1,000 per
//       request with this process's credential, as the controller's outbox
//       sends them; prints "record_ms VALUE ms"
//   acct_load tsv N START USERS
//       prints the same jobs as tab-separated rows for slurmdbd's job table:
//       id_job job_name id_user id_group user account partition state
//       exit_code time_submit time_eligible time_start time_end nodelist
//       cpus_req nodes_alloc tres_alloc tres_req mem_req timelimit(min)
//
// USERS: comma-separated login names (they must exist: uid and gid come from
// the password database). The first user owns 1% of the jobs, the others
// share the rest in turn. START: the first submit time (epoch seconds); job i
// is submitted at START + i / 10 and ends within the next 2 hours.
#include <pwd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "accounting.pb.h"
#include "api/dbd_methods.h"
#include "cli/client/accounting_client.h"
#include "common/strings.h"

namespace {

using rota::wire::AccountingJob;

struct User {
  std::string name;
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// Slurm's numeric job states (its job_table.state) for the final states used.
struct Outcome {
  rota::wire::JobState rota;
  int slurm;
  uint32_t exit_code;  // waitpid style
};

Outcome OutcomeOf(uint32_t id) {
  if (id % 50 == 7) return {rota::wire::JOB_STATE_TIMEOUT, 6, 0};
  // A cancelled job keeps exit code 0 in both (the signal belongs to its batch step).
  if (id % 25 == 3) return {rota::wire::JOB_STATE_CANCELLED, 4, 0};
  if (id % 10 == 1) return {rota::wire::JOB_STATE_FAILED, 5, 1 << 8};
  return {rota::wire::JOB_STATE_COMPLETED, 3, 0};
}

AccountingJob Job(uint32_t id, int64_t start, const std::vector<User>& users) {
  const User& u = id % 100 == 0 ? users[0] : users[1 + id % (users.size() - 1)];
  const Outcome o = OutcomeOf(id);
  const uint32_t cpus = 1u << (id % 4);  // 1, 2, 4, 8
  const int64_t submit = start + id / 10;
  const int64_t begin = submit + id % 30;
  const int64_t limit_s = 7200;
  const int64_t end =
      o.rota == rota::wire::JOB_STATE_TIMEOUT ? begin + limit_s : begin + 60 + (id * 37) % 3600;
  AccountingJob j;
  j.set_cluster("bench");
  j.set_job_id(id);
  j.set_name("train_" + std::to_string(id % 32));
  j.set_user(u.name);
  j.set_uid(u.uid);
  j.set_gid(u.gid);
  j.set_account(id % 3 == 0 ? "physics" : "chemistry");
  j.set_partition(id % 5 == 0 ? "short" : "batch");
  j.set_qos("normal");
  j.set_state(o.rota);
  j.set_ended(true);
  j.set_exit_code(o.exit_code);
  j.set_submit_time(submit);
  j.set_eligible_time(submit);
  j.set_start_time(begin);
  j.set_end_time(end);
  j.set_nodelist("n" + std::to_string(1 + id % 4));
  j.set_alloc_cpus(cpus);
  j.set_alloc_nodes(1);
  const std::string tres = "billing=" + std::to_string(cpus) + ",cpu=" + std::to_string(cpus) +
                           ",mem=" + std::to_string(cpus) + "G,node=1";
  j.set_alloc_tres(tres);
  j.set_req_tres(tres);
  j.set_req_mem_mb(1024ull * cpus);
  j.set_time_limit_s(limit_s);
  j.set_reason("None");
  if (o.rota == rota::wire::JOB_STATE_CANCELLED) {
    j.set_cancelled(true);
    j.set_cancelled_by_uid(u.uid);
  }
  return j;
}

// Slurm's TRES ids: 1 cpu, 2 mem (MB), 4 node, 5 billing.
std::string SlurmTres(const AccountingJob& j) {
  return "1=" + std::to_string(j.alloc_cpus()) + ",2=" + std::to_string(j.req_mem_mb()) +
         ",4=1,5=" + std::to_string(j.alloc_cpus());
}

int Usage() {
  std::fprintf(stderr,
               "usage: acct_load send SLURM_CONF N START USERS | acct_load tsv N START USERS\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string mode = argv[1];
  const int first = mode == "send" ? 3 : 2;
  if ((mode != "send" && mode != "tsv") || argc != first + 3) return Usage();
  std::optional<uint64_t> n = rota::ParseUint(argv[first]);
  std::optional<uint64_t> start = rota::ParseUint(argv[first + 1]);
  if (!n || !start || *n == 0) return Usage();
  std::vector<User> users;
  for (std::string_view part : rota::Split(argv[first + 2], ',')) {
    std::string name(part);
    passwd* pw = getpwnam(name.c_str());
    if (pw == nullptr) {
      std::fprintf(stderr, "acct_load: no user %s\n", name.c_str());
      return 1;
    }
    users.push_back({name, pw->pw_uid, pw->pw_gid});
  }
  if (users.size() < 2) return Usage();
  const auto jobs = static_cast<uint32_t>(*n);
  const auto t0 = static_cast<int64_t>(*start);

  if (mode == "tsv") {
    for (uint32_t id = 1; id <= jobs; ++id) {
      AccountingJob j = Job(id, t0, users);
      std::string tres = SlurmTres(j);
      std::printf(
          "%u\t%s\t%u\t%u\t%s\t%s\t%s\t%d\t%u\t%lld\t%lld\t%lld\t%lld\t%s\t%u\t%u\t%s\t%s\t%llu\t%"
          "lld\n",
          j.job_id(), j.name().c_str(), j.uid(), j.gid(), j.user().c_str(), j.account().c_str(),
          j.partition().c_str(), OutcomeOf(id).slurm, j.exit_code(),
          static_cast<long long>(j.submit_time()), static_cast<long long>(j.eligible_time()),
          static_cast<long long>(j.start_time()), static_cast<long long>(j.end_time()),
          j.nodelist().c_str(), j.alloc_cpus(), j.alloc_nodes(), tres.c_str(), tres.c_str(),
          static_cast<unsigned long long>(j.req_mem_mb()),
          static_cast<long long>(j.time_limit_s() / 60));
    }
    return 0;
  }

  auto client = rota::cli::AccountingClient::Create(argv[2]);
  if (!client.ok()) {
    std::fprintf(stderr, "acct_load: %s\n", client.status().ToString().c_str());
    return 1;
  }
  // Built before the clock starts: the figure is the RPC and the store.
  std::vector<rota::wire::RecordJobsRequest> requests;
  for (uint32_t id = 1; id <= jobs; ++id) {
    if ((id - 1) % 1000 == 0) requests.emplace_back();
    *requests.back().add_jobs() = Job(id, t0, users);
  }
  const auto t = std::chrono::steady_clock::now();
  uint64_t stored = 0;
  for (const auto& request : requests) {
    rota::wire::RecordJobsResponse response;
    rota::Status s = (*client)->Call(rota::api::kDbdRecordJobs, request, &response);
    if (!s.ok()) {
      std::fprintf(stderr, "acct_load: %s\n", s.ToString().c_str());
      return 1;
    }
    stored += response.stored();
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  if (stored != jobs) {
    std::fprintf(stderr, "acct_load: rotadbd stored %llu of %u records\n",
                 static_cast<unsigned long long>(stored), jobs);
    return 1;
  }
  std::printf("record_ms %.1f ms\n", ms);
  return 0;
}
