#include "cli/format/squeue_fields.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>

#include "cli/format/job_stdio_paths.h"
#include "cli/format/slurm_units.h"
#include "cli/format/time_text.h"
#include "common/duration.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "model/start_forecast.h"

namespace rota::cli::format {
namespace {

using wire::JobRecord;
using wire::JobState;
using Ctx = SqueueContext;

// Slurm prints a NULL string as "(null)"; Rota's records use "" for unset.
std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }

// When a job started, or for a pending one the backfill pass's planned start
// when there is one.
int64_t StartOf(const JobRecord& j) {
  if (j.state() == wire::JOB_STATE_PENDING && j.sched_start_time() > 0) {
    return j.sched_start_time();
  }
  return j.start_time();
}

std::string TimeOrNA(int64_t t, const Ctx& ctx) {
  return t == 0 ? "N/A" : FormatIsoTime(t, ctx.utc_offset_s);
}

std::string PlannedStartQuantile(const JobRecord& j, const Ctx& ctx, bool p90) {
  if (j.state() != wire::JOB_STATE_PENDING) return "N/A";
  std::optional<model::StartRange> range =
      model::ForecastRange(j.sched_start_time(), ctx.now, ctx.forecast);
  if (!range) return "N/A";
  return FormatIsoTime(p90 ? range->p90 : range->p50, ctx.utc_offset_s);
}

bool IsUnlimited(int64_t limit_s) { return limit_s < 0 || limit_s == kInfiniteDuration; }

// Seconds the job has run, as Slurm's job_time_used(). Rota keeps no
// pre-suspend run time yet, so a suspended job counts until now.
int64_t TimeUsedSecs(const JobRecord& job, int64_t now) {
  if (job.start_time() == 0 || job.state() == wire::JOB_STATE_PENDING) return 0;
  const bool running =
      job.state() == wire::JOB_STATE_RUNNING || job.state() == wire::JOB_STATE_SUSPENDED;
  const int64_t end = (running || job.end_time() == 0) ? now : job.end_time();
  return end - job.start_time();
}

std::string LimitText(const JobRecord& job) {
  if (IsUnlimited(job.time_limit_s())) return "UNLIMITED";
  if (job.time_limit_s() == 0) return "NOT_SET";
  return FormatDurationSqueue(job.time_limit_s());
}

std::string TimeLeftText(const JobRecord& job, int64_t now) {
  if (IsUnlimited(job.time_limit_s())) return "UNLIMITED";
  if (job.time_limit_s() == 0) return "NOT_SET";
  return FormatDurationSqueue(job.time_limit_s() - TimeUsedSecs(job, now));
}

uint32_t NodeCount(const JobRecord& job) {
  if (job.nodes_size() > 0) return static_cast<uint32_t>(job.nodes_size());
  if (job.req_nodes() > 0) return job.req_nodes();
  return std::max<uint32_t>(job.spec().min_nodes(), 1);
}

uint32_t CpuCount(const JobRecord& job) {
  if (job.alloc_cpus() > 0) return job.alloc_cpus();
  return std::max<uint32_t>(job.spec().num_tasks(), 1) *
         std::max<uint32_t>(job.spec().cpus_per_task(), 1);
}

std::string ReasonText(const JobRecord& job) {
  return job.reason().empty() ? "None" : job.reason();
}

std::string NodeListText(const JobRecord& job) {
  return CompressHostlist({job.nodes().begin(), job.nodes().end()});
}

// %R: Slurm shows the reason for jobs that hold no nodes (pending) or ended
// for a reason worth reading, and the nodes otherwise.
std::string ReasonListText(const JobRecord& job) {
  switch (job.state()) {
    case wire::JOB_STATE_PENDING:
    case wire::JOB_STATE_TIMEOUT:
    case wire::JOB_STATE_OUT_OF_MEMORY:
    case wire::JOB_STATE_DEADLINE:
    case wire::JOB_STATE_FAILED:
      return "(" + ReasonText(job) + ")";
    default:
      return NodeListText(job);
  }
}

std::string ArrayTasksText(const JobRecord& job) {
  std::string tasks = job.array_pending();
  if (job.array_max_running() > 0) tasks += "%" + std::to_string(job.array_max_running());
  return tasks;
}

// --gres and --gpus-per-node as Slurm's TresPerNode: "gres:gpu:1".
std::string TresPerNodeText(const JobRecord& job) {
  std::vector<std::string> parts;
  for (std::string_view item : SplitOutsideBrackets(job.spec().gres(), ',')) {
    if (item.empty()) continue;
    parts.push_back(StartsWithIgnoreCase(item, "gres:") ? std::string(item)
                                                        : "gres:" + std::string(item));
  }
  if (parts.empty() && !job.spec().gpus_per_node().empty()) {
    parts.push_back("gres:gpu:" + job.spec().gpus_per_node());
  }
  return parts.empty() ? "N/A" : Join(parts, ",");
}

std::string MinMemoryText(const JobRecord& job, const SqueueContext& ctx) {
  const wire::JobSpec& spec = job.spec();
  const uint64_t mb = (spec.mem_given() || spec.mem_per_node_mb() > 0) ? spec.mem_per_node_mb()
                                                                       : spec.mem_per_cpu_mb();
  return ConvertNumUnit(static_cast<double>(mb), Unit::kMega, !ctx.no_convert);
}

std::string UserText(const JobRecord& job) {
  return job.spec().user().empty() ? std::to_string(job.spec().uid()) : job.spec().user();
}

std::string GroupText(const JobRecord& job) {
  return job.spec().group().empty() ? std::to_string(job.spec().gid()) : job.spec().group();
}

std::string PriorityFloatText(const JobRecord& job) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%16.14f",
                static_cast<double>(job.priority()) / static_cast<double>(0xffffffffu));
  return buf;
}

