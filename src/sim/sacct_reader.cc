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
#include "common/tres.h"

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

std::optional<uint64_t> Count(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// Whole GPUs of the job and their type ("" untyped or several types) from a
// TRES string such as "cpu=8,gres/gpu=2,gres/gpu:a100=2,node=1".
void Gpus(std::string_view tres, TraceJob& job) {
  uint64_t untyped = 0;
  std::map<std::string, uint64_t, std::less<>> typed;
  for (std::string_view item : Split(tres, ',')) {
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = item.substr(0, eq);
    std::optional<uint64_t> n = Count(item.substr(eq + 1));
    if (!n || name.rfind("gres/gpu", 0) != 0) continue;
    if (name == "gres/gpu") {
      untyped = *n;
    } else if (name.size() > 9 && name[8] == ':') {
      typed[std::string(name.substr(9))] += *n;
    }
  }
  job.gpus = static_cast<uint32_t>(untyped);
  if (typed.size() == 1 && typed.begin()->second == untyped) job.gpu_type = typed.begin()->first;
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

  Trace trace;
  std::map<std::string, int64_t, std::less<>> users;  // Names numbered in order of appearance
  std::map<std::string, int64_t, std::less<>> partitions;
  int64_t first_submit = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> submits;  // Absolute, parallel to trace.jobs
  for (size_t i = 1; i < lines.size(); ++i) {
    if (Trim(lines[i]).empty()) continue;
    ++trace.stats.lines;
    const std::vector<std::string_view> f = Fields(lines[i], trailing_bar);
    if (f.size() != header.size()) {
      ++trace.stats.skipped_malformed;
      continue;
    }
    std::optional<int64_t> t_submit = IsoTime(f[*submit]);
    std::optional<int64_t> t_start = IsoTime(f[*start]);
    if (!t_submit) {
      ++trace.stats.skipped_malformed;
      continue;
    }
    int64_t runtime = -1;
    if (t_start && end) {
      if (std::optional<int64_t> t_end = IsoTime(f[*end])) runtime = *t_end - *t_start;
    } else if (t_start && elapsed) {
      if (header[*elapsed] == "ElapsedRaw") {  // Seconds; Elapsed is [D-]HH:MM:SS
        if (std::optional<uint64_t> n = Count(f[*elapsed])) runtime = static_cast<int64_t>(*n);
      } else if (Result<DurationSecs> d = ParseDuration(f[*elapsed]); d.ok()) {
        runtime = *d;
      }
    }
    if (runtime <= 0) {
      ++trace.stats.skipped_runtime;
      continue;
    }
    std::optional<uint64_t> n_cpus = Count(f[*cpus]);
    if (!n_cpus || *n_cpus == 0) {
      ++trace.stats.skipped_processors;
      continue;
    }
    TraceJob job;
    job.id = trace.stats.lines;
    if (id) {
      // "1234", or "1234_7" for an array task: the digits before any '_' or '.'.
      std::string_view raw = f[*id].substr(0, f[*id].find_first_of("_.["));
      if (std::optional<uint64_t> n = Count(raw)) job.id = *n;
    }
    job.runtime_s = runtime;
    job.processors = static_cast<uint32_t>(*n_cpus);
    if (limit) {
      std::string_view text = Trim(f[*limit]);
      if (header[*limit] == "TimelimitRaw") {
        if (std::optional<uint64_t> minutes = Count(text)) job.requested_s = *minutes * 60;
      } else if (Result<DurationSecs> d = ParseDuration(text); d.ok() && *d != kInfiniteDuration) {
        job.requested_s = *d;
      }
    }
    if (nodes) {
      if (std::optional<uint64_t> n = Count(f[*nodes])) job.nodes = static_cast<uint32_t>(*n);
    }
    if (tres) Gpus(f[*tres], job);
    auto number = [](auto& names, std::string_view name) {
      auto it = names.find(name);
      if (it == names.end()) it = names.emplace(std::string(name), names.size()).first;
      return it->second;
    };
    if (user && !Trim(f[*user]).empty()) {
      std::optional<uint64_t> uid = header[*user] == "UID" ? Count(f[*user]) : std::nullopt;
      job.user = uid ? static_cast<int64_t>(*uid) : number(users, Trim(f[*user]));
    }
    if (partition && !f[*partition].empty()) job.queue = number(partitions, f[*partition]);
    first_submit = std::min(first_submit, *t_submit);
    submits.push_back(*t_submit);
    trace.jobs.push_back(std::move(job));
    if (max_jobs > 0 && trace.jobs.size() >= max_jobs) break;
  }
  for (size_t i = 0; i < trace.jobs.size(); ++i) trace.jobs[i].submit_s = submits[i] - first_submit;
  // A replay submits in time order; sacct lists by job id, which is nearly the same.
  std::stable_sort(trace.jobs.begin(), trace.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  trace.stats.read = trace.jobs.size();
  return trace;
}

}  // namespace rota::sim
