#include "rest/slurm_api.h"

#include "api/methods.h"
#include "cli/query/squeue_json.h"
#include "cli/signal_names.h"
#include "common/strings.h"
#include "diag.pb.h"

namespace rota::rest {
namespace {

constexpr ApiFlavor kFlavor = ApiFlavor::kSlurm;

std::string Path(std::string_view tail) { return std::string(kSlurmPrefix) + std::string(tail); }

HttpResponse Ping(const HttpRequest&, const PathParams&, Backend& backend) {
  Json out = Envelope(kFlavor);
  const auto& controllers = backend.config().settings.controllers;
  Result<std::string> pong = backend.CallController(api::kPing, wire::Empty());
  Json pings = Json::array();
  for (size_t i = 0; i < controllers.size(); ++i) {
    // The client tries the controllers in order; the first that answers is
    // the one up. Rota has no backup controller yet, so that is the first.
    const bool up = pong.ok() && i == 0;
    pings.push_back({{"hostname", controllers[i].name},
                     {"ping", up ? "UP" : "DOWN"},
                     {"status", up ? 0 : -1},
                     {"mode", i == 0 ? "primary" : "backup"}});
  }
  out["pings"] = std::move(pings);
  if (!pong.ok()) {
    out["errors"].push_back({{"error", pong.status().message()}, {"errno", kSlurmError}});
  }
  return JsonAnswer(out);
}

HttpResponse Diag(const HttpRequest&, const PathParams&, Backend& backend) {
  auto diag =
      ParseAnswer<wire::DiagResponse>(backend.CallController(api::kDiag, wire::DiagRequest()));
  if (!diag.ok()) return StatusAnswer(kFlavor, diag.status());
  const wire::DiagResponse& d = *diag;
  Json stats;
  stats["parts_packed"] = backend.config().partitions.size();
  stats["req_time"] = d.now();
  stats["req_time_start"] = d.data_since();
  stats["server_thread_count"] = d.server_thread_count();
  stats["agent_queue_size"] = d.agent_queue_size();
  stats["agent_count"] = d.agent_count();
  stats["agent_thread_count"] = d.agent_thread_count();
  stats["dbd_agent_queue_size"] = d.dbd_agent_queue_size();
  stats["gettimeofday_latency"] = d.gettimeofday_latency_us();
  stats["schedule_cycle_max"] = d.schedule_cycle_max();
  stats["schedule_cycle_last"] = d.schedule_cycle_last();
  stats["schedule_cycle_total"] = d.schedule_cycle_counter();
  stats["schedule_cycle_mean"] = d.schedule_cycle_mean();
  stats["schedule_cycle_mean_depth"] = d.schedule_cycle_mean_depth();
  const int64_t minutes = std::max<int64_t>(1, (d.now() - d.data_since()) / 60);
  stats["schedule_cycle_per_minute"] = d.schedule_cycle_counter() / minutes;
  stats["schedule_queue_length"] = d.schedule_queue_len();
  stats["jobs_submitted"] = d.jobs_submitted();
  stats["jobs_started"] = d.jobs_started();
  stats["jobs_completed"] = d.jobs_completed();
  stats["jobs_canceled"] = d.jobs_canceled();
  stats["jobs_failed"] = d.jobs_failed();
  stats["jobs_pending"] = d.jobs_pending();
  stats["jobs_running"] = d.jobs_running();
  stats["job_states_ts"] = d.job_states_time();
  stats["bf_backfilled_jobs"] = d.bf_backfilled_jobs();
  stats["bf_last_backfilled_jobs"] = d.bf_last_backfilled_jobs();
  stats["bf_backfilled_het_jobs"] = 0;
  stats["bf_cycle_counter"] = d.bf_cycle_counter();
  stats["bf_cycle_mean"] = d.bf_cycle_mean();
  stats["bf_cycle_max"] = d.bf_cycle_max();
  stats["bf_last_depth"] = d.bf_last_depth();
  stats["bf_last_depth_try"] = d.bf_last_depth_try();
  stats["bf_depth_mean"] = d.bf_depth_mean();
  stats["bf_depth_mean_try"] = d.bf_depth_mean_try();
  stats["bf_cycle_last"] = d.bf_cycle_last();
  stats["bf_queue_len"] = d.bf_queue_len();
  stats["bf_queue_len_mean"] = d.bf_queue_len_mean();
  stats["bf_when_last_cycle"] = d.bf_when_last_cycle();
  stats["bf_active"] = false;
  Json out = Envelope(kFlavor);
  out["statistics"] = std::move(stats);
  return JsonAnswer(out);
}

Result<wire::ListJobsResponse> ListJobs(Backend& backend, const std::string& job_id) {
  wire::ListJobsRequest req;
  if (!job_id.empty()) {
    req.add_job_ids(job_id);
    req.set_include_finished(true);
  }
  return ParseAnswer<wire::ListJobsResponse>(backend.CallController(api::kListJobs, req));
}

HttpResponse GetJobs(const HttpRequest& request, const PathParams& params, Backend& backend) {
  auto it = params.find("job_id");
  const std::string job_id = it == params.end() ? "" : it->second;
  if (!job_id.empty() && !ParseUint(Split(job_id, '_')[0])) {
    return ErrorAnswer(kFlavor, 400, "Invalid job id specified: " + job_id, kEslurmInvalidJobId);
  }
  int64_t since = 0;
  if (auto u = request.query.find("update_time"); u != request.query.end()) {
    std::optional<uint64_t> t = ParseUint(u->second);
    if (!t)
      return ErrorAnswer(kFlavor, 400, "Invalid update_time: " + u->second,
                         kEslurmRestInvalidQuery);
    since = static_cast<int64_t>(*t);
  }
  auto jobs = ListJobs(backend, job_id);
  if (!jobs.ok()) return StatusAnswer(kFlavor, jobs.status(), kEslurmInvalidJobId);
  if (!job_id.empty() && jobs->jobs().empty()) {
    return ErrorAnswer(kFlavor, 404, "Invalid job id specified", kEslurmInvalidJobId);
  }
  Json out = Envelope(kFlavor);
  Json list = Json::array();
  for (const wire::JobRecord& j : jobs->jobs()) {
    // update_time: Rota keeps no per-job change time; a job whose submit,
    // start or end is after it counts as changed.
    if (since > 0 && std::max({j.submit_time(), j.start_time(), j.end_time()}) < since) continue;
    list.push_back(cli::JobJson(j, jobs->now()));
  }
  out["jobs"] = std::move(list);
  return JsonAnswer(out);
}

// The answer to a change: an envelope, with the controller's per-job
// refusals as errors (and a failing status when there are any).
HttpResponse ChangeAnswer(const Result<std::string>& status_of_call,
                          const google::protobuf::RepeatedPtrField<std::string>& errors) {
  if (!status_of_call.ok())
    return StatusAnswer(kFlavor, status_of_call.status(), kEslurmInvalidJobId);
  Json out = Envelope(kFlavor);
  for (const std::string& e : errors) {
    const bool unknown = e.find("Invalid job id") != std::string::npos;
    out["errors"].push_back(
        {{"error", e}, {"errno", unknown ? kEslurmInvalidJobId : kEslurmAccessDenied}});
  }
  return JsonAnswer(out, errors.empty() ? 200 : 500);
}

HttpResponse CancelJob(const HttpRequest& request, const PathParams& params, Backend& backend) {
  wire::SignalJobsRequest req;
  req.add_job_ids(params.at("job_id"));
  if (auto s = request.query.find("signal"); s != request.query.end()) {
    std::optional<int> signal = cli::ParseSignal(s->second);
    if (!signal) {
      return ErrorAnswer(kFlavor, 400, "Invalid signal: " + s->second, kEslurmRestInvalidQuery);
    }
    // KILL is slurmrestd's cancel; any other signal is delivered as such.
    if (*signal != 9) req.set_signal(*signal);
  }
  // slurmrestd signals the whole job, batch script included (scancel -f).
  req.set_full(true);
  Result<std::string> body = backend.CallController(api::kSignalJobs, req);
  auto answer = ParseAnswer<wire::SignalJobsResponse>(body);
  if (!answer.ok()) return StatusAnswer(kFlavor, answer.status(), kEslurmInvalidJobId);
  return ChangeAnswer(body, answer->errors());
}

// v0.0.38_job_properties names to scontrol update's keys.
constexpr std::pair<std::string_view, std::string_view> kUpdatable[] = {
    {"account", "Account"},
    {"comment", "Comment"},
    {"constraints", "Features"},
    {"dependency", "Dependency"},
    {"name", "Name"},
    {"nice", "Nice"},
    {"partition", "Partition"},
    {"priority", "Priority"},
    {"qos", "QOS"},
    {"reservation", "Reservation"},
    {"time_limit", "TimeLimit"},
    {"wckey", "WCKey"},
    {"begin_time", "StartTime"},
};

HttpResponse UpdateJob(const HttpRequest& request, const PathParams& params, Backend& backend) {
  Result<Json> body = ParseJsonBody(request);
  if (!body.ok()) return ErrorAnswer(kFlavor, 400, body.status().message(), kEslurmRestFailParsing);
  // Both {"job": {...}} and the properties themselves are taken.
  const Json& props = body->contains("job") && (*body)["job"].is_object() ? (*body)["job"] : *body;
  wire::UpdateJobRequest req;
  req.add_job_ids(params.at("job_id"));
  for (const auto& [name, value] : props.items()) {
    if (name == "hold") {
      if (!value.is_boolean()) {
        return ErrorAnswer(kFlavor, 400, "hold must be true or false", kEslurmRestFailParsing);
      }
      req.set_action(value.get<bool>() ? "hold" : "release");
      continue;
    }
    auto key = std::find_if(std::begin(kUpdatable), std::end(kUpdatable),
                            [&](const auto& k) { return k.first == name; });
    if (key == std::end(kUpdatable)) {
      return ErrorAnswer(kFlavor, 400, "job property " + name + " cannot be updated",
                         kEslurmRestFailParsing);
    }
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_number_integer()) {
      text = std::to_string(value.get<int64_t>());
    } else {
      return ErrorAnswer(kFlavor, 400, "job property " + name + " must be a string or an integer",
                         kEslurmRestFailParsing);
    }
    (*req.mutable_fields())[std::string(key->second)] = text;
  }
  if (req.fields().empty() && req.action().empty()) {
    return ErrorAnswer(kFlavor, 400, "nothing to update", kEslurmRestFailParsing);
  }
  Result<std::string> answer_body = backend.CallController(api::kUpdateJob, req);
  auto answer = ParseAnswer<wire::UpdateJobResponse>(answer_body);
  if (!answer.ok()) return StatusAnswer(kFlavor, answer.status(), kEslurmInvalidJobId);
  return ChangeAnswer(answer_body, answer->errors());
}

}  // namespace

void AddSlurmRoutes(Router& router) {
  router.Add("GET", Path("/ping/"), Ping);
  router.Add("GET", Path("/diag/"), Diag);
  router.Add("GET", Path("/jobs/"), GetJobs);
  router.Add("GET", Path("/job/{job_id}"), GetJobs);
  router.Add("POST", Path("/job/submit"), SubmitJob);
  router.Add("POST", Path("/job/{job_id}"), UpdateJob);
  router.Add("DELETE", Path("/job/{job_id}"), CancelJob);
  router.Add("GET", Path("/nodes/"), GetNodes);
  router.Add("GET", Path("/node/{node_name}"), GetNodes);
  router.Add("GET", Path("/partitions/"), GetPartitions);
  router.Add("GET", Path("/partition/{partition_name}"), GetPartitions);
  router.Add("GET", Path("/reservations/"), GetReservations);
  router.Add("GET", Path("/reservation/{reservation_name}"), GetReservations);
}

}  // namespace rota::rest