std::string EndTimeText(const JobRecord& job, const Ctx& ctx) {
  if (IsUnlimited(job.time_limit_s()) && job.end_time() > ctx.now) return "NONE";
  return TimeOrNA(job.end_time(), ctx);
}

std::string U(uint64_t v) { return std::to_string(v); }

// A per-node minimum as squeue prints it: "*" when the job did not ask.
std::string CountOrStar(uint32_t v) { return v == 0 ? "*" : std::to_string(v); }

// Right-justified durations and node lists are never cut in Slurm.
constexpr bool kNoCut = false;

// What each field's extractor reads, declared beside it: squeue asks the
// controller for these fields only (SqueueProjection). A read left out here
// prints a default value; squeue_fields_test renders every field from full and
// from projected records to catch that.
using R = wire::JobRecord;
using S = wire::JobSpec;

template <typename... N>
model::JobFieldSet Rec(N... fields) {
  return model::JobFieldSet().AddRecord({static_cast<int>(fields)...});
}
template <typename... N>
model::JobFieldSet Spec(N... fields) {
  return model::JobFieldSet().AddSpec({static_cast<int>(fields)...});
}
model::JobFieldSet None() { return {}; }

// JobIdText and ArrayTasksText.
model::JobFieldSet ArrayIdReads() {
  return Rec(R::kJobIdFieldNumber, R::kArrayJobIdFieldNumber, R::kArrayMetaFieldNumber,
             R::kArrayPendingFieldNumber, R::kArrayMaxRunningFieldNumber,
             R::kArrayTaskIdFieldNumber);
}

// JobStdoutPath, JobStderrPath, JobStdinPath (with `own`, the stream's field).
model::JobFieldSet StdioReads(int own) {
  return Rec(R::kJobIdFieldNumber, R::kArrayJobIdFieldNumber, R::kArrayTaskIdFieldNumber)
      .AddSpec({own, S::kStdOutFieldNumber, S::kNameFieldNumber, S::kUserFieldNumber,
                S::kWorkDirFieldNumber, S::kInteractiveFieldNumber});
}

// TimeUsedSecs.
model::JobFieldSet TimeUsedReads() {
  return Rec(R::kStartTimeFieldNumber, R::kStateFieldNumber, R::kEndTimeFieldNumber);
}

struct FieldDef {
  Field<JobRecord, Ctx> field;
  model::JobFieldSet reads;
};

struct SqueueTable {
  FieldTable<JobRecord, Ctx> table;
  std::vector<model::JobFieldSet> reads;  // Parallel to table.fields().
};

