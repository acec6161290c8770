#include "sim/sacct_trace_builder.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "common/strings.h"

namespace rota::sim {
namespace {

int64_t Number(std::map<std::string, int64_t, std::less<>>& names, std::string_view name) {
  auto it = names.find(name);
  if (it == names.end()) {
    it = names.emplace(std::string(name), static_cast<int64_t>(names.size())).first;
  }
  return it->second;
}

}  // namespace

std::optional<uint64_t> Digits(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

void ReadGpusFromTres(std::string_view tres, TraceJob& job) {
  uint64_t untyped = 0;
  std::map<std::string, uint64_t, std::less<>> typed;
  for (std::string_view item : Split(tres, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = item.substr(0, eq);
    std::optional<uint64_t> count = Digits(item.substr(eq + 1));
    if (!count || name.rfind("gres/gpu", 0) != 0) continue;
    const uint64_t n = *count;
    if (name == "gres/gpu") {
      untyped = n;
    } else if (name.size() > 9 && name[8] == ':') {
      typed[std::string(name.substr(9))] += n;
    }
  }
  job.gpus = static_cast<uint32_t>(untyped);
  if (typed.size() == 1 && typed.begin()->second == untyped) job.gpu_type = typed.begin()->first;
}

bool SacctTraceBuilder::Add(const SacctRecord& record) {
  ++trace_.stats.lines;
  if (record.runtime_s <= 0) {
    ++trace_.stats.skipped_runtime;
    return true;
  }
  if (record.cpus == 0) {
    ++trace_.stats.skipped_processors;
    return true;
  }
  TraceJob job;
  job.id = record.id.value_or(trace_.stats.lines);
  job.runtime_s = record.runtime_s;
  job.processors = static_cast<uint32_t>(record.cpus);
  job.requested_s = record.requested_s;
  job.nodes = record.nodes;
  ReadGpusFromTres(record.tres, job);
  if (record.uid) {
    job.user = *record.uid;
  } else if (!record.user.empty()) {
    job.user = Number(users_, record.user);
  }
  if (!record.partition.empty()) job.queue = Number(partitions_, record.partition);
  submits_.push_back(record.submit);
  trace_.jobs.push_back(std::move(job));
  return max_jobs_ == 0 || trace_.jobs.size() < max_jobs_;
}

Trace SacctTraceBuilder::Finish() && {
  int64_t first_submit = std::numeric_limits<int64_t>::max();
  for (int64_t s : submits_) first_submit = std::min(first_submit, s);
  for (size_t i = 0; i < trace_.jobs.size(); ++i) {
    trace_.jobs[i].submit_s = submits_[i] - first_submit;
  }
  // A replay submits in time order; sacct lists by job id, which is nearly the same.
  std::stable_sort(trace_.jobs.begin(), trace_.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  trace_.stats.read = trace_.jobs.size();
  return std::move(trace_);
}

}  // namespace rota::sim
