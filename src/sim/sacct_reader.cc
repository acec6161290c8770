#include "sim/sacct_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/duration.h"
#include "common/strings.h"
#include "sim/sacct_trace_builder.h"

namespace rota::sim {
namespace {

std::string_view Chomp(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// `trailing_bar`: the export is sacct -p, which ends every field with '|' (the
// header tells); under -P a line ending in '|' has an empty last field.
std::vector<std::string_view> Fields(std::string_view line, bool trailing_bar) {
  line = Chomp(line);
  if (trailing_bar && !line.empty() && line.back() == '|') line.remove_suffix(1);
  return Split(line, '|');
}

// sacct's "2026-11-29T08:00:00". The clock's zone does not matter: only
// differences are used, and a wall-clock hour lost or repeated at a DST change
// moves a few jobs by an hour at most.
std::optional<int64_t> IsoTime(std::string_view text) {
  std::tm tm{};
  int n = 0;
  std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 ||
      n != static_cast<int>(s.size())) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace

bool LooksLikeSacctParsable(std::string_view text) {
  std::string_view first = Chomp(text.substr(0, text.find('\n')));
  for (std::string_view f : Fields(first, true)) {
    if (f == "Submit") return true;
  }
  return false;
}

Result<Trace> ParseSacctParsable(std::string_view text, uint64_t max_jobs) {
  std::vector<std::string_view> lines = Split(text, '\n');
  if (lines.empty() || Trim(lines[0]).empty()) {
    return InvalidArgument("sacct export: empty (expected a header line from sacct -P)");
  }
  const bool trailing_bar = !Chomp(lines[0]).empty() && Chomp(lines[0]).back() == '|';
  const std::vector<std::string_view> header = Fields(lines[0], trailing_bar);
  auto column = [&](std::initializer_list<std::string_view> names) -> std::optional<size_t> {
    for (std::string_view name : names) {
      auto it = std::find(header.begin(), header.end(), name);
      if (it != header.end()) return static_cast<size_t>(it - header.begin());
    }
    return std::nullopt;
  };
  const auto submit = column({"Submit"});
  const auto start = column({"Start"});
  const auto end = column({"End"});
  const auto elapsed = column({"ElapsedRaw", "Elapsed"});
  const auto cpus = column({"NCPUS", "AllocCPUS", "ReqCPUS"});
  if (!submit) return InvalidArgument("sacct export: no Submit column");
  if (!start) return InvalidArgument("sacct export: no Start column");
  if (!end && !elapsed) return InvalidArgument("sacct export: no End or Elapsed column");
  if (!cpus) return InvalidArgument("sacct export: no NCPUS, AllocCPUS or ReqCPUS column");
  const auto id = column({"JobIDRaw", "JobID"});
  const auto limit = column({"TimelimitRaw", "Timelimit"});
  const auto nodes = column({"NNodes", "AllocNodes"});
  const auto tres = column({"AllocTRES", "ReqTRES"});
  const auto user = column({"UID", "User"});
  const auto partition = column({"Partition"});

  SacctTraceBuilder builder(max_jobs);
  for (size_t i = 1; i < lines.size(); ++i) {
    if (Trim(lines[i]).empty()) continue;
    const std::vector<std::string_view> f = Fields(lines[i], trailing_bar);
    std::optional<int64_t> t_submit;
    if (f.size() == header.size()) t_submit = IsoTime(f[*submit]);
    if (!t_submit) {
      builder.CountMalformed();
      continue;
    }
    SacctRecord r;
    r.submit = *t_submit;
    std::optional<int64_t> t_start = IsoTime(f[*start]);
    if (t_start && end) {
      if (std::optional<int64_t> t_end = IsoTime(f[*end])) r.runtime_s = *t_end - *t_start;
    } else if (t_start && elapsed) {
      if (header[*elapsed] == "ElapsedRaw") {  // Seconds; Elapsed is [D-]HH:MM:SS
        if (std::optional<uint64_t> n = Digits(f[*elapsed])) r.runtime_s = static_cast<int64_t>(*n);
      } else if (Result<DurationSecs> d = ParseDuration(f[*elapsed]); d.ok()) {
        r.runtime_s = *d;
      }
    }
    r.cpus = Digits(f[*cpus]).value_or(0);
    if (id) {
      // "1234", or "1234_7" for an array task: the digits before any '_' or '.'.
      r.id = Digits(f[*id].substr(0, f[*id].find_first_of("_.[")));
    }
    if (limit) {
      std::string_view text = Trim(f[*limit]);
      if (header[*limit] == "TimelimitRaw") {
        if (std::optional<uint64_t> minutes = Digits(text)) r.requested_s = *minutes * 60;
      } else if (Result<DurationSecs> d = ParseDuration(text); d.ok() && *d != kInfiniteDuration) {
        r.requested_s = *d;
      }
    }
    if (nodes) r.nodes = static_cast<uint32_t>(Digits(f[*nodes]).value_or(0));
    if (tres) r.tres = std::string(f[*tres]);
    if (user) {
      if (header[*user] == "UID") {
        if (std::optional<uint64_t> uid = Digits(f[*user])) r.uid = static_cast<int64_t>(*uid);
      } else {
        r.user = std::string(Trim(f[*user]));
      }
    }
    if (partition) r.partition = std::string(f[*partition]);
    if (!builder.Add(r)) break;
  }
  return std::move(builder).Finish();
}

}  // namespace rota::sim