SqueueTable BuildTable() {
  std::vector<FieldDef> defs = {
      {{{'a', "Account", "ACCOUNT"},
        [](const JobRecord& j, const Ctx&) { return j.spec().account(); }},
       Spec(S::kAccountFieldNumber)},
      {{{0, "AccrueTime", "ACCRUE_TIME"},
        [](const JobRecord& j, const Ctx& c) { return TimeOrNA(j.accrue_time(), c); }},
       Rec(R::kAccrueTimeFieldNumber)},
      {{{'F', "ArrayJobId", "ARRAY_JOB_ID"},
        [](const JobRecord& j, const Ctx&) {
          return U(j.array_job_id() != 0 ? j.array_job_id() : j.job_id());
        }},
       Rec(R::kArrayJobIdFieldNumber, R::kJobIdFieldNumber)},
      {{{'K', "ArrayTaskId", "ARRAY_TASK_ID"},
        [](const JobRecord& j, const Ctx&) -> std::string {
          if (j.array_job_id() == 0) return "N/A";
          return j.array_meta() ? ArrayTasksText(j) : U(j.array_task_id());
        }},
       ArrayIdReads()},
      {{{'B', "BatchHost", "EXEC_HOST"},
        [](const JobRecord& j, const Ctx&) -> std::string {
          return j.nodes().empty() ? "n/a" : j.nodes(0);
        }},
       Rec(R::kNodesFieldNumber)},
      {{{'o', "Command", "COMMAND"},
        // Rota's JobSpec carries the script, not the path it came from.
        [](const JobRecord&, const Ctx&) -> std::string { return "(null)"; }},
       None()},
      {{{'k', "Comment", "COMMENT"},
        [](const JobRecord& j, const Ctx&) { return OrNull(j.spec().comment()); }},
       Spec(S::kCommentFieldNumber)},
      {{{'O', "Contiguous", "CONTIGUOUS"},
        [](const JobRecord& j, const Ctx&) { return U(j.spec().contiguous() ? 1 : 0); }},
       Spec(S::kContiguousFieldNumber)},
      {{{0, "CPUsPerTask", "CPUS_PER_TASK"},
        [](const JobRecord& j, const Ctx&) -> std::string {
          return j.spec().cpus_per_task() == 0 ? "N/A" : U(j.spec().cpus_per_task());
        }},
       Spec(S::kCpusPerTaskFieldNumber)},
      {{{'I', "Cores", "CORES_PER_SOCKET"},
        [](const JobRecord& j, const Ctx&) { return CountOrStar(j.spec().cores_per_socket()); }},
       Spec(S::kCoresPerSocketFieldNumber)},
      // Rota reserves no cores for system use (CoreSpec), so none is asked.
      {{{'X', "CoreSpec", "CORE_SPEC"},
        [](const JobRecord&, const Ctx&) -> std::string { return "N/A"; }},
       None()},
      {{{'E', "Dependency", "DEPENDENCY"},
        [](const JobRecord& j, const Ctx&) {
          return OrNull(j.dependency_state().empty() ? j.spec().dependency()
                                                     : j.dependency_state());
        }},
       Rec(R::kDependencyStateFieldNumber).AddSpec({S::kDependencyFieldNumber})},
      {{{0, "EligibleTime", "ELIGIBLE_TIME"},
        [](const JobRecord& j, const Ctx& c) { return TimeOrNA(j.eligible_time(), c); }},
       Rec(R::kEligibleTimeFieldNumber)},
      {{{'e', "EndTime", "END_TIME"},
        [](const JobRecord& j, const Ctx& c) { return EndTimeText(j, c); }},
       Rec(R::kEndTimeFieldNumber, R::kTimeLimitSFieldNumber)},
      {{{'x', "ExcNodes", "EXC_NODES"},
        [](const JobRecord& j, const Ctx&) { return j.spec().exclude(); }},
       Spec(S::kExcludeFieldNumber)},
      {{{0, "exit_code", "EXIT_CODE"},
        [](const JobRecord& j, const Ctx&) { return U(j.exit_code()); }},
       Rec(R::kExitCodeFieldNumber)},
      {{{'f', "Feature", "FEATURES"},
        [](const JobRecord& j, const Ctx&) { return OrNull(j.spec().constraint()); }},
       Spec(S::kConstraintFieldNumber)},
      {{{'b', "tres-per-node", "TRES_PER_NODE"},
        [](const JobRecord& j, const Ctx&) { return TresPerNodeText(j); }},
       Spec(S::kGresFieldNumber, S::kGpusPerNodeFieldNumber)},
      {{{0, "Gres", "TRES_PER_NODE"},
        [](const JobRecord& j, const Ctx&) { return TresPerNodeText(j); }},
       Spec(S::kGresFieldNumber, S::kGpusPerNodeFieldNumber)},
      {{{'G', "GroupId", "GROUP"},
        [](const JobRecord& j, const Ctx&) { return U(j.spec().gid()); }},
       Spec(S::kGidFieldNumber)},
      {{{'g', "GroupName", "GROUP"}, [](const JobRecord& j, const Ctx&) { return GroupText(j); }},
       Spec(S::kGroupFieldNumber, S::kGidFieldNumber)},
      {{{'i', "JobArrayId", "JOBID"}, [](const JobRecord& j, const Ctx&) { return JobIdText(j); }},
       ArrayIdReads()},
      {{{'A', "JobId", "JOBID"}, [](const JobRecord& j, const Ctx&) { return U(j.job_id()); }},
       Rec(R::kJobIdFieldNumber)},
      {{{0, "LastSchedEval", "LAST_SCHED_EVAL"},
        [](const JobRecord& j, const Ctx& c) { return TimeOrNA(j.last_sched_eval(), c); }},
       Rec(R::kLastSchedEvalFieldNumber)},
      {{{'W', "Licenses", "LICENSES"},
        [](const JobRecord& j, const Ctx&) { return OrNull(j.spec().licenses()); }},
       Spec(S::kLicensesFieldNumber)},
      {{{'c', "MinCpus", "MIN_CPUS"},
        [](const JobRecord& j, const Ctx&) {
          return U(std::max<uint32_t>({j.spec().cpus_per_task(), j.spec().min_cpus_per_node(), 1}));
        }},
       Spec(S::kCpusPerTaskFieldNumber, S::kMinCpusPerNodeFieldNumber)},
      {{{'m', "MinMemory", "MIN_MEMORY"},
        [](const JobRecord& j, const Ctx& ctx) { return MinMemoryText(j, ctx); }},
       Spec(S::kMemGivenFieldNumber, S::kMemPerNodeMbFieldNumber, S::kMemPerCpuMbFieldNumber)},
      {{{0, "MinTime", "MIN_TIME"},
        [](const JobRecord& j, const Ctx&) -> std::string {
          return j.spec().time_min_s() <= 0 ? "N/A" : FormatDurationSqueue(j.spec().time_min_s());
        }},
       Spec(S::kTimeMinSFieldNumber)},
      {{{'d', "MinTmpDisk", "MIN_TMP_DISK"},
        [](const JobRecord& j, const Ctx& ctx) {
          return ConvertNumUnit(static_cast<double>(j.spec().tmp_disk_mb()), Unit::kMega,
                                !ctx.no_convert);
        }},
       Spec(S::kTmpDiskMbFieldNumber)},
      {{{'j', "Name", "NAME"}, [](const JobRecord& j, const Ctx&) { return j.spec().name(); }},
       Spec(S::kNameFieldNumber)},
      {{{'y', "Nice", "NICE"},
        [](const JobRecord& j, const Ctx&) { return std::to_string(j.spec().nice()); }},
       Spec(S::kNiceFieldNumber)},
      {{{'N', "NodeList", "NODELIST", kNoCut, kNoCut},
        [](const JobRecord& j, const Ctx&) { return NodeListText(j); }},
       Rec(R::kNodesFieldNumber)},
      {{{'C', "NumCPUs", "CPUS"}, [](const JobRecord& j, const Ctx&) { return U(CpuCount(j)); }},
       Rec(R::kAllocCpusFieldNumber)
           .AddSpec({S::kNumTasksFieldNumber, S::kCpusPerTaskFieldNumber})},
      {{{'D', "NumNodes", "NODES"}, [](const JobRecord& j, const Ctx&) { return U(NodeCount(j)); }},
       Rec(R::kNodesFieldNumber, R::kReqNodesFieldNumber).AddSpec({S::kMinNodesFieldNumber})},
      {{{0, "NumTasks", "TASKS"},
        [](const JobRecord& j, const Ctx&) {
          return U(std::max<uint32_t>(j.spec().num_tasks(), 1));
        }},
       Spec(S::kNumTasksFieldNumber)},
      {{{'h', "OverSubscribe", "OVER_SUBSCRIBE"},
        [](const JobRecord& j, const Ctx&) -> std::string {
          return j.spec().exclusive() ? "NO" : j.spec().oversubscribe() ? "YES" : "OK";
        }},
       Spec(S::kExclusiveFieldNumber, S::kOversubscribeFieldNumber)},
      {{{'P', "Partition", "PARTITION"},
        [](const JobRecord& j, const Ctx&) { return j.spec().partition(); }},
       Spec(S::kPartitionFieldNumber)},
      {{{0, "PendingTime", "PENDING_TIME"},
        [](const JobRecord& j, const Ctx& c) {
          const bool started = j.start_time() != 0 && j.start_time() < c.now;
          return std::to_string((started ? j.start_time() : c.now) - j.submit_time());
        }},
       Rec(R::kStartTimeFieldNumber, R::kSubmitTimeFieldNumber)},
      {{{'p', "Priority", "PRIORITY"},
        [](const JobRecord& j, const Ctx&) { return PriorityFloatText(j); }},
       Rec(R::kPriorityFieldNumber)},
      {{{'Q', "PriorityLong", "PRIORITY"},
        [](const JobRecord& j, const Ctx&) { return U(j.priority()); }},
       Rec(R::kPriorityFieldNumber)},
      {{{'q', "QOS", "QOS"}, [](const JobRecord& j, const Ctx&) { return j.spec().qos(); }},
       Spec(S::kQosFieldNumber)},
      {{{'r', "Reason", "REASON"}, [](const JobRecord& j, const Ctx&) { return ReasonText(j); }},
       Rec(R::kReasonFieldNumber)},
      {{{'R', "ReasonList", "NODELIST(REASON)", kNoCut, kNoCut},
        [](const JobRecord& j, const Ctx&) { return ReasonListText(j); }},
       Rec(R::kStateFieldNumber, R::kReasonFieldNumber, R::kNodesFieldNumber)},
      {{{'n', "ReqNodes", "REQ_NODES"},
        [](const JobRecord& j, const Ctx&) { return j.spec().nodelist(); }},
       Spec(S::kNodelistFieldNumber)},
      {{{0, "Requeue", "REQUEUE"},
        [](const JobRecord& j, const Ctx&) { return U(j.requeue() ? 1 : 0); }},
       Rec(R::kRequeueFieldNumber)},
      {{{'v', "Reservation", "RESERVATION"},
        [](const JobRecord& j, const Ctx&) { return OrNull(j.spec().reservation()); }},
       Spec(S::kReservationFieldNumber)},
      {{{0, "RestartCnt", "RESTARTCNT"},
        [](const JobRecord& j, const Ctx&) { return U(j.restart_count()); }},
       Rec(R::kRestartCountFieldNumber)},
      {{{0, "NTPerCore", "NTASKS_PER_CORE"},
        [](const JobRecord& j, const Ctx&) { return CountOrStar(j.spec().ntasks_per_core()); }},
       Spec(S::kNtasksPerCoreFieldNumber)},
      {{{0, "NTPerNode", "NTASKS_PER_NODE"},
        [](const JobRecord& j, const Ctx&) { return CountOrStar(j.spec().ntasks_per_node()); }},
       Spec(S::kNtasksPerNodeFieldNumber)},
      {{{0, "NTPerSocket", "NTASKS_PER_SOCKET"},
        [](const JobRecord& j, const Ctx&) { return CountOrStar(j.spec().ntasks_per_socket()); }},
       Spec(S::kNtasksPerSocketFieldNumber)},
      {{{'z', "SCT", "S:C:T"},
        [](const JobRecord& j, const Ctx&) {
          return CountOrStar(j.spec().sockets_per_node()) + ":" +
                 CountOrStar(j.spec().cores_per_socket()) + ":" +
                 CountOrStar(j.spec().threads_per_core());
        }},
       Spec(S::kSocketsPerNodeFieldNumber, S::kCoresPerSocketFieldNumber,
            S::kThreadsPerCoreFieldNumber)},
      // The select plugin's own data: none under Rota's one placement engine.
      {{{'s', "SelectJobInfo", "SELECT_JOBINFO"},
        [](const JobRecord&, const Ctx&) -> std::string { return "N/A"; }},
       None()},
      {{{'H', "Sockets", "SOCKETS_PER_NODE"},
        [](const JobRecord& j, const Ctx&) { return CountOrStar(j.spec().sockets_per_node()); }},
       Spec(S::kSocketsPerNodeFieldNumber)},
      {{{'Y', "SchedNodes", "SCHEDNODES", kNoCut, kNoCut},
        // The nodes the backfill pass plans for a pending job.
        [](const JobRecord& j, const Ctx&) { return OrNull(j.sched_nodes()); }},
       Rec(R::kSchedNodesFieldNumber)},
      // Rota's own: a pending job's planned start as a range, from where past
      // plans landed (model/start_forecast.h); N/A without a plan, or before
      // the controller has measured enough jobs.
      // Rota's own: since when a running job's GPUs have been idle by its
      // partition's GpuIdlePolicy (docs/gpu-efficiency.md); N/A when not.
      {{{0, "GpuIdle", "GPU_IDLE"},
        [](const JobRecord& j, const Ctx& c) {
          return j.gpu_idle_since() > 0 ? TimeOrNA(j.gpu_idle_since(), c) : std::string("N/A");
        }},
       Rec(R::kGpuIdleSinceFieldNumber)},
      {{{0, "StartP50", "START_P50"},
        [](const JobRecord& j, const Ctx& c) { return PlannedStartQuantile(j, c, false); }},
       Rec(R::kStateFieldNumber, R::kSchedStartTimeFieldNumber)},
      {{{0, "StartP90", "START_P90"},
        [](const JobRecord& j, const Ctx& c) { return PlannedStartQuantile(j, c, true); }},
       Rec(R::kStateFieldNumber, R::kSchedStartTimeFieldNumber)},
      {{{'S', "StartTime", "START_TIME"},
        [](const JobRecord& j, const Ctx& c) { return TimeOrNA(StartOf(j), c); }},
       Rec(R::kStartTimeFieldNumber, R::kStateFieldNumber, R::kSchedStartTimeFieldNumber)},
      {{{'T', "State", "STATE"},
        [](const JobRecord& j, const Ctx&) { return JobStateText(j.state()); }},
       Rec(R::kStateFieldNumber)},
      {{{'t', "StateCompact", "ST"},
        [](const JobRecord& j, const Ctx&) { return JobStateCompactText(j.state()); }},
       Rec(R::kStateFieldNumber)},
      {{{0, "StdErr", "STDERR"}, [](const JobRecord& j, const Ctx&) { return JobStderrPath(j); }},
       StdioReads(S::kStdErrFieldNumber)},
      {{{0, "StdIn", "STDIN"}, [](const JobRecord& j, const Ctx&) { return JobStdinPath(j); }},
       StdioReads(S::kStdInFieldNumber)},
      {{{0, "StdOut", "STDOUT"}, [](const JobRecord& j, const Ctx&) { return JobStdoutPath(j); }},
       StdioReads(S::kStdOutFieldNumber)},
      {{{'V', "SubmitTime", "SUBMIT_TIME"},
        [](const JobRecord& j, const Ctx& c) { return TimeOrNA(j.submit_time(), c); }},
       Rec(R::kSubmitTimeFieldNumber)},
      {{{'J', "Threads", "THREADS_PER_CORE"},
        [](const JobRecord& j, const Ctx&) { return CountOrStar(j.spec().threads_per_core()); }},
       Spec(S::kThreadsPerCoreFieldNumber)},
      {{{'L', "TimeLeft", "TIME_LEFT", kNoCut},
        [](const JobRecord& j, const Ctx& c) { return TimeLeftText(j, c.now); }},
       TimeUsedReads().AddRecord({R::kTimeLimitSFieldNumber})},
      {{{'l', "TimeLimit", "TIME_LIMIT", kNoCut},
        [](const JobRecord& j, const Ctx&) { return LimitText(j); }},
       Rec(R::kTimeLimitSFieldNumber)},
      {{{'M', "TimeUsed", "TIME", kNoCut},
        [](const JobRecord& j, const Ctx& c) { return JobTimeUsedText(j, c.now); }},
       TimeUsedReads()},
      {{{0, "tres-alloc", "TRES_ALLOC"},
        [](const JobRecord& j, const Ctx&) { return j.alloc_tres(); }},
       Rec(R::kAllocTresFieldNumber)},
      {{{'U', "UserId", "UID"}, [](const JobRecord& j, const Ctx&) { return U(j.spec().uid()); }},
       Spec(S::kUidFieldNumber)},
      {{{'u', "UserName", "USER"}, [](const JobRecord& j, const Ctx&) { return UserText(j); }},
       Spec(S::kUserFieldNumber, S::kUidFieldNumber)},
      {{{'w', "WCKey", "WCKEY"},
        [](const JobRecord& j, const Ctx&) { return OrNull(j.spec().wckey()); }},
       Spec(S::kWckeyFieldNumber)},
      {{{'Z', "WorkDir", "WORK_DIR"},
        [](const JobRecord& j, const Ctx&) { return j.spec().work_dir(); }},
       Spec(S::kWorkDirFieldNumber)},
  };
  std::vector<Field<JobRecord, Ctx>> fields;
  std::vector<model::JobFieldSet> reads;
  for (FieldDef& d : defs) {
    fields.push_back(d.field);
    reads.push_back(d.reads);
  }
  return SqueueTable{
      FieldTable<JobRecord, Ctx>("Invalid job format specification: ", std::move(fields)),
      std::move(reads)};
}

