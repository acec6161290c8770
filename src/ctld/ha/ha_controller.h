#pragma once

// rotactld with a backup (two or more SlurmctldHost lines; docs/reliability.md,
// "A backup controller"). A supervisor thread keeps this controller either in
// control, running a ControllerDaemon while it holds the lease
// (controller_lease.h), or in standby, serving StandbyServer and watching:
// - the primary asks for control back when it starts;
// - a backup asks for it when the primary has not answered a ping for
//   SlurmctldTimeout, or on `scontrol takeover`;
// - either takes the lease once it is released or expired;
// - the one in control renews the lease every third of SlurmctldTimeout, and
//   hands over (stops its daemon, then releases) as soon as a renewal fails or
//   another controller asked: a controller that may not renew accepts nothing.
// The controller's state comes from StateSaveLocation at each takeover.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "auth/credential.h"
#include "ctld/ha/controller_lease.h"
#include "ctld/ha/standby_server.h"
#include "ctld/server/controller_daemon.h"

namespace rota::ctld {

class HaController {
 public:
  static Result<std::unique_ptr<HaController>> Start(DaemonOptions options);
  ~HaController();
  void Stop();
  // SIGHUP: the daemon in control reloads; in standby there is nothing to do
  // (the configuration is read at each takeover).
  Status Reload();

 private:
  HaController() = default;
  void Run();
  void Standby(std::chrono::steady_clock::time_point now);
  void InControl(std::chrono::steady_clock::time_point now);
  bool PrimaryAnswers();
  void StepDown(const std::string& why);
  // Starts the standby server on this controller's port.
  Status ServeStandby();

  DaemonOptions options_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  std::string me_;
  std::chrono::milliseconds timeout_{0};
  std::unique_ptr<ControllerLease> lease_;
  std::unique_ptr<auth::CredentialIssuer> issuer_;  // For pinging the primary
  std::unique_ptr<StandbyServer> standby_;
  std::mutex mu_;  // Guards daemon_ against Reload.
  std::unique_ptr<ControllerDaemon> daemon_;
  std::atomic<bool> takeover_asked_{false};
  std::string last_lease_error_;  // The last lease error logged in standby
  std::chrono::steady_clock::time_point primary_last_seen_;
  std::chrono::steady_clock::time_point next_ping_;
  std::chrono::steady_clock::time_point next_renewal_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // Guarded by stop_mu_
  std::thread thread_;
};

}  // namespace rota::ctld
