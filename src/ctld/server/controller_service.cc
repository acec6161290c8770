#include "ctld/server/controller_service.h"

#include <grp.h>
#include <pwd.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "api/methods.h"
#include "common/log.h"
#include "conf/config_loader.h"
#include "ctld/core/fairshare_privacy.h"
#include "ctld/core/submit_checks.h"
#include "ctld/server/job_filter.h"
#include "model/job_launch.h"
#include "model/job_payload.h"
#include "model/record_projection.h"
#include "model/wire_encoding.h"
#include "step_rpc.pb.h"

namespace rota::ctld {
namespace {

// Parses `body` as a Req, or answers the client that it could not.
template <typename Req>
bool ParseOrFail(const std::string& body, Req& req, const rpc::Responder& respond) {
  if (req.ParseFromString(body)) return true;
  respond.Fail(InvalidArgument("malformed request"));
  return false;
}

void Answer(const rpc::Responder& respond, const google::protobuf::MessageLite& message) {
  respond(0, message.SerializeAsString());
}

// A ListJobsResponse, encoded straight from the shared records: copying
// 100,000 records into a response message first would double the work and
// the memory. (Field 1 `jobs` is length-delimited, field 2 `now` a varint.)
// With a projection in the request, each record carries only the fields the
// client will read: most of a listing's bytes are fields squeue never shows.
// `only_uid`: PrivateData=jobs hides the jobs of every other user.
std::string EncodeJobList(const JobView& view, const wire::ListJobsRequest& req, int64_t now,
                          std::optional<uint32_t> only_uid,
                          const wire::StartForecastRatios& forecast) {
  std::string out;
  const model::JobFieldSet fields = model::JobFieldSet::FromRequest(req);
  std::string whole;  // One record serialized, reused.
  for (const auto& job : view) {
    if (only_uid && job->spec().uid() != *only_uid) continue;
    if (!JobMatches(*job, req)) continue;
    if (fields.empty()) {
      model::AppendMessageField(out, wire::ListJobsResponse::kJobsFieldNumber, *job);
      continue;
    }
    whole.clear();
    job->AppendToString(&whole);
    // Our own bytes: always well-formed.
    model::AppendProjectedRecordField(wire::ListJobsResponse::kJobsFieldNumber, whole, fields, out);
  }
  model::AppendVarintField(out, wire::ListJobsResponse::kNowFieldNumber,
                           static_cast<uint64_t>(now));
  if (forecast.samples() > 0) {
    model::AppendMessageField(out, wire::ListJobsResponse::kForecastFieldNumber, forecast);
  }
  return out;
}

std::string NameOrNumber(bool found, const char* name, uint32_t id) {
  return found && name != nullptr ? std::string(name) : std::to_string(id);
}

wire::NodeInfo DescribeNode(const NodeTable& table, const NodeRuntime& n,
                            const conf::ClusterConfig& config) {
  wire::NodeInfo info;
  *info.mutable_record() = table.ToRecord(n);
  const conf::NodeConfig& c = *n.config;
  info.set_cpus(c.cpus);
  info.set_alloc_cpus(n.alloc_cpus);
  info.set_real_memory_mb(c.real_memory_mb);
  info.set_alloc_mem_mb(n.alloc_mem_mb);
  info.set_gres(FormatGresList(c.gres));
  std::string used;
  for (const auto& [type, count] : n.alloc_gpus) {
    if (!used.empty()) used += ",";
    used += type.empty() ? fmt::format("gpu:{}", count) : fmt::format("gpu:{}:{}", type, count);
  }
  info.set_gres_used(used);
  for (const conf::PartitionConfig& p : config.partitions) {
    if (std::find(p.nodes.begin(), p.nodes.end(), c.name) != p.nodes.end())
      info.add_partitions(p.name);
  }
  for (const std::string& f : c.features) info.add_features(f);
  info.set_sockets(c.sockets);
  info.set_cores_per_socket(c.cores_per_socket);
  info.set_threads_per_core(c.threads_per_core);
  info.set_boards(c.boards);
  info.set_weight(c.weight);
  info.set_boot_time(n.boot_time);
  info.set_address(c.address);
  info.set_hostname(c.hostname);
  info.set_port(c.port);
  return info;
}

// "IDLE*" + "MAINT" -> "IDLE+MAINT*": the flag before the not-responding mark.
void AddStateFlag(wire::NodeRecord& record, std::string_view flag) {
  std::string state = record.state();
  size_t mark = state.find_first_of("*~#");
  std::string tail = mark == std::string::npos ? "" : state.substr(mark);
  state = state.substr(0, mark) + "+" + std::string(flag) + tail;
  record.set_state(state);
}

}  // namespace

ControllerService::ControllerService(StateLoop& loop, auth::CredentialVerifier& verifier,
                                     uint32_t slurm_user_uid, std::string slurm_conf_path,
                                     ConfigListener on_reconfigure)
    : loop_(loop),
      verifier_(verifier),
      slurm_user_uid_(slurm_user_uid),
      slurm_conf_path_(std::move(slurm_conf_path)),
      on_reconfigure_(std::move(on_reconfigure)) {}

Caller ControllerService::ResolveCaller(const auth::Identity& id) {
  Caller caller;
  caller.uid = id.uid;
  caller.gid = id.gid;
  caller.privileged = id.uid == 0 || id.uid == slurm_user_uid_;
  std::lock_guard<std::mutex> lock(names_mu_);
  auto user_it = user_names_.find(id.uid);
  if (user_it == user_names_.end()) {
    passwd pw{};
    passwd* found = nullptr;
    std::vector<char> buf(16384);
    getpwuid_r(id.uid, &pw, buf.data(), buf.size(), &found);
    user_it = user_names_.emplace(id.uid, NameOrNumber(found != nullptr, pw.pw_name, id.uid)).first;
  }
  auto group_it = group_names_.find(id.gid);
  if (group_it == group_names_.end()) {
    struct group gr {};
    struct group* found = nullptr;
    std::vector<char> buf(16384);
    getgrgid_r(id.gid, &gr, buf.data(), buf.size(), &found);
    group_it =
        group_names_.emplace(id.gid, NameOrNumber(found != nullptr, gr.gr_name, id.gid)).first;
  }
  caller.user = user_it->second;
  caller.group = group_it->second;
  return caller;
}

void ControllerService::Handle(const rpc::RequestContext& context, std::string body,
                               rpc::Responder respond) {
  RpcStats::Timer timed(rpc_stats_, context.method);
  Result<auth::Identity> id = verifier_.Verify(
      context.credential, auth::RpcBindingBytes(context.method, body), auth::SystemUnixNow());
  if (!id.ok()) {
    spdlog::warn("refused request {} from {}: {}", context.method, context.peer,
                 id.status().message());
    respond.Fail(id.status());
    return;
  }
  Caller caller = ResolveCaller(*id);
  timed.SetCaller(caller.uid, caller.user);

  switch (context.method) {
    case api::kPing: {
      wire::PingResponse pong;
      pong.set_refusing_changes(loop_.refusing_changes());
      Answer(respond, pong);
      return;
    }
    case api::kFetchConfig:
      // Any user: commands on a login host without slurm.conf ask too, and
      // slurm.conf is readable by all where it is a file.
      if (ServedConfigFiles files = config_files()) {
        Answer(respond, *files);
      } else {
        respond.Fail(
            Status(StatusCode::kFailedPrecondition,
                   "configless mode is not enabled (SlurmctldParameters=enable_configless)"));
      }
      return;
    case api::kTakeover:  // scontrol takeover to the controller in control: nothing to do.
      if (!caller.privileged) {
        respond.Fail(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
      } else {
        Answer(respond, wire::Empty());
      }
      return;
    case api::kSubmitJob: {
      wire::SubmitJobRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      // Pack the script and environment here, on an RPC thread, not on the loop.
      wire::JobPayload payload;
      req.set_script_bytes(req.spec().script().size());
      req.set_environment_bytes(EnvironmentBytes(req.spec()));
      payload.set_script(std::move(*req.mutable_spec()->mutable_script()));
      payload.mutable_environment()->Swap(req.mutable_spec()->mutable_environment());
      req.mutable_spec()->clear_script();
      req.mutable_spec()->clear_environment();
      req.set_packed_payload(model::PackPayload(payload));
      // A held job waits for a release (which asks for its own pass), and a
      // --test-only one is not kept: neither can start anything now.
      const bool can_start = !req.spec().hold() && !req.test_only();
      StateLoop::Work work = [req = std::move(req), caller, respond](
                                 ControllerCore& core, int64_t now,
                                 Effects& effects) -> StateLoop::Reply {
        auto result = std::make_shared<Result<wire::SubmitJobResponse>>(
            core.Submit(req, caller, now, effects));
        return [result, respond] {
          if (result->ok()) {
            Answer(respond, **result);
          } else {
            respond.Fail(result->status());
          }
        };
      };
      if (can_start) {
        loop_.Enqueue(std::move(work), RefuseThrough(respond));
      } else {
        loop_.EnqueueWithoutPass(std::move(work), RefuseThrough(respond));
      }
      return;
    }
    case api::kListJobs: {
      wire::ListJobsRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      loop_.EnqueueRead([this, req = std::move(req), caller, respond](
                            ControllerCore& core, int64_t now, Effects&) -> StateLoop::Reply {
        std::shared_ptr<const JobView> view = core.PublishJobs();
        const std::optional<uint32_t> only_uid = core.JobsVisibleOnlyTo(caller);
        wire::StartForecastRatios forecast = core.StartForecastRatios();
        return [this, view, req, respond, now, only_uid, forecast] {
          readers_.Post([view, req, respond, now, only_uid, forecast] {
            respond(0, EncodeJobList(*view, req, now, only_uid, forecast));
          });
        };
      });
      return;
    }
    case api::kSignalJobs: {
      wire::SignalJobsRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      loop_.Enqueue(
          [req = std::move(req), caller, respond](ControllerCore& core, int64_t now,
                                                  Effects& effects) -> StateLoop::Reply {
            auto out = std::make_shared<wire::SignalJobsResponse>(
                core.SignalJobs(req, caller, now, effects));
            return [out, respond] { Answer(respond, *out); };
          },
          RefuseThrough(respond));
      return;
    }
    case api::kUpdateJob: {
      wire::UpdateJobRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      loop_.Enqueue(
          [req = std::move(req), caller, respond](ControllerCore& core, int64_t now,
                                                  Effects& effects) -> StateLoop::Reply {
            auto out = std::make_shared<wire::UpdateJobResponse>(
                core.UpdateJobs(req, caller, now, effects));
            return [out, respond] { Answer(respond, *out); };
          },
          RefuseThrough(respond));
      return;
    }
    case api::kUpdateNode: {
      wire::UpdateNodeRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      loop_.Enqueue(
          [req = std::move(req), caller, respond](ControllerCore& core, int64_t now,
                                                  Effects& effects) -> StateLoop::Reply {
            Status s = core.UpdateNodes(req, caller, now, effects);
            return [s, respond] {
              if (s.ok()) {
                Answer(respond, wire::Empty());
              } else {
                respond.Fail(s);
              }
            };
          },
          RefuseThrough(respond));
      return;
    }
    case api::kListNodes: {
      loop_.EnqueueRead([respond](ControllerCore& core, int64_t now, Effects&) -> StateLoop::Reply {
        auto out = std::make_shared<wire::ListNodesResponse>();
        out->set_now(now);
        for (const NodeRuntime& n : core.nodes().nodes()) {
          wire::NodeInfo& info = *out->add_nodes();
          info = DescribeNode(core.nodes(), n, core.config());
          // In an active reservation: IDLE+RESERVED (sinfo "resv") or +MAINT.
          std::string_view flag =
              core.reservations().StateFlagOf(n.config->name, now, n.alloc_cpus == 0);
          if (!flag.empty()) AddStateFlag(*info.mutable_record(), flag);
        }
        return [out, respond] { Answer(respond, *out); };
      });
      return;
    }
    case api::kReconfigure:
      Reconfigure(caller, respond);
      return;
    case api::kPolicyChanged:
      // sacctmgr's, after a change that rotadbd takes from root and SlurmUser
      // only: nobody else has a change to announce, and each call costs a
      // read of rotadbd. The answer waits until the state loop has taken in
      // what that read found, so that the next command after sacctmgr's is
      // judged by the new limits.
      if (!caller.privileged) {
        respond.Fail(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
        return;
      }
      if (!on_policy_changed_) {
        Answer(respond, wire::Empty());
        return;
      }
      on_policy_changed_([this, respond] {
        loop_.EnqueueRead([respond](ControllerCore&, int64_t, Effects&) -> StateLoop::Reply {
          return [respond] { Answer(respond, wire::Empty()); };
        });
      });
      return;
    case api::kDiag:
      Diag(caller, body, respond);
      return;
    case api::kIssueToken:
      IssueToken(caller, body, respond);
      return;
    case api::kListPriorities: {
      wire::PriorityRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      loop_.EnqueueRead([req = std::move(req), caller, respond](ControllerCore& core, int64_t now,
                                                                Effects&) -> StateLoop::Reply {
        auto out = std::make_shared<wire::PriorityResponse>(core.DescribePriorities(req, now));
        // PrivateData=jobs: sprio shows an ordinary user their own jobs only.
        if (core.JobsVisibleOnlyTo(caller)) {
          auto* rows = out->mutable_rows();
          rows->erase(std::remove_if(
                          rows->begin(), rows->end(),
                          [&](const wire::PriorityRow& row) { return row.user() != caller.user; }),
                      rows->end());
        }
        return [out, respond] { Answer(respond, *out); };
      });
      return;
    }
    case api::kExplainJob: {
      wire::WhyRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      loop_.EnqueueRead(
          [req, caller, respond](ControllerCore& core, int64_t now, Effects&) -> StateLoop::Reply {
            Result<wire::WhyResponse> why = core.ExplainJob(req.job_id(), now);
            std::optional<uint32_t> only = core.JobsVisibleOnlyTo(caller);
            const wire::JobRecord* job = core.FindJob(req.job_id());
            // PrivateData=jobs: another user's job is not there, and the jobs of
            // others ahead of one's own are shown without their owners.
            if (why.ok() && only && job != nullptr && job->spec().uid() != *only) {
              why = NotFound("Invalid job id specified");
            }
            if (!why.ok()) {
              return [status = why.status(), respond] { respond.Fail(status); };
            }
            auto out = std::make_shared<wire::WhyResponse>(std::move(*why));
            if (only) {
              for (wire::WhyJobAhead& a : *out->mutable_ahead()) {
                if (a.user() != caller.user) a.clear_user();
              }
              for (wire::WhyRelease& r : *out->mutable_releases()) {
                if (r.user() != caller.user) r.clear_user();
              }
            }
            return [out, respond] { Answer(respond, *out); };
          });
      return;
    }
    case api::kCreateReservation:
    case api::kUpdateReservation:
    case api::kDeleteReservation:
    case api::kListReservations:
      HandleReservation(context.method, caller, body, respond);
      return;
    case api::kListFairshare: {
      wire::FairshareRequest req;
      if (!ParseOrFail(body, req, respond)) return;
      loop_.EnqueueRead([req = std::move(req), caller, respond](ControllerCore& core, int64_t,
                                                                Effects&) -> StateLoop::Reply {
        auto out =
            std::make_shared<wire::FairshareResponse>(core.DescribeFairshare(req, caller.user));
        // PrivateData=usage/accounts: filtered here, by the caller's uid.
        HidePrivateShares(core.config().settings.private_data, caller, core.policy(), *out);
        return [out, respond] { Answer(respond, *out); };
      });
      return;
    }
    case api::kCreateStep:
    case api::kStepEnded:
    case api::kListSteps:
      HandleStep(context.method, caller, body, respond);
      return;
    case api::kNodeRegister:
    case api::kJobExited:
    case api::kJobGpuIdle: {
      if (!caller.privileged) {
        respond.Fail(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
        return;
      }
      if (context.method == api::kJobGpuIdle) {
        wire::JobGpuIdleRequest req;
        if (!ParseOrFail(body, req, respond)) return;
        loop_.Enqueue(
            [req = std::move(req), respond](ControllerCore& core, int64_t now,
                                            Effects& effects) -> StateLoop::Reply {
              Status s = core.GpuIdleReported(req, now, effects);
              return [s, respond] { s.ok() ? Answer(respond, wire::Empty()) : respond.Fail(s); };
            },
            RefuseThrough(respond));
      } else if (context.method == api::kNodeRegister) {
        wire::NodeRegisterRequest req;
        if (!ParseOrFail(body, req, respond)) return;
        loop_.Enqueue(
            [this, req = std::move(req), respond](ControllerCore& core, int64_t now,
                                                  Effects& effects) -> StateLoop::Reply {
              Status s = core.NodeRegistered(req, now, effects);
              std::vector<wire::GpuShare> shares;
              if (s.ok()) shares = core.GpuSharesOn(req.node());
              return [this, s, respond, shares = std::move(shares)] {
                if (!s.ok()) return respond.Fail(s);
                wire::NodeRegisterResponse answer;
                answer.mutable_gpu_shares()->Add(shares.begin(), shares.end());
                // A configless node whose copy differs fetches the files again.
                if (ServedConfigFiles files = config_files()) {
                  answer.set_config_digest(files->digest());
                }
                Answer(respond, answer);
              };
            },
            RefuseThrough(respond));
      } else {
        wire::JobExitedRequest req;
        if (!ParseOrFail(body, req, respond)) return;
        loop_.Enqueue(
            [req = std::move(req), respond](ControllerCore& core, int64_t now,
                                            Effects& effects) -> StateLoop::Reply {
              Status s = core.ReportExit(req, now, effects);
              return [s, respond] { s.ok() ? Answer(respond, wire::Empty()) : respond.Fail(s); };
            },
            RefuseThrough(respond));
      }
      return;
    }
    default:
      respond.Fail(InvalidArgument(fmt::format("unknown method {}", context.method)));
  }
}

void ControllerService::Reconfigure(const Caller& caller, rpc::Responder respond) {
  if (!caller.privileged) {
    respond.Fail(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
    return;
  }
  ReloadConfiguration([respond](const Status& done) {
    done.ok() ? Answer(respond, wire::Empty()) : respond.Fail(done);
  });
}

void ControllerService::SetConfigFiles(ServedConfigFiles files) {
  std::lock_guard<std::mutex> lock(files_mu_);
  config_files_ = std::move(files);
}

ServedConfigFiles ControllerService::config_files() const {
  std::lock_guard<std::mutex> lock(files_mu_);
  return config_files_;
}

void ControllerService::ReloadConfiguration(std::function<void(const Status&)> done) {
  // Reading files happens here, not on the state loop.
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(slurm_conf_path_, diags);
  if (!config.ok()) {
    spdlog::error("reconfigure refused; keeping the running configuration:\n{}", diags.ToString());
    done(InvalidArgument(diags.ToString() + config.status().message()));
    return;
  }
  auto files = ReadServedConfigFiles(**config);
  if (!files.ok()) {
    spdlog::error("reconfigure refused; keeping the running configuration: {}",
                  files.status().message());
    done(files.status());
    return;
  }
  loop_.Enqueue(
      [this, config = *config, files = *files, done](ControllerCore& core, int64_t,
                                                     Effects&) -> StateLoop::Reply {
        SetConfigFiles(files);  // Before the listener: it asks the nodes to register.
        core.Reconfigure(config);
        if (on_reconfigure_) on_reconfigure_(config);  // E.g. node addresses for the messenger.
        return [done] { done(Status::Ok()); };
      },
      done);
}

// Steps are not logged (step_table.h) and change no scheduling decision, so
// their work goes through the loop's read queue: no pass, no log sync.
void ControllerService::HandleStep(uint16_t method, const Caller& caller, const std::string& body,
                                   rpc::Responder respond) {
  if (method == api::kCreateStep) {
    wire::CreateStepRequest req;
    if (!ParseOrFail(body, req, respond)) return;
    loop_.EnqueueRead([req = std::move(req), caller, respond](
                          ControllerCore& core, int64_t now, Effects& effects) -> StateLoop::Reply {
      auto out = std::make_shared<Result<wire::CreateStepResponse>>(
          core.CreateStep(req, caller, now, effects));
      return [out, respond] { out->ok() ? Answer(respond, **out) : respond.Fail(out->status()); };
    });
  } else if (method == api::kStepEnded) {
    wire::StepEndedRequest req;
    if (!ParseOrFail(body, req, respond)) return;
    loop_.EnqueueRead([req = std::move(req), caller, respond](
                          ControllerCore& core, int64_t now, Effects& effects) -> StateLoop::Reply {
      Status s = core.EndStep(req, caller, now, effects);
      return [s, respond] { s.ok() ? Answer(respond, wire::Empty()) : respond.Fail(s); };
    });
  } else {
    wire::ListStepsRequest req;
    if (!ParseOrFail(body, req, respond)) return;
    loop_.EnqueueRead([req = std::move(req), caller, respond](ControllerCore& core, int64_t now,
                                                              Effects&) -> StateLoop::Reply {
      core.PruneSteps();
      auto out = std::make_shared<wire::ListStepsResponse>();
      out->set_now(now);
      // PrivateData=jobs: other users' steps and jobs are not listed.
      const std::optional<uint32_t> only_uid = core.JobsVisibleOnlyTo(caller);
      for (wire::JobStepRecord& step : core.steps().List(req)) {
        if (only_uid && step.uid() != *only_uid) continue;
        *out->add_steps() = std::move(step);
      }
      if (req.with_jobs()) {
        for (uint32_t id : req.job_ids()) {
          if (const wire::JobRecord* job = core.FindJob(id);
              job != nullptr && (!only_uid || job->spec().uid() == *only_uid)) {
            wire::JobLaunch& copy = *out->add_jobs() = model::LaunchOf(*job);
            copy.mutable_spec()->clear_script();
            copy.mutable_spec()->clear_environment();
          }
        }
      }
      return [out, respond] { Answer(respond, *out); };
    });
  }
}

}  // namespace rota::ctld