const SqueueTable& Table() {
  static const SqueueTable table = BuildTable();
  return table;
}

// ---- Sorting ----

// Three-way comparison helpers.
template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int64_t LimitKey(const JobRecord& j) {
  return IsUnlimited(j.time_limit_s()) ? std::numeric_limits<int64_t>::max() : j.time_limit_s();
}

// Expected start: unknown starts last, a pending job's past estimate counts
// as now (Slurm's _get_start_time, with "unknown" after any known time).
int64_t StartKey(const JobRecord& j, int64_t now) {
  int64_t start = StartOf(j);
  if (start == 0) return std::numeric_limits<int64_t>::max();
  if (j.state() == wire::JOB_STATE_PENDING && start < now) return now;
  return start;
}

// How one -S key compares jobs: by up to two numbers, by text (bytewise, as
// std::string compares), or by text in natural order (node names).
enum class KeyKind { kIgnored, kNumbers, kText, kNatural };

// The kind of key for one -S letter; nullopt for letters Slurm rejects.
std::optional<KeyKind> SortKeyKind(char key) {
  switch (key) {
    case 'i':
    case 'A':
    case 'p':
    case 'Q':
    case 'U':
    case 'G':
    case 'S':
    case 'V':
    case 'e':
    case 'l':
    case 'L':
    case 'M':
    case 'D':
    case 'C':
      return KeyKind::kNumbers;
    case 'P':
    case 't':
    case 'T':
    case 'u':
    case 'g':
    case 'j':
    case 'a':
    case 'q':
      return KeyKind::kText;
    case 'N':
      return KeyKind::kNatural;
    case 'b':
    case 'c':
    case 'f':
    case 'h':
    case 'n':
    case 'O':
      return KeyKind::kIgnored;  // Accepted and ignored by Slurm too.
    default:
      return std::nullopt;
  }
}

