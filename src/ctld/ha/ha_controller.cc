#include "ctld/ha/ha_controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "api/auth_settings.h"
#include "api/methods.h"
#include "api/signed_call.h"
#include "conf/config_loader.h"
#include "ctld/ha/controller_role.h"
#include "rota.pb.h"
#include "rpc/client.h"

namespace rota::ctld {
namespace {

using Clock = std::chrono::steady_clock;

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// How often a backup pings the primary, and how often the supervisor looks.
constexpr std::chrono::milliseconds kPingEvery{500};
constexpr std::chrono::milliseconds kTick{100};

}  // namespace

Result<std::unique_ptr<HaController>> HaController::Start(DaemonOptions options) {
  std::unique_ptr<HaController> c(new HaController());
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(options.slurm_conf_path, diags);
  if (!config.ok()) {
    for (const conf::Diagnostic& finding : diags.all()) spdlog::error("{}", finding.ToString());
    return config.status();
  }
  Result<size_t> index = ControllerIndex(**config, ShortHostName());
  if (!index.ok()) return index.status();
  options.controller_index = *index;
  c->options_ = options;
  c->config_ = *config;
  c->me_ = c->config_->settings.controllers[*index].name;
  c->timeout_ = std::chrono::seconds(std::max<int64_t>(1, c->config_->settings.slurmctld_timeout));
  const std::string& state_dir = c->config_->settings.state_save_location;
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  c->lease_ = std::make_unique<ControllerLease>(state_dir, c->me_, c->timeout_, WallMs);
  auto issuer = auth::MakeIssuer(api::AuthSettingsFor(*c->config_));
  if (!issuer.ok()) return issuer.status();
  c->issuer_ = std::move(issuer).value();
  if (*index == 0) {
    // The primary takes control back as it starts: a backup in control
    // hands over at its next renewal.
    if (Status wanted = c->lease_->Want(); !wanted.ok()) {
      spdlog::warn("cannot ask for control: {}", wanted.message());
    }
  }
  ROTA_RETURN_IF_ERROR(c->ServeStandby());
  spdlog::info("rotactld: {} controller {} (SlurmctldTimeout {} s), in standby until in control",
               *index == 0 ? "primary" : "backup", c->me_, c->timeout_.count() / 1000);
  c->primary_last_seen_ = Clock::now();
  HaController* self = c.get();
  c->thread_ = std::thread([self] { self->Run(); });
  return c;
}

HaController::~HaController() { Stop(); }

void HaController::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status HaController::Reload() {
  std::lock_guard<std::mutex> lock(mu_);
  return daemon_ ? daemon_->Reload() : Status::Ok();
}

void HaController::Run() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(stop_mu_);
      if (stop_cv_.wait_for(lock, kTick, [this] { return stopping_; })) break;
    }
    if (daemon_) {
      InControl(Clock::now());
    } else {
      Standby(Clock::now());
    }
  }
  // Stopped: a controller in control lets go, so that the other need not
  // wait for the lease to expire.
  if (daemon_) StepDown("rotactld is stopping");
  if (standby_) standby_->Stop();
}

bool HaController::PrimaryAnswers() {
  const conf::ControllerHost& primary = config_->settings.controllers.front();
  rpc::RpcClient rpc;
  if (!rpc.Connect(primary.address.empty() ? primary.name : primary.address,
                   config_->settings.slurmctld_port, std::chrono::seconds(1))
           .ok()) {
    return false;
  }
  return api::SignedCall(rpc, *issuer_, api::kPing, wire::Empty().SerializeAsString(),
                         std::chrono::seconds(1))
      .ok();
}

void HaController::Standby(Clock::time_point now) {
  if (!standby_ && !ServeStandby().ok()) return;
  if (takeover_asked_.exchange(false)) {
    if (Status wanted = lease_->Want(); !wanted.ok()) {
      spdlog::error("scontrol takeover: {}", wanted.message());
    }
  }
  if (options_.controller_index != 0 && now >= next_ping_) {
    next_ping_ = now + kPingEvery;
    if (PrimaryAnswers()) {
      primary_last_seen_ = now;
    } else if (now - primary_last_seen_ >= timeout_) {
      // Asked again at each ping while it lasts: a wish lapses after a
      // lease's length, and the primary may be alive behind a cut link,
      // still renewing; it hands over when it sees this.
      if (Status wanted = lease_->Want(); !wanted.ok()) {
        spdlog::error("cannot ask for control: {}", wanted.message());
      }
    }
  }
  Result<bool> taken = lease_->TryTake();
  if (!taken.ok()) {
    // Said once, not at every tick, until it changes.
    if (taken.status().message() != last_lease_error_) {
      last_lease_error_ = taken.status().message();
      spdlog::error("controller lease: {}", last_lease_error_);
    }
    return;
  }
  last_lease_error_.clear();
  if (!*taken) return;
  // In control: the standby server gives the port to the daemon.
  standby_->Stop();
  standby_.reset();
  auto daemon = ControllerDaemon::Start(options_);
  if (!daemon.ok()) {
    spdlog::error("cannot take control: {}", daemon.status().message());
    if (Status released = lease_->Release(); !released.ok()) {
      spdlog::error("controller lease: {}", released.message());
    }
    if (Status served = ServeStandby(); !served.ok()) {
      spdlog::error("cannot serve in standby: {}", served.message());
    }
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    daemon_ = std::move(daemon).value();
  }
  next_renewal_ = Clock::now();  // At once: recovery may have taken a while.
  spdlog::info("rotactld: {} in control", me_);
}

void HaController::InControl(Clock::time_point now) {
  if (now < next_renewal_) return;
  next_renewal_ = now + timeout_ / 3;
  Result<bool> kept = lease_->Renew();
  if (kept.ok() && *kept) return;
  StepDown(kept.ok() ? "another controller asked for control, or holds the lease"
                     : "cannot renew the controller lease: " + kept.status().message());
}

void HaController::StepDown(const std::string& why) {
  spdlog::warn("rotactld: {} hands over control: {}", me_, why);
  std::unique_ptr<ControllerDaemon> daemon;
  {
    std::lock_guard<std::mutex> lock(mu_);
    daemon = std::move(daemon_);
  }
  if (daemon) daemon->Stop();
  daemon.reset();
  if (Status released = lease_->Release(); !released.ok()) {
    spdlog::error("controller lease: {}", released.message());
  }
  primary_last_seen_ = Clock::now();
  bool stopping;
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping = stopping_;
  }
  if (stopping) return;
  if (Status served = ServeStandby(); !served.ok()) {
    // Tried again at each tick (Standby): the port may linger a moment.
    spdlog::error("cannot serve in standby: {}", served.message());
  }
}

Status HaController::ServeStandby() {
  HaController* self = this;
  auto standby = StandbyServer::Start(*config_, options_.controller_index,
                                      {.in_control =
                                           [self] {
                                             Result<LeaseRecord> lease = self->lease_->Read();
                                             return lease.ok() ? lease->holder : std::string();
                                           },
                                       .takeover = [self] { self->takeover_asked_ = true; }});
  if (!standby.ok()) return standby.status();
  standby_ = std::move(standby).value();
  return Status::Ok();
}

}  // namespace rota::ctld
