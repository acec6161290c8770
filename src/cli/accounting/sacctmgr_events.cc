#include "cli/accounting/sacctmgr_events.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <map>

#include "cli/accounting/sacctmgr_command.h"
#include "cli/event_time.h"
#include "cli/slurm_time.h"
#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::cli {
namespace {

// Slurm's event columns; `setting` keys the values RenderEvents fills.
constexpr std::array kEventColumns = {
    EntityColumn{"Cluster", "Cluster", 10, "cluster"},
    EntityColumn{"ClusterNodes", "Cluster Nodes", 20, "cluster_nodes"},
    EntityColumn{"CPUs", "CPUs", 7, "cpus"},
    EntityColumn{"Duration", "Duration", 13, "duration"},
    EntityColumn{"End", "TimeEnd", 19, "end", "TimeEnd"},
    EntityColumn{"Event", "Event", 7, "event"},
    EntityColumn{"NodeName", "NodeName", 15, "node", "Nodes"},
    EntityColumn{"Reason", "Reason", 30, "reason"},
    EntityColumn{"Start", "TimeStart", 19, "start", "TimeStart"},
    EntityColumn{"State", "State", 6, "state"},
    EntityColumn{"TRES", "TRES", 20, "tres"},
    EntityColumn{"User", "User", 15, "user"},
};
constexpr std::string_view kDefaultFormat = "Cluster,NodeName,Start,End,State,Reason,User";

// 00:00:00 local time of the day before `now`'s.
int64_t YesterdayMidnight(int64_t now) {
  time_t t = static_cast<time_t>(now);
  std::tm local{};
  localtime_r(&t, &local);
  local.tm_hour = local.tm_min = local.tm_sec = 0;
  local.tm_mday -= 1;
  local.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&local));
}

// "1-02:03:04" for a day or more, "02:03:04" below.
std::string Duration(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const int64_t days = seconds / 86400;
  const std::string hms =
      fmt::format("{:02}:{:02}:{:02}", seconds % 86400 / 3600, seconds % 3600 / 60, seconds % 60);
  return days > 0 ? fmt::format("{}-{}", days, hms) : hms;
}

Status AddList(std::string_view value, bool hostlist, std::vector<std::string>& out) {
  if (hostlist) {
    Result<std::vector<std::string>> names = ExpandHostlist(std::string(value));
    if (!names.ok()) return InvalidArgument(fmt::format("Invalid node list: {}", value));
    out.insert(out.end(), names->begin(), names->end());
    return Status::Ok();
  }
  for (std::string_view item : Split(value, ',')) {
    if (!item.empty()) out.emplace_back(item);
  }
  return Status::Ok();
}

}  // namespace

bool IsEventsEntity(const std::string& word) {
  const std::string w = ToLower(word);
  return w == "event" || w == "events";
}

Result<EventsCommand> ParseEventsCommand(const std::vector<std::string>& words, int64_t now) {
  EventsCommand c;
  bool start_given = false, end_given = false;
  int64_t start = YesterdayMidnight(now), end = now;
  for (const std::string& w : words) {
    const std::string lower = ToLower(w);
    if (lower == "where") continue;
    const size_t eq = w.find('=');
    if (eq == std::string::npos) {
      // A bare word names nodes, as `sacctmgr list events n1` does.
      std::vector<std::string> nodes;
      ROTA_RETURN_IF_ERROR(AddList(w, true, nodes));
      for (std::string& n : nodes) c.query.add_nodes(std::move(n));
      continue;
    }
    const std::string key = ToLower(w.substr(0, eq));
    const std::string value = w.substr(eq + 1);
    if (key == "nodes" || key == "node" || key == "nodename") {
      std::vector<std::string> nodes;
      ROTA_RETURN_IF_ERROR(AddList(value, true, nodes));
      for (std::string& n : nodes) c.query.add_nodes(std::move(n));
    } else if (key == "states" || key == "state") {
      std::vector<std::string> states;
      ROTA_RETURN_IF_ERROR(AddList(value, false, states));
      for (const std::string& s : states) c.query.add_states(ToUpper(s));
    } else if (key == "start" || key == "starttime") {
      Result<int64_t> t = ParseEventTime(value, now);
      if (!t.ok()) return InvalidArgument(fmt::format("Invalid time specification: {}", value));
      start = *t;
      start_given = true;
    } else if (key == "end" || key == "endtime") {
      Result<int64_t> t = ParseEventTime(value, now);
      if (!t.ok()) return InvalidArgument(fmt::format("Invalid time specification: {}", value));
      end = *t;
      end_given = true;
    } else if (key == "reason") {
      c.reasons.push_back(value);
    } else if (key == "users" || key == "user") {
      ROTA_RETURN_IF_ERROR(AddList(value, false, c.users));
    } else if (key == "format") {
      c.format = value;
    } else if (key == "event") {
      // Only node events are recorded; Event=Node is what there is.
      if (ToLower(value) != "node") return InvalidArgument("Only node events are recorded");
    } else if (key == "clusters" || key == "cluster") {
      c.query.set_cluster(value);
    } else {
      return InvalidArgument(fmt::format("Unknown condition: {}", w));
    }
  }
  if (!c.query.states().empty() && !start_given) {
    // As Slurm: States= alone asks what is in those states now.
    c.query.set_open_only(true);
    start = now;
  }
  c.query.set_window_start(start);
  c.query.set_window_end(end_given || start_given ? end : 0);
  return c;
}

Result<std::string> RenderEvents(const std::vector<wire::NodeEvent>& events,
                                 const EventsCommand& command, SacctLayout layout, bool no_header,
                                 const std::function<std::string(uint32_t)>& user_name) {
  std::vector<std::map<std::string, std::string>> rows;
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  for (const wire::NodeEvent& e : events) {
    const std::string user = e.user().empty() ? user_name(e.reason_uid()) : e.user();
    if (!command.users.empty() &&
        std::find(command.users.begin(), command.users.end(), user) == command.users.end()) {
      continue;
    }
    if (!command.reasons.empty() &&
        std::none_of(command.reasons.begin(), command.reasons.end(), [&](const std::string& r) {
          return e.reason().find(r) != std::string::npos;
        })) {
      continue;
    }
    std::map<std::string, std::string>& row = rows.emplace_back();
    row["cluster"] = e.cluster();
    row["node"] = e.node();
    row["start"] = FormatSlurmTime(e.time_start());
    row["end"] = FormatSlurmTime(e.time_end());
    row["state"] = e.state();
    row["reason"] = e.reason();
    row["user"] = user;
    row["cpus"] = std::to_string(e.cpus());
    row["tres"] = e.tres();
    row["event"] = "Node";
    row["duration"] = Duration((e.time_end() > 0 ? e.time_end() : now) - e.time_start());
  }
  const std::string spec = command.format.empty() ? std::string(kDefaultFormat) : command.format;
  return RenderTable({kEventColumns.begin(), kEventColumns.end()}, spec, layout, no_header, rows);
}

}  // namespace rota::cli