// The key of `j` for a kNumbers letter.
std::pair<int64_t, int64_t> NumberKey(char key, const JobRecord& j, int64_t now) {
  switch (key) {
    case 'i':
      // A meta record stands for tasks not yet split off: after the tasks.
      return {j.array_job_id() != 0 ? j.array_job_id() : j.job_id(),
              j.array_meta() ? std::numeric_limits<uint32_t>::max() : j.array_task_id()};
    case 'A':
      return {j.job_id(), 0};
    case 'p':
    case 'Q':
      return {j.priority(), 0};
    case 'U':
      return {j.spec().uid(), 0};
    case 'G':
      return {j.spec().gid(), 0};
    case 'S':
      return {StartKey(j, now), 0};
    case 'V':
      return {j.submit_time(), 0};
    case 'e':
      return {j.end_time(), 0};
    case 'l':
      return {LimitKey(j), 0};
    case 'L':
      return {IsUnlimited(j.time_limit_s()) ? std::numeric_limits<int64_t>::max()
                                            : j.time_limit_s() - TimeUsedSecs(j, now),
              0};
    case 'M':
      return {TimeUsedSecs(j, now), 0};
    case 'D':
      return {NodeCount(j), 0};
    case 'C':
      return {CpuCount(j), 0};
    default:
      return {0, 0};
  }
}

