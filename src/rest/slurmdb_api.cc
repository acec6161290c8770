#include "rest/slurmdb_api.h"

#include <fmt/format.h>

#include "accounting.pb.h"
#include "accounting_admin.pb.h"
#include "api/dbd_methods.h"
#include "common/strings.h"
#include "rest/rest_json.h"
#include "rest/slurmdb_entities.h"
#include "rest/slurmdb_jobs.h"

namespace rota::rest {
namespace {

constexpr ApiFlavor kDb = ApiFlavor::kSlurmdb;
// Slurm's ESLURM_DB_CONNECTION: what slurmrestd answers without a database.
constexpr int kEslurmDbConnection = 7000;

// rotadbd's refusal (or its absence) as an answer.
HttpResponse Refusal(const Status& status, int not_found_errno = kEslurmRestEmptyResult) {
  if (status.code() == StatusCode::kFailedPrecondition) {
    // The cluster keeps no accounting: nothing to ask.
    return ErrorAnswer(kDb, 500, status.message(), kEslurmDbConnection);
  }
  return StatusAnswer(kDb, status, not_found_errno);
}

HttpResponse BadQuery(const Status& status) {
  return ErrorAnswer(kDb, 400, status.message(), kEslurmRestInvalidQuery);
}

HttpResponse NoSuch(std::string_view message, int slurm_errno = kEslurmRestEmptyResult) {
  return ErrorAnswer(kDb, 404, message, slurm_errno);
}

Result<std::vector<wire::AccountingJob>> QueryJobs(Backend& backend,
                                                   const wire::QueryJobsRequest& request) {
  auto answer =
      ParseAnswer<wire::QueryJobsResponse>(backend.CallAccounting(api::kDbdQueryJobs, request));
  if (!answer.ok()) return answer.status();
  std::vector<wire::AccountingJob> jobs;
  jobs.reserve(static_cast<size_t>(answer->jobs_size()));
  for (wire::AccountingJob& j : *answer->mutable_jobs()) jobs.push_back(std::move(j));
  return jobs;
}

Result<std::vector<wire::AcctEntity>> ListEntities(Backend& backend, const std::string& kind,
                                                   const std::vector<std::string>& names = {}) {
  wire::ListEntitiesRequest request;
  request.set_kind(kind);
  for (const std::string& n : names) request.add_names(n);
  auto answer = ParseAnswer<wire::ListEntitiesResponse>(
      backend.CallAccounting(api::kDbdListEntities, request));
  if (!answer.ok()) return answer.status();
  return std::vector<wire::AcctEntity>(answer->entities().begin(), answer->entities().end());
}

// with_deleted=: Rota deletes outright, so it changes nothing; it must still
// be a boolean.
Status CheckWithDeleted(const HttpRequest& request) {
  for (const auto& [key, value] : request.query) {
    if (EqualsIgnoreCase(key, "with_deleted") && !ParseBool(value)) {
      return InvalidArgument(fmt::format("with_deleted: '{}' is not a boolean", value));
    }
  }
  return Status::Ok();
}

std::string QueryValue(const HttpRequest& request, std::string_view key) {
  for (const auto& [k, v] : request.query) {
    if (EqualsIgnoreCase(k, key)) return v;
  }
  return "";
}

// The jobs `filter` selects, as dbv0.0.38's "jobs" array.
Result<Json> SelectJobs(Backend& backend, const JobsFilter& filter) {
  std::vector<wire::AccountingJob> jobs;
  if (!filter.matches_none) {
    auto answer = QueryJobs(backend, filter.request);
    if (!answer.ok()) return answer.status();
    jobs = std::move(*answer);
  }
  return JobsJson(std::move(jobs), filter, backend.now());
}

HttpResponse GetJobs(const HttpRequest& request, const PathParams&, Backend& backend) {
  auto filter =
      ParseJobsQuery(request.query, backend.config().settings.cluster_name, backend.now());
  if (!filter.ok()) return BadQuery(filter.status());
  auto jobs = SelectJobs(backend, *filter);
  if (!jobs.ok()) return Refusal(jobs.status(), kEslurmInvalidJobId);
  Json out = Envelope(kDb);
  out["jobs"] = std::move(*jobs);
  return JsonAnswer(out);
}

HttpResponse GetJob(const HttpRequest&, const PathParams& params, Backend& backend) {
  const std::string& id = params.at("job_id");
  auto filter = JobIdFilter(id);
  if (!filter.ok()) return BadQuery(filter.status());
  auto jobs = SelectJobs(backend, *filter);
  if (!jobs.ok()) return Refusal(jobs.status(), kEslurmInvalidJobId);
  if (jobs->empty()) {
    return NoSuch(fmt::format("no job {} in the accounting records", id), kEslurmInvalidJobId);
  }
  Json out = Envelope(kDb);
  out["jobs"] = std::move(*jobs);
  return JsonAnswer(out);
}

// The accounts and users (all, or those named) and every association,
// with ClusterName.
Result<AccountingEntities> Fetch(Backend& backend, bool accounts, bool users,
                                 const std::vector<std::string>& account_names = {},
                                 const std::vector<std::string>& user_names = {}) {
  AccountingEntities data;
  data.cluster = backend.config().settings.cluster_name;
  if (accounts) {
    auto a = ListEntities(backend, "account", account_names);
    if (!a.ok()) return a.status();
    data.accounts = std::move(*a);
  }
  if (users) {
    auto u = ListEntities(backend, "user", user_names);
    if (!u.ok()) return u.status();
    data.users = std::move(*u);
  }
  auto assocs = ListEntities(backend, "assoc");
  if (!assocs.ok()) return assocs.status();
  data.assocs = std::move(*assocs);
  return data;
}

HttpResponse GetAssociations(const HttpRequest& request, const PathParams&, Backend& backend) {
  // Every account and user: QOS and default QOS come down the whole tree.
  auto data = Fetch(backend, /*accounts=*/true, /*users=*/true);
  if (!data.ok()) return Refusal(data.status());
  AssociationFilter filter{QueryValue(request, "cluster"), QueryValue(request, "account"),
                           QueryValue(request, "user"), QueryValue(request, "partition")};
  Json out = Envelope(kDb);
  out["associations"] = AssociationsJson(*data, filter);
  return JsonAnswer(out);
}

HttpResponse AccountsAnswer(const HttpRequest& request, Backend& backend,
                            const std::vector<std::string>& names) {
  if (Status s = CheckWithDeleted(request); !s.ok()) return BadQuery(s);
  auto data = Fetch(backend, /*accounts=*/true, /*users=*/false, names);
  if (!data.ok()) return Refusal(data.status());
  if (!names.empty() && data->accounts.empty()) {
    return NoSuch(fmt::format("no account named {}", names.front()));
  }
  Json out = Envelope(kDb);
  out["accounts"] = AccountsJson(*data);
  return JsonAnswer(out);
}

HttpResponse UsersAnswer(const HttpRequest& request, Backend& backend,
                         const std::vector<std::string>& names) {
  if (Status s = CheckWithDeleted(request); !s.ok()) return BadQuery(s);
  auto data = Fetch(backend, /*accounts=*/false, /*users=*/true, {}, names);
  if (!data.ok()) return Refusal(data.status());
  if (!names.empty() && data->users.empty()) {
    return NoSuch(fmt::format("no user named {}", names.front()));
  }
  Json out = Envelope(kDb);
  out["users"] = UsersJson(*data);
  return JsonAnswer(out);
}

HttpResponse QosAnswer(const HttpRequest& request, Backend& backend,
                       const std::vector<std::string>& names) {
  if (Status s = CheckWithDeleted(request); !s.ok()) return BadQuery(s);
  auto qos = ListEntities(backend, "qos", names);
  if (!qos.ok()) return Refusal(qos.status());
  if (!names.empty() && qos->empty()) return NoSuch(fmt::format("no QOS named {}", names.front()));
  Json out = Envelope(kDb);
  out["qos"] = QosJson(*qos);
  return JsonAnswer(out);
}

}  // namespace

void AddSlurmdbRoutes(Router& router) {
  const std::string base = "/slurmdb/v0.0.38";
  router.Add("GET", base + "/jobs", GetJobs);
  router.Add("GET", base + "/job/{job_id}", GetJob);
  router.Add("GET", base + "/associations", GetAssociations);
  router.Add("GET", base + "/accounts", [](const HttpRequest& r, const PathParams&, Backend& b) {
    return AccountsAnswer(r, b, {});
  });
  router.Add("GET", base + "/account/{account_name}",
             [](const HttpRequest& r, const PathParams& p, Backend& b) {
               return AccountsAnswer(r, b, {p.at("account_name")});
             });
  router.Add("GET", base + "/users", [](const HttpRequest& r, const PathParams&, Backend& b) {
    return UsersAnswer(r, b, {});
  });
  router.Add("GET", base + "/user/{user_name}",
             [](const HttpRequest& r, const PathParams& p, Backend& b) {
               return UsersAnswer(r, b, {p.at("user_name")});
             });
  router.Add("GET", base + "/qos", [](const HttpRequest& r, const PathParams&, Backend& b) {
    return QosAnswer(r, b, {});
  });
  router.Add("GET", base + "/qos/{qos_name}",
             [](const HttpRequest& r, const PathParams& p, Backend& b) {
               return QosAnswer(r, b, {p.at("qos_name")});
             });
}

}  // namespace rota::rest
