#include "rest/slurmdb_jobs.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "cli/accounting/sacct_json.h"
#include "cli/event_time.h"
#include "cli/job_state_names.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "common/user_names.h"
#include "model/job_state.h"

namespace rota::rest {
namespace {

Status BadValue(std::string_view key, std::string_view why) {
  return InvalidArgument(fmt::format("{}: {}", key, why));
}

// Slurm's job state numbers (enum job_states), which slurmrestd takes as
// well as the names.
constexpr std::array<std::string_view, 12> kSlurmStateByNumber = {
    "PENDING", "RUNNING",   "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
    "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY"};

// A point in time: Unix seconds, or one of sacct's forms.
Result<int64_t> ParseTime(std::string_view key, std::string_view value, int64_t now) {
  if (std::optional<uint64_t> seconds = ParseUint(value); seconds && *seconds <= INT64_MAX) {
    return static_cast<int64_t>(*seconds);
  }
  Result<int64_t> t = cli::ParseEventTime(value, now);
  if (!t.ok()) return BadValue(key, fmt::format("unable to parse time '{}'", value));
  return *t;
}

Result<int64_t> ParseInteger(std::string_view key, std::string_view value) {
  std::optional<int64_t> n = ParseInt(value);
  if (!n) return BadValue(key, fmt::format("'{}' is not an integer", value));
  return *n;
}

Result<bool> ParseBoolean(std::string_view key, std::string_view value) {
  std::optional<bool> b = ParseBool(value);
  if (!b) return BadValue(key, fmt::format("'{}' is not a boolean", value));
  return *b;
}

// state=: names (either form, any case) or Slurm's numbers.
Status AddStates(std::string_view value, JobsFilter& f) {
  bool any_state_rota_gives = false;
  for (const std::string& piece : SplitCommaList(value)) {
    std::string name = piece;
    if (std::optional<uint64_t> n = ParseUint(piece)) {
      if (*n >= kSlurmStateByNumber.size()) {
        return BadValue("state", fmt::format("unknown job state {}", piece));
      }
      name = std::string(kSlurmStateByNumber[*n]);
    } else if (!cli::IsSacctStateName(piece)) {
      return BadValue("state", fmt::format("unknown job state {}", piece));
    }
    wire::JobState state;
    if (model::ParseJobState(name, &state)) {
      f.request.add_states(state);
      any_state_rota_gives = true;
    }
  }
  // Only states Rota never gives a job (REVOKED, ...): no job matches.
  if (!any_state_rota_gives) f.matches_none = true;
  return Status::Ok();
}

void AddAll(google::protobuf::RepeatedPtrField<std::string>* out, std::string_view value) {
  for (std::string& piece : SplitCommaList(value)) out->Add(std::move(piece));
}

void AddAll(std::vector<std::string>& out, std::string_view value) {
  for (std::string& piece : SplitCommaList(value)) out.push_back(std::move(piece));
}

bool Wanted(const std::vector<std::string>& wanted, const std::string& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

bool RanOnAny(const wire::AccountingJob& job, const std::vector<std::string>& nodes) {
  if (nodes.empty()) return true;
  Result<std::vector<std::string>> ran = ExpandHostlist(job.nodelist());
  return ran.ok() && std::any_of(ran->begin(), ran->end(), [&](const std::string& n) {
           return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
         });
}

bool InRange(int64_t value, const std::optional<int64_t>& low, const std::optional<int64_t>& high) {
  return (!low || value >= *low) && (!high || value <= *high);
}

bool Kept(const wire::AccountingJob& j, const JobsFilter& f) {
  const bool group_wanted =
      Wanted(f.groups, std::to_string(j.gid())) || Wanted(f.groups, GroupNameOrNumber(j.gid()));
  return Wanted(f.names, j.name()) && Wanted(f.qos, j.qos()) && Wanted(f.wckeys, j.wckey()) &&
         Wanted(f.reasons, j.reason()) && group_wanted && RanOnAny(j, f.nodes) &&
         (!f.submitted_after || j.submit_time() >= *f.submitted_after) &&
         InRange(j.alloc_cpus(), f.cpus_min, f.cpus_max) &&
         InRange(j.alloc_nodes(), f.nodes_min, f.nodes_max) &&
         (!f.exit_code || static_cast<int64_t>((j.exit_code() >> 8) & 0xff) == *f.exit_code);
}

// The fields of dbv0.0.38's job that sacct --json leaves out.
void AddRestFields(const wire::AccountingJob& j, Json& item) {
  item["association"] = {{"account", j.account()},
                         {"cluster", j.cluster()},
                         {"partition", nullptr},
                         {"user", j.user()}};
  item["flags"] = Json::array();
  item["group"] = GroupNameOrNumber(j.gid());
  item["kill_request_user"] = j.cancelled() ? Json(UserNameOrNumber(j.cancelled_by_uid())) : Json();
  item["wckey"] = {{"wckey", j.wckey()}, {"flags", Json::array()}};
  item["working_directory"] = j.work_dir();
}

// Keeps only the steps `steps` names ("batch", "0") of a job named by step.
void KeepNamedSteps(const std::vector<std::string>& steps, Json& item) {
  Json kept = Json::array();
  for (Json& step : item["steps"]) {
    const std::string id = step["step"]["id"].get<std::string>();
    const std::string suffix = id.substr(id.find('.') + 1);
    if (std::find(steps.begin(), steps.end(), suffix) != steps.end()) {
      kept.push_back(std::move(step));
    }
  }
  item["steps"] = std::move(kept);
}

}  // namespace

Result<JobsFilter> ParseJobsQuery(const std::map<std::string, std::string>& query,
                                  std::string_view local_cluster, int64_t now) {
  JobsFilter f;
  // As slurmrestd: every attempt of a requeued job, no time window unless
  // one is asked for.
  f.request.set_all_attempts(true);
  bool start_given = false;
  for (const auto& [raw_key, value] : query) {
    const std::string key = ToLower(raw_key);
    if (key == "start_time" || key == "end_time" || key == "submit_time") {
      Result<int64_t> t = ParseTime(key, value, now);
      if (!t.ok()) return t.status();
      if (key == "end_time") {
        f.request.set_window_end(*t);
      } else if (key == "start_time") {
        f.request.set_window_start(*t);
        start_given = true;
      } else {
        f.submitted_after = *t;
      }
    } else if (key == "account") {
      AddAll(f.request.mutable_accounts(), value);
    } else if (key == "users" || key == "user") {
      AddAll(f.request.mutable_users(), value);
    } else if (key == "partition") {
      AddAll(f.request.mutable_partitions(), value);
    } else if (key == "state") {
      if (Status s = AddStates(value, f); !s.ok()) return s;
    } else if (key == "cluster") {
      std::vector<std::string> clusters = SplitCommaList(value);
      if (!clusters.empty() && !Wanted(clusters, std::string(local_cluster))) {
        f.matches_none = true;  // rotadbd keeps this cluster's jobs only
      }
    } else if (key == "job_name") {
      AddAll(f.names, value);
    } else if (key == "qos") {
      AddAll(f.qos, value);
    } else if (key == "wckey") {
      AddAll(f.wckeys, value);
    } else if (key == "reason") {
      AddAll(f.reasons, value);
    } else if (key == "groups" || key == "group") {
      AddAll(f.groups, value);
    } else if (key == "node") {
      Result<std::vector<std::string>> nodes = ExpandHostlist(value);
      if (!nodes.ok()) return BadValue(key, fmt::format("bad node list '{}'", value));
      f.nodes.insert(f.nodes.end(), nodes->begin(), nodes->end());
    } else if (key == "step") {
      if (Status s = f.selection.Add(value); !s.ok()) return BadValue(key, s.message());
      for (uint32_t id : f.selection.QueryIds()) {
        if (std::find(f.request.job_ids().begin(), f.request.job_ids().end(), id) ==
            f.request.job_ids().end()) {
          f.request.add_job_ids(id);
        }
      }
    } else if (key == "cpus_min" || key == "cpus_max" || key == "nodes_min" || key == "nodes_max" ||
               key == "exit_code") {
      Result<int64_t> n = ParseInteger(key, value);
      if (!n.ok()) return n.status();
      (key == "cpus_min"    ? f.cpus_min
       : key == "cpus_max"  ? f.cpus_max
       : key == "nodes_min" ? f.nodes_min
       : key == "nodes_max" ? f.nodes_max
                            : f.exit_code) = *n;
    } else if (key == "skip_steps" || key == "disable_wait_for_result") {
      Result<bool> b = ParseBoolean(key, value);
      if (!b.ok()) return b.status();
      if (key == "skip_steps") f.skip_steps = *b;
    } else if (key == "format") {
      // Slurm's output is whole whatever the format list; so is Rota's.
    } else if (key == "association" || key == "constraints" || key == "reservation") {
      // Rota's records keep no association ids, constraints or reservations:
      // refused rather than answered with what the filter would not pass.
      return BadValue(key, "this filter is not supported by rotarestd");
    } else {
      return BadValue(raw_key, "unknown query field");
    }
  }
  if (start_given && f.submitted_after) {
    return BadValue("submit_time", "start_time and submit_time are mutually exclusive");
  }
  return f;
}

Result<JobsFilter> JobIdFilter(std::string_view job_id) {
  JobsFilter f;
  f.request.set_all_attempts(true);
  if (Status s = f.selection.Add(job_id); !s.ok()) return BadValue("job_id", s.message());
  for (uint32_t id : f.selection.QueryIds()) f.request.add_job_ids(id);
  return f;
}

Json JobsJson(std::vector<wire::AccountingJob> jobs, const JobsFilter& filter, int64_t now) {
  std::map<uint32_t, std::vector<std::string>> only_steps;
  if (!filter.selection.empty()) filter.selection.Apply(jobs, only_steps);
  std::erase_if(jobs, [&](const wire::AccountingJob& j) { return !Kept(j, filter); });
  Json list = cli::SacctJobsJson(jobs, now);
  for (size_t i = 0; i < jobs.size(); ++i) {
    Json& item = list[i];
    AddRestFields(jobs[i], item);
    if (filter.skip_steps) {
      item["steps"] = Json::array();
    } else if (auto it = only_steps.find(jobs[i].job_id()); it != only_steps.end()) {
      KeepNamedSteps(it->second, item);
    }
  }
  return list;
}

}  // namespace rota::rest