// The key of `j` for a kText or kNatural letter, appended to `out`.
void AppendTextKey(char key, const JobRecord& j, std::string& out) {
  switch (key) {
    case 'P':
      out += j.spec().partition();
      break;
    case 't':
      out += JobStateCompactText(j.state());
      break;
    case 'T':
      out += JobStateText(j.state());
      break;
    case 'u':
      out += UserText(j);
      break;
    case 'g':
      out += GroupText(j);
      break;
    case 'j':
      out += j.spec().name();
      break;
    case 'a':
      out += j.spec().account();
      break;
    case 'q':
      out += j.spec().qos();
      break;
    case 'N':
      if (!j.nodes().empty()) out += j.nodes(0);
      break;
    default:
      break;
  }
}

// A -S spec's keys for every row, computed once as rows are added: the sort
// then compares numbers and buffered text instead of rebuilding each key
// from the records at every comparison (10,000 jobs: ~140,000 comparisons).
class SortKeys {
 public:
  // InvalidArgument for a letter Slurm rejects ("Invalid sort specification: z").
  static Result<SortKeys> Parse(std::string_view spec) {
    SortKeys keys;
    for (size_t i = 0; i < spec.size(); ++i) {
      const char c = spec[i];
      if (c == ',' || c == '+' || c == '-') continue;
      const std::optional<KeyKind> kind = SortKeyKind(c);
      if (!kind) return InvalidArgument("Invalid sort specification: " + std::string(1, c));
      if (*kind == KeyKind::kIgnored) continue;
      Column& col = keys.columns_.emplace_back();
      col.letter = c;
      col.kind = *kind;
      col.descending = i > 0 && spec[i - 1] == '-';
    }
    return keys;
  }

  void Reserve(size_t rows) {
    for (Column& col : columns_) {
      if (col.kind == KeyKind::kNumbers) {
        col.numbers.reserve(rows);
      } else {
        col.ends.reserve(rows + 1);
      }
    }
  }

  void Add(const JobRecord& job, const Ctx& ctx) {
    for (Column& col : columns_) {
      if (col.kind == KeyKind::kNumbers) {
        col.numbers.push_back(NumberKey(col.letter, job, ctx.now));
      } else {
        if (col.ends.empty()) col.ends.push_back(0);
        AppendTextKey(col.letter, job, col.text);
        col.ends.push_back(col.text.size());
      }
    }
    ++rows_;
  }

