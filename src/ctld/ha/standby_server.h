#pragma once

// What a controller that is not in control serves on its port (the backup,
// or a primary waiting for its lease): kPing, so that `scontrol ping` and
// the other controller see it up; kTakeover from root or SlurmUser
// (`scontrol takeover`); and the standby refusal for everything else
// (api/controller_standby.h), which sends commands and node daemons on to
// the controller in control.

#include <functional>
#include <memory>
#include <string>

#include "auth/credential.h"
#include "common/status.h"
#include "conf/cluster_config.h"
#include "rpc/server.h"

namespace rota::ctld {

class StandbyServer {
 public:
  struct Hooks {
    std::function<std::string()> in_control;  // Who is in control, for the refusal
    std::function<void()> takeover;           // scontrol takeover was asked
  };
  // Listens where the `index`th SlurmctldHost does.
  static Result<std::unique_ptr<StandbyServer>> Start(const conf::ClusterConfig& config,
                                                      size_t index, Hooks hooks);
  ~StandbyServer() { Stop(); }
  void Stop();

 private:
  StandbyServer() = default;
  void Handle(const rpc::RequestContext& context, const std::string& body,
              const rpc::Responder& respond);

  std::unique_ptr<auth::CredentialVerifier> verifier_;
  uint32_t slurm_user_uid_ = 0;
  Hooks hooks_;
  std::unique_ptr<rpc::RpcServer> server_;
};

}  // namespace rota::ctld
