#pragma once
// squeue's table of fields, its sort order and its preset formats, over the
// job records the controller sends (rota::wire::JobRecord).
//
// Everything here is a pure function of (jobs, options, context): the time
// "now" and the local time zone come in through SqueueContext.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/format/format_spec.h"
#include "common/status.h"
#include "model/record_projection.h"
#include "rota.pb.h"

namespace rota::cli::format {

// What squeue's fields may read besides the job.
struct SqueueContext {
  int64_t now = 0;           // Unix seconds; "TIME", "TIME_LEFT", -l's date line.
  int64_t utc_offset_s = 0;  // Local time minus UTC, for printed timestamps.
  bool no_convert = false;   // --noconvert: memory in MB as stored ("2048M", not "2G").
  // How the controller's planned starts have turned out (StartP50/StartP90).
  wire::StartForecastRatios forecast{};
};

// Slurm 22.05's built-in formats and sort orders.
inline constexpr std::string_view kSqueueDefaultFormat = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
inline constexpr std::string_view kSqueueLongFormat =
    "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
inline constexpr std::string_view kSqueueStartFormat =
    "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
inline constexpr std::string_view kSqueueDefaultSort = "P,t,-p";
// --start: by expected start time, unknown last, then job id (what 22.05
// prints; its own "S" key alone leaves the order of unknown starts open).
inline constexpr std::string_view kSqueueStartSort = "S,i";

// The table: letters and -O names as in Slurm 22.05 (see squeue_fields.cc).
const FieldTable<wire::JobRecord, SqueueContext>& SqueueFields();

// squeue's command-line choices that shape the listing. The CLI parses
// options; filtering by user/partition/state is the controller's job, except
// that --start shows pending jobs only.
struct SqueueOptions {
  std::string format;        // -o; empty: preset from long_format/start.
  std::string format_long;   // -O; used when `format` is empty.
  std::string sort;          // -S; empty: preset.
  bool long_format = false;  // -l
  bool start = false;        // --start
  bool no_header = false;    // -h
  // --json: not implemented yet. The hook is here so that the CLI has one
  // entry point; RenderSqueue answers FailedPrecondition until it exists.
  bool json = false;
};

// What the field at `index` in SqueueFields() reads of a job record.
const model::JobFieldSet& SqueueFieldReads(int index);

// The record fields a listing with these options reads (format, sort keys,
// the --start filter, -r's array expansion), to ask the controller for only
// those. Always non-empty. Errors as RenderSqueue's for a bad sort spec;
// unknown format fields read nothing.
Result<model::JobFieldSet> SqueueProjection(const SqueueOptions& options);

// Reorders `jobs` by a Slurm -S spec ("P,t,-p": keys left to right, '-'
// descending). Sorts are stable: jobs that tie on every key keep the order
// they came in (the controller's order), as in Slurm. Keys: i A P t T p Q u U
// j S V e l L M D C N a q g G. InvalidArgument for any other letter
// ("Invalid sort specification: z").
Status SortJobs(std::vector<const wire::JobRecord*>& jobs, std::string_view sort_spec,
                const SqueueContext& ctx);

// The whole listing: -l's date line, header, rows. Unknown format fields are
// reported in Listing::errors and the listing is still printed, as Slurm does.
Result<Listing> RenderSqueue(std::span<const wire::JobRecord> jobs, const SqueueOptions& options,
                             const SqueueContext& ctx);
// The same, over records held elsewhere (no copies of 100,000 records).
Result<Listing> RenderSqueue(std::span<const wire::JobRecord* const> jobs,
                             const SqueueOptions& options, const SqueueContext& ctx);

// Hands out job `i` of a listing, or nullptr to leave it out. The job need
// only stay valid until the next call, so a source may parse each job into
// one reused message.
using JobSource = std::function<const wire::JobRecord*(size_t i)>;
// The same, over `count` jobs from `source`, which is called once per job,
// in order, before anything is sorted.
Result<Listing> RenderSqueue(size_t count, const JobSource& source, const SqueueOptions& options,
                             const SqueueContext& ctx);

// Single values, exposed for other commands and tests.
std::string JobIdText(const wire::JobRecord& job);      // %i: 1234, 1234_7, 1234_[8-1000%50]
std::string JobStateText(wire::JobState state);         // %T: PENDING
std::string JobStateCompactText(wire::JobState state);  // %t: PD
std::string JobTimeUsedText(const wire::JobRecord& job, int64_t now);  // %M: 0:11

}  // namespace rota::cli::format