  // The rows added, as indices in sorted order. Stable: rows that tie on
  // every key keep the order they were added in (the controller's), as in
  // Slurm, which applies one stable sort per key, last key first.
  std::vector<size_t> Order() const {
    std::vector<size_t> order(rows_);
    for (size_t i = 0; i < rows_; ++i) order[i] = i;
    if (columns_.empty()) return order;
    // Every key as numbers, row-major: the sort's comparisons then read one
    // small contiguous record per row.
    const size_t width = columns_.size();
    std::vector<std::pair<int64_t, int64_t>> keys(rows_ * width);
    for (size_t c = 0; c < width; ++c) {
      const Column& col = columns_[c];
      const std::vector<int64_t> ranks =
          col.kind == KeyKind::kNumbers ? std::vector<int64_t>() : col.Ranks();
      for (size_t r = 0; r < rows_; ++r) {
        keys[r * width + c] = col.kind == KeyKind::kNumbers
                                  ? col.numbers[r]
                                  : std::pair<int64_t, int64_t>(ranks[r], 0);
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const auto* ka = &keys[a * width];
      const auto* kb = &keys[b * width];
      for (size_t c = 0; c < width; ++c) {
        if (ka[c] != kb[c]) return columns_[c].descending ? kb[c] < ka[c] : ka[c] < kb[c];
      }
      return false;
    });
    return order;
  }

 private:
  struct Column {
    char letter = 0;
    KeyKind kind = KeyKind::kIgnored;
    bool descending = false;
    std::vector<std::pair<int64_t, int64_t>> numbers;  // kNumbers: one per row.
    std::string text;                                  // kText, kNatural: all rows.
    std::vector<size_t> ends;                          // Row r: text[ends[r], ends[r+1]).

    std::string_view Text(size_t row) const {
      return std::string_view(text).substr(ends[row], ends[row + 1] - ends[row]);
    }
    int CompareText(std::string_view a, std::string_view b) const {
      if (kind == KeyKind::kNatural) return NaturalCompare(a, b);
      const int c = a.compare(b);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    // Each row's text as a rank: texts that compare equal share a rank, and
    // ranks order as their texts do. A queue holds few distinct partitions,
    // states or users, so ordering those few replaces comparing text in
    // every one of the sort's comparisons.
    std::vector<int64_t> Ranks() const {
      const size_t rows = ends.empty() ? 0 : ends.size() - 1;
      std::unordered_map<std::string_view, size_t> ids;  // Looked up, never iterated.
      std::vector<std::string_view> distinct;
      std::vector<size_t> id_of(rows);
      for (size_t r = 0; r < rows; ++r) {
        auto [it, added] = ids.try_emplace(Text(r), distinct.size());
        if (added) distinct.push_back(Text(r));
        id_of[r] = it->second;
      }
      std::vector<size_t> by_text(distinct.size());
      for (size_t i = 0; i < by_text.size(); ++i) by_text[i] = i;
      std::sort(by_text.begin(), by_text.end(),
                [&](size_t a, size_t b) { return CompareText(distinct[a], distinct[b]) < 0; });
      std::vector<int64_t> rank_of(distinct.size());
      int64_t rank = 0;
      for (size_t k = 0; k < by_text.size(); ++k) {
        if (k > 0 && CompareText(distinct[by_text[k - 1]], distinct[by_text[k]]) != 0) ++rank;
        rank_of[by_text[k]] = rank;
      }
      std::vector<int64_t> ranks(rows);
      for (size_t r = 0; r < rows; ++r) ranks[r] = rank_of[id_of[r]];
      return ranks;
    }
  };

  std::vector<Column> columns_;
  size_t rows_ = 0;
};

// The -o/-O format in force: the user's, or the preset for the options.
Result<FormatSpec> ParseFormat(const SqueueOptions& options) {
  const auto& table = Table().table;
  return !options.format.empty()        ? table.ParseShort(options.format)
         : !options.format_long.empty() ? table.ParseLong(options.format_long)
         : options.start                ? table.ParseShort(kSqueueStartFormat)
         : options.long_format          ? table.ParseShort(kSqueueLongFormat)
                                        : table.ParseShort(kSqueueDefaultFormat);
}

std::string_view SortSpec(const SqueueOptions& options) {
  return !options.sort.empty() ? std::string_view(options.sort)
         : options.start       ? kSqueueStartSort
                               : kSqueueDefaultSort;
}

}  // namespace

std::string JobIdText(const JobRecord& job) {
  if (job.array_job_id() == 0) return std::to_string(job.job_id());
  if (job.array_meta())
    return std::to_string(job.array_job_id()) + "_[" + ArrayTasksText(job) + "]";
  return std::to_string(job.array_job_id()) + "_" + std::to_string(job.array_task_id());
}

std::string JobStateText(JobState state) {
  switch (state) {
    case wire::JOB_STATE_PENDING:
      return "PENDING";
    case wire::JOB_STATE_RUNNING:
      return "RUNNING";
    case wire::JOB_STATE_SUSPENDED:
      return "SUSPENDED";
    case wire::JOB_STATE_COMPLETING:
      return "COMPLETING";
    case wire::JOB_STATE_COMPLETED:
      return "COMPLETED";
    case wire::JOB_STATE_FAILED:
      return "FAILED";
    case wire::JOB_STATE_CANCELLED:
      return "CANCELLED";
    case wire::JOB_STATE_TIMEOUT:
      return "TIMEOUT";
    case wire::JOB_STATE_NODE_FAIL:
      return "NODE_FAIL";
    case wire::JOB_STATE_PREEMPTED:
      return "PREEMPTED";
    case wire::JOB_STATE_OUT_OF_MEMORY:
      return "OUT_OF_MEMORY";
    case wire::JOB_STATE_BOOT_FAIL:
      return "BOOT_FAIL";
    case wire::JOB_STATE_DEADLINE:
      return "DEADLINE";
    case wire::JOB_STATE_REQUEUED:
      return "REQUEUED";
    default:
      return "UNKNOWN";
  }
}

