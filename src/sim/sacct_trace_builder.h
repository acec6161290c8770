#pragma once

// What the two readers of a site's sacct history (sacct_reader.h: -P/-p text;
// sacct_json_reader.h: --json) have in common once a record is read: the
// checks that keep or skip it, numbering users and partitions in order of
// appearance, times made relative to the earliest submission, and the replay
// order (by submission).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace_job.h"

namespace rota::sim {

// One job attempt as sacct reported it; times are absolute epoch seconds.
struct SacctRecord {
  std::optional<uint64_t> id;  // Unset: numbered by position
  int64_t submit = 0;
  int64_t runtime_s = -1;      // <= 0: never ran (skipped)
  uint64_t cpus = 0;           // 0: skipped
  uint32_t nodes = 0;          // 0: not said
  int64_t requested_s = -1;    // The time limit; -1 not said or unlimited
  std::string tres;            // "gres/gpu=2,gres/gpu:a100=2,..." (only GPUs are read)
  std::optional<int64_t> uid;  // Preferred over the user name when present
  std::string user;
  std::string partition;
};

class SacctTraceBuilder {
 public:
  explicit SacctTraceBuilder(uint64_t max_jobs) : max_jobs_(max_jobs) {}

  // One line or object seen that is not a record (too few fields, unreadable).
  void CountMalformed() {
    ++trace_.stats.lines;
    ++trace_.stats.skipped_malformed;
  }
  // Counts the record and keeps it unless it never ran or had no CPUs. False
  // once max_jobs are kept (the caller stops reading).
  bool Add(const SacctRecord& record);
  Trace Finish() &&;

 private:
  uint64_t max_jobs_;
  Trace trace_;
  std::vector<int64_t> submits_;  // Absolute, parallel to trace_.jobs
  std::map<std::string, int64_t, std::less<>> users_;
  std::map<std::string, int64_t, std::less<>> partitions_;
};

// A plain decimal count (surrounding blanks allowed); nullopt otherwise.
std::optional<uint64_t> Digits(std::string_view text);

// Whole GPUs of the job and their type ("" untyped or several types) from a
// TRES string such as "cpu=8,gres/gpu=2,gres/gpu:a100=2,node=1".
void ReadGpusFromTres(std::string_view tres, TraceJob& job);

}  // namespace rota::sim
