#include "dbd/dbd_service.h"

#include <fmt/format.h>
#include <pwd.h>

#include <vector>

#include "accounting.pb.h"
#include "accounting_admin.pb.h"
#include "api/dbd_methods.h"
#include "common/log.h"
#include "common/user_names.h"
#include "dbd/acct_entities.h"
#include "dbd/assoc_entities.h"
#include "rota.pb.h"

namespace rota::dbd {
namespace {}  // namespace

DbdService::DbdService(std::unique_ptr<AccountingStore> store, auth::CredentialVerifier& verifier,
                       uint32_t slurm_user_uid, HomeCluster home, PrivateData private_data)
    : store_(std::move(store)),
      verifier_(verifier),
      slurm_user_uid_(slurm_user_uid),
      home_(std::move(home)),
      private_data_(private_data) {
  thread_ = std::thread([this] { Run(); });
}

DbdService::~DbdService() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DbdService::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void DbdService::Run() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void DbdService::Handle(const rpc::RequestContext& context, std::string body,
                        rpc::Responder respond) {
  Result<auth::Identity> id = verifier_.Verify(
      context.credential, auth::RpcBindingBytes(context.method, body), auth::SystemUnixNow());
  if (!id.ok()) {
    spdlog::warn("refused request {} from {}: {}", context.method, context.peer,
                 id.status().message());
    respond.Fail(id.status());
    return;
  }
  const bool privileged = id->uid == 0 || id->uid == slurm_user_uid_;
  switch (context.method) {
    case api::kDbdPing:
      respond(0, wire::Empty().SerializeAsString());
      return;
    case api::kDbdRecordJobs: {
      if (!privileged) {
        respond.Fail(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
        return;
      }
      auto req = std::make_shared<wire::RecordJobsRequest>();
      if (!req->ParseFromString(body)) {
        respond.Fail(InvalidArgument("malformed request"));
        return;
      }
      Post([this, req, respond] {
        std::vector<wire::AccountingJob> jobs(req->jobs().begin(), req->jobs().end());
        Status s = store_->UpsertJobs(jobs);
        if (!s.ok()) {
          spdlog::error("storing {} job records failed: {}", jobs.size(), s.ToString());
          respond.Fail(s);
          return;
        }
        // Both kinds are idempotent: a batch failing here is sent again whole.
        s = store_->UpsertNodeEvents({req->node_events().begin(), req->node_events().end()});
        if (!s.ok()) {
          spdlog::error("storing {} node events failed: {}", req->node_events_size(), s.ToString());
          respond.Fail(s);
          return;
        }
        wire::RecordJobsResponse out;
        out.set_stored(static_cast<uint32_t>(jobs.size()));
        respond(0, out.SerializeAsString());
      });
      return;
    }
    case api::kDbdQueryJobs:
    case api::kDbdQueryUsage: {
      auto req = std::make_shared<wire::QueryJobsRequest>();
      if (!req->ParseFromString(body)) {
        respond.Fail(InvalidArgument("malformed request"));
        return;
      }
      const bool usage_report = context.method == api::kDbdQueryUsage;
      const bool texts = req->with_script() || req->with_environment();
      if (texts && req->job_ids().empty()) {
        // As Slurm's: scripts and environments are read job by job.
        respond.Fail(InvalidArgument("job scripts and environments are given for named jobs only"));
        return;
      }
      Post([this, req, respond, uid = id->uid, usage_report, texts] {
        Result<std::vector<wire::AccountingJob>> jobs = store_->QueryJobs(*req);
        if (!jobs.ok()) {
          respond.Fail(jobs.status());
          return;
        }
        const bool own_jobs = private_data_.OwnJobsOnly(usage_report);
        if ((own_jobs || texts) && !SeesEverything(uid, UserName(uid), slurm_user_uid_, *store_)) {
          if (own_jobs) KeepOwnJobs(uid, *jobs);
          if (texts) KeepOwnJobTexts(uid, *jobs);
        }
        wire::QueryJobsResponse out;
        out.mutable_jobs()->Reserve(static_cast<int>(jobs->size()));
        for (wire::AccountingJob& j : *jobs) *out.add_jobs() = std::move(j);
        respond(0, out.SerializeAsString());
      });
      return;
    }
    case api::kDbdQueryNodeEvents: {
      auto req = std::make_shared<wire::QueryNodeEventsRequest>();
      if (!req->ParseFromString(body)) {
        respond.Fail(InvalidArgument("malformed request"));
        return;
      }
      Post([this, req, respond] {
        Result<std::vector<wire::NodeEvent>> events = store_->QueryNodeEvents(*req);
        if (!events.ok()) {
          respond.Fail(events.status());
          return;
        }
        wire::QueryNodeEventsResponse out;
        for (wire::NodeEvent& e : *events) *out.add_events() = std::move(e);
        respond(0, out.SerializeAsString());
      });
      return;
    }
    case api::kDbdAddEntities:
    case api::kDbdModifyEntities:
    case api::kDbdDeleteEntities:
      if (!privileged) {
        respond.Fail(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
        return;
      }
      HandleEntities(context.method, std::move(body), respond);
      return;
    case api::kDbdListEntities:
      HandleEntities(context.method, std::move(body), respond, id->uid);
      return;
    default:
      respond.Fail(InvalidArgument(fmt::format("unknown method {}", context.method)));
  }
}

void DbdService::HandleEntities(uint16_t method, std::string body, rpc::Responder respond,
                                uint32_t caller) {
  Post([this, method, body = std::move(body), respond, caller] {
    if (method == api::kDbdAddEntities) {
      wire::AddEntitiesRequest req;
      if (!req.ParseFromString(body)) return respond.Fail(InvalidArgument("malformed request"));
      std::vector<wire::AcctEntity> entities(req.entities().begin(), req.entities().end());
      Status s = Status::Ok();
      if (!entities.empty() && entities.front().kind() == "cluster") {
        s = PrepareAddClusters(entities, home_, *store_);
      } else if (!entities.empty() && entities.front().kind() == "user") {
        auto expanded = PrepareAddUsers(entities, *store_);
        if (!expanded.ok()) return respond.Fail(expanded.status());
        entities = std::move(expanded).value();
      } else {
        s = PrepareAdd(entities, *store_);
      }
      if (s.ok()) s = store_->AddEntities(entities);
      if (!s.ok()) return respond.Fail(s);
      respond(0, wire::Empty().SerializeAsString());
    } else if (method == api::kDbdModifyEntities) {
      wire::ModifyEntitiesRequest req;
      if (!req.ParseFromString(body)) return respond.Fail(InvalidArgument("malformed request"));
      std::map<std::string, std::string> set(req.set().begin(), req.set().end());
      std::vector<std::string> names(req.names().begin(), req.names().end());
      auto entities = req.kind() == "user"
                          ? PrepareModifyUsers(
                                names, {req.accounts().begin(), req.accounts().end()}, set, *store_)
                          : PrepareModify(req.kind(), names, set, *store_);
      if (!entities.ok()) return respond.Fail(entities.status());
      Status s = store_->ReplaceEntities(*entities);
      if (!s.ok()) return respond.Fail(s);
      wire::ModifyEntitiesResponse out;
      for (const wire::AcctEntity& e : *entities) out.add_modified(e.name());
      respond(0, out.SerializeAsString());
    } else if (method == api::kDbdListEntities) {
      wire::ListEntitiesRequest req;
      if (!req.ParseFromString(body)) return respond.Fail(InvalidArgument("malformed request"));
      std::vector<std::string> names(req.names().begin(), req.names().end());
      auto found = req.kind() == "cluster" ? ListClusters(names, home_, *store_)
                                           : store_->ListEntities(req.kind(), names);
      if (!found.ok()) return respond.Fail(found.status());
      // PrivateData=users: an ordinary user is shown only themself.
      if (req.kind() == "user" && private_data_.users) {
        const std::string me = UserName(caller);
        if (!SeesEverything(caller, me, slurm_user_uid_, *store_)) {
          std::erase_if(*found, [&](const wire::AcctEntity& e) { return e.name() != me; });
        }
      }
      // PrivateData=accounts: an ordinary user is shown only their own accounts
      // and the associations under them.
      if ((req.kind() == "account" || req.kind() == "assoc") && private_data_.accounts) {
        const std::string me = UserName(caller);
        if (!SeesEverything(caller, me, slurm_user_uid_, *store_)) {
          Status s = KeepOwnAccounts(req.kind(), me, *store_, *found);
          if (!s.ok()) return respond.Fail(s);
        }
      }
      wire::ListEntitiesResponse out;
      for (wire::AcctEntity& e : *found) *out.add_entities() = std::move(e);
      respond(0, out.SerializeAsString());
    } else {
      wire::DeleteEntitiesRequest req;
      if (!req.ParseFromString(body)) return respond.Fail(InvalidArgument("malformed request"));
      std::vector<std::string> names(req.names().begin(), req.names().end());
      if (req.kind() == "user") return DeleteUsers(req, respond);
      Status s = req.kind() == "cluster" ? CheckDeleteClusters(names, home_, *store_)
                                         : CheckDelete(req.kind(), names, *store_);
      if (!s.ok()) return respond.Fail(s);
      auto deleted = store_->DeleteEntities(req.kind(), names);
      if (!deleted.ok()) return respond.Fail(deleted.status());
      wire::DeleteEntitiesResponse out;
      for (const std::string& n : *deleted) out.add_deleted(n);
      respond(0, out.SerializeAsString());
    }
  });
}

void DbdService::DeleteUsers(const wire::DeleteEntitiesRequest& req, rpc::Responder respond) {
  auto deletion = PrepareDeleteUsers({req.names().begin(), req.names().end()},
                                     {req.accounts().begin(), req.accounts().end()}, *store_);
  if (!deletion.ok()) return respond.Fail(deletion.status());
  // Associations first: a failure between the two leaves users with fewer
  // associations, never associations without their user.
  auto assocs = store_->DeleteEntities("assoc", deletion->assocs);
  if (!assocs.ok()) return respond.Fail(assocs.status());
  auto users = store_->DeleteEntities("user", deletion->users);
  if (!users.ok()) return respond.Fail(users.status());
  wire::DeleteEntitiesResponse out;
  if (req.accounts().empty()) {
    for (const std::string& n : *users) out.add_deleted(n);
  } else {
    // Associations as sacctmgr lists them: "A = ACCOUNT U = USER".
    for (const std::string& n : *assocs) {
      const size_t bar = n.find('|');
      out.add_deleted(fmt::format("A = {:<10} U = {}", n.substr(0, bar), n.substr(bar + 1)));
    }
  }
  respond(0, out.SerializeAsString());
}

}  // namespace rota::dbd