std::string JobStateCompactText(JobState state) {
  switch (state) {
    case wire::JOB_STATE_PENDING:
      return "PD";
    case wire::JOB_STATE_RUNNING:
      return "R";
    case wire::JOB_STATE_SUSPENDED:
      return "S";
    case wire::JOB_STATE_COMPLETING:
      return "CG";
    case wire::JOB_STATE_COMPLETED:
      return "CD";
    case wire::JOB_STATE_FAILED:
      return "F";
    case wire::JOB_STATE_CANCELLED:
      return "CA";
    case wire::JOB_STATE_TIMEOUT:
      return "TO";
    case wire::JOB_STATE_NODE_FAIL:
      return "NF";
    case wire::JOB_STATE_PREEMPTED:
      return "PR";
    case wire::JOB_STATE_OUT_OF_MEMORY:
      return "OOM";
    case wire::JOB_STATE_BOOT_FAIL:
      return "BF";
    case wire::JOB_STATE_DEADLINE:
      return "DL";
    case wire::JOB_STATE_REQUEUED:
      return "RQ";
    default:
      return "?";
  }
}

std::string JobTimeUsedText(const JobRecord& job, int64_t now) {
  return FormatDurationSqueue(TimeUsedSecs(job, now));
}

const FieldTable<JobRecord, SqueueContext>& SqueueFields() { return Table().table; }

const model::JobFieldSet& SqueueFieldReads(int field) {
  return Table().reads.at(static_cast<size_t>(field));
}

Status SortJobs(std::vector<const JobRecord*>& jobs, std::string_view sort_spec,
                const SqueueContext& ctx) {
  // Validate the whole spec before reordering anything.
  Result<SortKeys> keys = SortKeys::Parse(sort_spec);
  if (!keys.ok()) return keys.status();
  keys->Reserve(jobs.size());
  for (const JobRecord* job : jobs) keys->Add(*job, ctx);
  std::vector<const JobRecord*> sorted;
  sorted.reserve(jobs.size());
  for (size_t i : keys->Order()) sorted.push_back(jobs[i]);
  jobs = std::move(sorted);
  return Status::Ok();
}

Result<Listing> RenderSqueue(std::span<const JobRecord> jobs, const SqueueOptions& options,
                             const SqueueContext& ctx) {
  std::vector<const JobRecord*> pointers;
  pointers.reserve(jobs.size());
  for (const JobRecord& job : jobs) pointers.push_back(&job);
  return RenderSqueue(std::span<const JobRecord* const>(pointers), options, ctx);
}

Result<model::JobFieldSet> SqueueProjection(const SqueueOptions& options) {
  // --start shows pending jobs only, -r expands array records: both read
  // these of every record, and they are small.
  model::JobFieldSet fields = ArrayIdReads();
  fields.AddRecord({R::kStateFieldNumber});
  Result<FormatSpec> spec = ParseFormat(options);
  if (!spec.ok()) return spec.status();
  for (const FormatItem& item : spec->items) {
    if (item.field >= 0) fields.Add(SqueueFieldReads(item.field));
  }
  // Sort keys read what the field of the same letter reads.
  const std::string_view sort = SortSpec(options);
  for (size_t i = 0; i < sort.size(); ++i) {
    const char c = sort[i];
    if (c == ',' || c == '+' || c == '-') continue;
    if (!SortKeyKind(c)) return InvalidArgument("Invalid sort specification: " + std::string(1, c));
    const auto& infos = Table().table.fields();
    for (size_t f = 0; f < infos.size(); ++f) {
      if (infos[f].info.letter == c) fields.Add(SqueueFieldReads(static_cast<int>(f)));
    }
  }
  return fields;
}

Result<Listing> RenderSqueue(std::span<const JobRecord* const> jobs, const SqueueOptions& options,
                             const SqueueContext& ctx) {
  return RenderSqueue(
      jobs.size(), [&](size_t i) { return jobs[i]; }, options, ctx);
}

Result<Listing> RenderSqueue(size_t count, const JobSource& source, const SqueueOptions& options,
                             const SqueueContext& ctx) {
  if (options.json) return FailedPrecondition("squeue --json is not implemented yet");
  const auto& table = SqueueFields();
  Result<FormatSpec> spec = ParseFormat(options);
  if (!spec.ok()) return spec.status();
  Result<SortKeys> keys = SortKeys::Parse(SortSpec(options));
  if (!keys.ok()) return keys.status();

  // One pass over the jobs gathers every sort key and every printed value,
  // so a source may hand out each job in a reused message.
  const auto& fields = table.fields();
  CellGrid cells(spec->items.size());
  cells.Reserve(count, 16 * spec->items.size());
  keys->Reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const JobRecord* job = source(i);
    if (job == nullptr) continue;
    if (options.start && job->state() != wire::JOB_STATE_PENDING) continue;
    keys->Add(*job, ctx);
    for (const FormatItem& item : spec->items) {
      if (item.field < 0) {
        cells.Add({});
      } else {
        cells.Add(fields[static_cast<size_t>(item.field)].value(*job, ctx));
      }
    }
    cells.EndRow();
  }
  const std::vector<size_t> order = keys->Order();

  Listing listing;
  listing.errors = spec->errors;
  listing.text = RenderCells(*spec, table.catalog(), cells, order, options.no_header);
  if (options.long_format) {
    listing.text.insert(0, FormatCtime(ctx.now, ctx.utc_offset_s) + "\n");
  }
  return listing;
}

}  // namespace rota::cli::format
