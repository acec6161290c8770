#pragma once

// rotadbd's RPC surface: checks each request's credential and hands the work
// to the one storage thread that owns the AccountingStore (SQLite wants one
// writer; queries queue behind writes, which keeps them consistent).

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "accounting_admin.pb.h"
#include "auth/credential.h"
#include "dbd/accounting_store.h"
#include "dbd/cluster_entities.h"
#include "dbd/private_data.h"
#include "rpc/server.h"

namespace rota::dbd {

class DbdService {
 public:
  // `slurm_user_uid`: SlurmUser, allowed (like root) to record jobs.
  // `home`: the cluster of slurm.conf, whose association tree this is.
  // `private_data`: what ordinary users see only of their own.
  DbdService(std::unique_ptr<AccountingStore> store, auth::CredentialVerifier& verifier,
             uint32_t slurm_user_uid, HomeCluster home = {}, PrivateData private_data = {});
  ~DbdService();  // Finishes queued work, then stops the storage thread.
  DbdService(const DbdService&) = delete;
  DbdService& operator=(const DbdService&) = delete;

  // The rpc::RequestHandler. Never blocks.
  void Handle(const rpc::RequestContext& context, std::string body, rpc::Responder respond);

 private:
  // sacctmgr's requests, on the storage thread.
  // `caller`: who asked, for PrivateData=users.
  void HandleEntities(uint16_t method, std::string body, rpc::Responder respond,
                      uint32_t caller = 0);
  // sacctmgr delete user [where Account=...]: associations, then users.
  void DeleteUsers(const wire::DeleteEntitiesRequest& req, rpc::Responder respond);
  void Post(std::function<void()> task);
  void Run();

  std::unique_ptr<AccountingStore> store_;  // Storage thread only.
  auth::CredentialVerifier& verifier_;
  uint32_t slurm_user_uid_;
  const HomeCluster home_;
  const PrivateData private_data_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;  // Guarded by mu_.
  bool stopping_ = false;                    // Guarded by mu_.
  std::thread thread_;
};

}  // namespace rota::dbd
