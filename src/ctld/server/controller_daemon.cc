#include "ctld/server/controller_daemon.h"

#include <pwd.h>

#include <chrono>
#include <ctime>
#include <future>
#include <vector>

#include "api/accounting_address.h"
#include "api/auth_settings.h"
#include "api/protobuf_log.h"
#include "api/transport_limits.h"
#include "auth/jwt_credential.h"
#include "auth/jwt_token.h"
#include "common/log.h"
#include "common/strings.h"
#include "conf/config_doctor.h"
#include "conf/config_loader.h"
#include "conf/preempt_mode.h"
#include "ctld/core/accounting_records.h"
#include "ctld/server/mail_sender.h"
#include "ctld/server/node_messenger.h"
#include "ctld/server/registration_nudge.h"
#include "ctld/server/slurmctld_scripts.h"
#include "ctld/state/state_store.h"

namespace rota::ctld {

uint32_t SlurmUserUid(const std::string& user) {
  if (std::optional<uint64_t> n = ParseUint(user)) return static_cast<uint32_t>(*n);
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  getpwnam_r(user.c_str(), &pw, buffer.data(), buffer.size(), &found);
  return found != nullptr ? found->pw_uid : 0;
}

std::string ControllerListenAddress(const conf::ClusterConfig& config, size_t index) {
  const auto& controllers = config.settings.controllers;
  const conf::ControllerHost& host = controllers[index < controllers.size() ? index : 0];
  if (!host.address.empty()) return host.address;
  if (host.name == "localhost") return "127.0.0.1";
  return "0.0.0.0";
}

namespace {

// How often the accounting policy is read again from rotadbd (sacctmgr also
// asks for a read after each change).
constexpr std::chrono::seconds kPolicyRefresh{5};

}  // namespace

Result<std::unique_ptr<ControllerDaemon>> ControllerDaemon::Start(const DaemonOptions& options) {
  std::unique_ptr<ControllerDaemon> d(new ControllerDaemon());
  // Before anything is opened: connections are capped well below the limit
  // (rpc::DefaultMaxConnections), so the state log, the accounting outbox and
  // job files keep descriptors in reserve.
  const uint64_t descriptors = rpc::RaiseDescriptorLimit();
  api::RouteProtobufLogs();  // Malformed requests must not flood the log.
  spdlog::info("rotactld may open {} file descriptors", descriptors);
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(options.slurm_conf_path, diags);
  for (const conf::Diagnostic& finding : diags.all()) spdlog::warn("{}", finding.ToString());
  if (!config.ok()) return config.status();
  conf::Diagnostics traps;
  conf::DiagnoseTraps(**config, traps);
  for (const conf::Diagnostic& finding : traps.all()) spdlog::warn("{}", finding.ToString());
  d->config_ = *config;
  if (conf::MaySuspendJobs(*d->config_)) spdlog::warn("{}", conf::kSuspendGpuWarning);
  if (conf::TimeSlicesJobs(*d->config_)) spdlog::warn("{}", conf::kGangGpuWarning);

  auth::AuthSettings auth_settings = api::AuthSettingsFor(*d->config_);
  if (auth_settings.auth_type == "auth/none") {
    spdlog::critical("AuthType=auth/none: requests are NOT authenticated; anyone can act as root");
  }
  auto verifier = auth::MakeDaemonVerifier(auth_settings);
  if (!verifier.ok()) return verifier.status();
  d->verifier_ = std::move(verifier).value();

  Recovered recovered;
  auto store = StateStore::Open(d->config_->settings.state_save_location, &recovered);
  if (!store.ok()) return store.status();
  for (const std::string& w : recovered.warnings) spdlog::warn("state: {}", w);

  auto core = std::make_unique<ControllerCore>(d->config_);
  std::optional<wire::StateSnapshot> snapshot;
  if (recovered.snapshot) {
    snapshot.emplace();
    if (!snapshot->ParseFromString(*recovered.snapshot)) {
      return Status(StatusCode::kCorruption,
                    "the newest snapshot does not parse as controller state");
    }
  }
  std::vector<wire::StateRecord> records(recovered.records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    if (!records[i].ParseFromString(recovered.records[i])) {
      return Status(StatusCode::kCorruption,
                    fmt::format("log record {} does not parse as a state change",
                                recovered.last_seq - records.size() + 1 + i));
    }
  }
  core->Restore(snapshot ? &*snapshot : nullptr, records);
  // sdiag counts from now; pass durations on the monotonic clock.
  core->sched_stats().SetClock([] {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  });
  core->sched_stats().Reset(auth::SystemUnixNow());
  spdlog::info("recovered {} jobs (next job id {}) from {}", core->job_count(), core->next_job_id(),
               d->config_->settings.state_save_location);

  auto issuer = auth::MakeIssuer(auth_settings);
  if (!issuer.ok()) return issuer.status();
  auto nudge_issuer = auth::MakeIssuer(auth_settings);
  if (!nudge_issuer.ok()) return nudge_issuer.status();
  auto messenger = std::make_unique<NodeMessenger>(d->config_, std::move(issuer).value());
  NodeMessenger* messenger_ptr = messenger.get();
  // Mails (--mail-type) go to MailProg, EpilogSlurmctld runs here; the rest
  // goes on to the node daemons.
  auto scripts = std::make_unique<SlurmctldScripts>(std::move(messenger));
  SlurmctldScripts* scripts_ptr = scripts.get();
  d->scripts_ = scripts_ptr;
  auto mail_sender =
      std::make_unique<MailSender>(MailProgram(d->config_->settings.mail_prog), std::move(scripts));
  MailSender* mail_sender_ptr = mail_sender.get();
  d->sink_ = std::move(mail_sender);
  d->loop_ = std::make_unique<StateLoop>(
      std::move(core), std::move(store).value(), d->sink_.get(),
      [] { return static_cast<int64_t>(std::time(nullptr)); },
      StateLoop::Options{.follow_clock_steps = true});
  // A PrologSlurmctld's outcome is a command like any other: the launch, or
  // the requeue, follows on the loop.
  StateLoop* loop_for_prologs = d->loop_.get();
  scripts_ptr->SetPrologDone([loop_for_prologs](uint32_t job_id, uint32_t run, bool ok) {
    loop_for_prologs->Enqueue(
        [job_id, run, ok](ControllerCore& core, int64_t now, Effects& effects) -> StateLoop::Reply {
          core.PrologSlurmctldDone(job_id, run, ok, now, effects);
          return [] {};
        });
  });
  if (AccountingEnabled(*d->config_)) {
    auto outbox = OpenControllerOutbox(*d->config_, &d->outbox_files_);
    if (!outbox.ok()) return outbox.status();
    d->outbox_ = std::move(outbox).value();
    d->loop_->SetAccountingSink(d->outbox_.get());
    d->outbox_->Start();
  }
  d->loop_->Start();
  // The policy table is fetched for what reads it: enforcement,
  // preempt/qos's Preempt lists, and PrivateData (operators see all).
  if (AccountingEnabled(*d->config_) &&
      (Enforcement::FromSettings(d->config_->settings.accounting_storage_enforce).any() ||
       d->config_->settings.preempt_type == conf::kPreemptQos ||
       !d->config_->settings.private_data.empty())) {
    auto policy_issuer = auth::MakeIssuer(auth_settings);
    if (!policy_issuer.ok()) return policy_issuer.status();
    const std::string host = api::AccountingStorageAddress(d->config_->settings);
    StateLoop* loop = d->loop_.get();
    d->policy_fetcher_ = std::make_unique<PolicyFetcher>(
        std::make_unique<RpcPolicySource>(host, d->config_->settings.accounting_storage_port,
                                          std::move(policy_issuer).value()),
        [loop](wire::PolicyState state) {
          loop->Enqueue([state = std::move(state)](ControllerCore& core, int64_t now,
                                                   Effects& effects) mutable -> StateLoop::Reply {
            state.set_fetched_at(now);
            if (core.SetPolicy(std::move(state), effects)) {
              spdlog::info("accounting policy: new table from rotadbd in force");
            }
            return [] {};
          });
        },
        kPolicyRefresh);
    d->policy_fetcher_->Start();
  }
  if (AccountingEnabled(*d->config_) && d->config_->settings.scheduler.rota_predict_runtime) {
    auto issuer = auth::MakeIssuer(auth_settings);
    if (!issuer.ok()) return issuer.status();
    const std::string host = api::AccountingStorageAddress(d->config_->settings);
    const uint16_t port = d->config_->settings.accounting_storage_port;
    const std::string cluster = d->config_->settings.cluster_name;
    const int64_t since = static_cast<int64_t>(std::time(nullptr)) - kHistoryDays * 86400;
    StateLoop* loop = d->loop_.get();
    d->runtime_history_ = std::make_unique<RuntimeHistoryFetcher>(
        [host, port, cluster, since,
         issuer = std::shared_ptr<auth::CredentialIssuer>(std::move(issuer).value())] {
          return QueryEndedRuns(host, port, *issuer, cluster, since);
        },
        [loop](wire::QueryJobsResponse runs) {
          loop->Enqueue([runs = std::move(runs)](ControllerCore& core, int64_t,
                                                 Effects&) -> StateLoop::Reply {
            core.LearnRuntimes(runs);
            return [] {};
          });
        },
        std::chrono::seconds(30));
    d->runtime_history_->Start();
  }
  d->service_ = std::make_unique<ControllerService>(
      *d->loop_, *d->verifier_, SlurmUserUid(d->config_->settings.slurm_user),
      options.slurm_conf_path,
      [daemon = d.get(), messenger_ptr,
       mail_sender_ptr](std::shared_ptr<const conf::ClusterConfig> config) {
        mail_sender_ptr->SetProgram(MailProgram(config->settings.mail_prog));
        messenger_ptr->SetConfig(config);
        // Configless nodes learn of the new files when they register.
        if (config->settings.enable_configless) daemon->AskNodesToRegister(config);
      });
  auto served_files = ReadServedConfigFiles(*d->config_);
  if (!served_files.ok()) return served_files.status();
  if (*served_files) {
    spdlog::info("configless: serving {} configuration files", (*served_files)->files_size());
  }
  d->service_->SetConfigFiles(*served_files);
  if (!auth_settings.jwt_key_path.empty()) {
    // MakeDaemonVerifier has read it already; a key that went since is an error.
    auto jwt_key = auth::LoadJwtKey(auth_settings.jwt_key_path);
    if (!jwt_key.ok()) return jwt_key.status();
    d->service_->SetJwtKey(std::move(jwt_key).value());
  }
  if (PolicyFetcher* fetcher = d->policy_fetcher_.get()) {
    d->service_->SetPolicyChangedListener(
        [fetcher](std::function<void()> read) { fetcher->Wake(std::move(read)); });
  }

  rpc::ServerOptions server_options;
  server_options.address = ControllerListenAddress(*d->config_, options.controller_index);
  server_options.port = d->config_->settings.slurmctld_port;
  server_options.io_threads = options.io_threads;
  ROTA_RETURN_IF_ERROR(
      api::ApplyTransportLimits(api::ControllerBodyLimits(), d->verifier_.get(), &server_options));
  ControllerService* service = d->service_.get();
  auto server = rpc::RpcServer::Start(
      server_options, [service](const rpc::RequestContext& c, std::string body, rpc::Responder r) {
        service->Handle(c, std::move(body), std::move(r));
      });
  if (!server.ok()) return server.status();
  d->server_ = std::move(server).value();
  spdlog::info("rotactld listening on {}:{} (at most {} connections, {} per peer address)",
               server_options.address, d->server_->port(), d->server_->max_connections(),
               server_options.max_connections_per_peer);
  // Listening: the nodes' registrations can be taken from now on.
  d->auth_settings_ = auth_settings;
  d->nudge_ = std::make_unique<RegistrationNudge>(d->config_, std::move(nudge_issuer).value());
  d->nudge_->Start();
  return d;
}

void ControllerDaemon::AskNodesToRegister(std::shared_ptr<const conf::ClusterConfig> config) {
  auto issuer = auth::MakeIssuer(auth_settings_);
  if (!issuer.ok()) {
    spdlog::warn("cannot ask the nodes to register: {}", issuer.status().message());
    return;
  }
  std::lock_guard<std::mutex> lock(nudge_mu_);
  if (stopped_) return;
  if (nudge_) nudge_->Stop();
  nudge_ = std::make_unique<RegistrationNudge>(std::move(config), std::move(issuer).value());
  nudge_->Start();
}

Status ControllerDaemon::Reload() {
  std::promise<Status> reloaded;
  service_->ReloadConfiguration([&reloaded](const Status& done) { reloaded.set_value(done); });
  return reloaded.get_future().get();
}

void ControllerDaemon::Stop() {
  {
    std::lock_guard<std::mutex> lock(nudge_mu_);
    stopped_ = true;
    if (nudge_) nudge_->Stop();
  }
  if (server_) server_->Stop();
  if (policy_fetcher_) policy_fetcher_->Stop();
  runtime_history_.reset();  // Before the loop it delivers to
  // Prologs still running must not reach a loop that is going away.
  if (scripts_ != nullptr) scripts_->SetPrologDone(nullptr);
  if (loop_) loop_->Stop();
  if (outbox_) outbox_->Stop();
}

ControllerDaemon::~ControllerDaemon() { Stop(); }

}  // namespace rota::ctld
