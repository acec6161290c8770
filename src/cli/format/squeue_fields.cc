#include "cli/format/squeue_fields.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>

#include "cli/format/slurm_units.h"
#include "cli/format/time_text.h"
#include "common/duration.h"
#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::cli::format {
namespace {

using wire::JobRecord;
using wire::JobState;
using Ctx = SqueueContext;

// Slurm prints a NULL string as "(null)"; Rota's records use "" for unset.
std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }

std::string TimeOrNA(int64_t t, const Ctx& ctx) {
  return t == 0 ? "N/A" : FormatIsoTime(t, ctx.utc_offset_s);
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

std::string MinMemoryText(const JobRecord& job) {
  const wire::JobSpec& spec = job.spec();
  const uint64_t mb = (spec.mem_given() || spec.mem_per_node_mb() > 0) ? spec.mem_per_node_mb()
                                                                       : spec.mem_per_cpu_mb();
  return ConvertNumUnit(static_cast<double>(mb), Unit::kMega);
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

// Right-justified durations and node lists are never cut in Slurm.
constexpr bool kNoCut = false;

FieldTable<JobRecord, Ctx> BuildTable() {
  using F = Field<JobRecord, Ctx>;
  std::vector<F> f = {
      {{'a', "Account", "ACCOUNT"},
       [](const JobRecord& j, const Ctx&) { return j.spec().account(); }},
      {{0, "AccrueTime", "ACCRUE_TIME"},
       [](const JobRecord& j, const Ctx& c) { return TimeOrNA(j.accrue_time(), c); }},
      {{'F', "ArrayJobId", "ARRAY_JOB_ID"},
       [](const JobRecord& j, const Ctx&) {
         return U(j.array_job_id() != 0 ? j.array_job_id() : j.job_id());
       }},
      {{'K', "ArrayTaskId", "ARRAY_TASK_ID"},
       [](const JobRecord& j, const Ctx&) -> std::string {
         if (j.array_job_id() == 0) return "N/A";
         return j.array_meta() ? ArrayTasksText(j) : U(j.array_task_id());
       }},
      {{'B', "BatchHost", "EXEC_HOST"},
       [](const JobRecord& j, const Ctx&) -> std::string {
         return j.nodes().empty() ? "n/a" : j.nodes(0);
       }},
      {{'o', "Command", "COMMAND"},
       // Rota's JobSpec carries the script, not the path it came from.
       [](const JobRecord&, const Ctx&) -> std::string { return "(null)"; }},
      {{'k', "Comment", "COMMENT"},
       [](const JobRecord& j, const Ctx&) { return OrNull(j.spec().comment()); }},
      {{'O', "Contiguous", "CONTIGUOUS"},
       [](const JobRecord& j, const Ctx&) { return U(j.spec().contiguous() ? 1 : 0); }},
      {{0, "CPUsPerTask", "CPUS_PER_TASK"},
       [](const JobRecord& j, const Ctx&) -> std::string {
         return j.spec().cpus_per_task() == 0 ? "N/A" : U(j.spec().cpus_per_task());
       }},
      {{'E', "Dependency", "DEPENDENCY"},
       [](const JobRecord& j, const Ctx&) {
         return OrNull(j.dependency_state().empty() ? j.spec().dependency() : j.dependency_state());
       }},
      {{0, "EligibleTime", "ELIGIBLE_TIME"},
       [](const JobRecord& j, const Ctx& c) { return TimeOrNA(j.eligible_time(), c); }},
      {{'e', "EndTime", "END_TIME"},
       [](const JobRecord& j, const Ctx& c) { return EndTimeText(j, c); }},
      {{'x', "ExcNodes", "EXC_NODES"},
       [](const JobRecord& j, const Ctx&) { return j.spec().exclude(); }},
      {{0, "exit_code", "EXIT_CODE"},
       [](const JobRecord& j, const Ctx&) { return U(j.exit_code()); }},
      {{'f', "Feature", "FEATURES"},
       [](const JobRecord& j, const Ctx&) { return OrNull(j.spec().constraint()); }},
      {{'b', "tres-per-node", "TRES_PER_NODE"},
       [](const JobRecord& j, const Ctx&) { return TresPerNodeText(j); }},
      {{0, "Gres", "TRES_PER_NODE"},
       [](const JobRecord& j, const Ctx&) { return TresPerNodeText(j); }},
      {{'G', "GroupId", "GROUP"}, [](const JobRecord& j, const Ctx&) { return U(j.spec().gid()); }},
      {{'g', "GroupName", "GROUP"}, [](const JobRecord& j, const Ctx&) { return GroupText(j); }},
      {{'i', "JobArrayId", "JOBID"}, [](const JobRecord& j, const Ctx&) { return JobIdText(j); }},
      {{'A', "JobId", "JOBID"}, [](const JobRecord& j, const Ctx&) { return U(j.job_id()); }},
      {{0, "LastSchedEval", "LAST_SCHED_EVAL"},
       [](const JobRecord& j, const Ctx& c) { return TimeOrNA(j.last_sched_eval(), c); }},
      {{'c', "MinCpus", "MIN_CPUS"},
       [](const JobRecord& j, const Ctx&) {
         return U(std::max<uint32_t>(j.spec().cpus_per_task(), 1));
       }},
      {{'m', "MinMemory", "MIN_MEMORY"},
       [](const JobRecord& j, const Ctx&) { return MinMemoryText(j); }},
      {{0, "MinTime", "MIN_TIME"},
       [](const JobRecord& j, const Ctx&) -> std::string {
         return j.spec().time_min_s() <= 0 ? "N/A" : FormatDurationSqueue(j.spec().time_min_s());
       }},
      {{'d', "MinTmpDisk", "MIN_TMP_DISK"},
       [](const JobRecord&, const Ctx&) -> std::string { return "0"; }},
      {{'j', "Name", "NAME"}, [](const JobRecord& j, const Ctx&) { return j.spec().name(); }},
      {{'y', "Nice", "NICE"},
       [](const JobRecord& j, const Ctx&) { return std::to_string(j.spec().nice()); }},
      {{'N', "NodeList", "NODELIST", kNoCut, kNoCut},
       [](const JobRecord& j, const Ctx&) { return NodeListText(j); }},
      {{'C', "NumCPUs", "CPUS"}, [](const JobRecord& j, const Ctx&) { return U(CpuCount(j)); }},
      {{'D', "NumNodes", "NODES"}, [](const JobRecord& j, const Ctx&) { return U(NodeCount(j)); }},
      {{0, "NumTasks", "TASKS"},
       [](const JobRecord& j, const Ctx&) {
         return U(std::max<uint32_t>(j.spec().num_tasks(), 1));
       }},
      {{'h', "OverSubscribe", "OVER_SUBSCRIBE"},
       [](const JobRecord& j, const Ctx&) -> std::string {
         return j.spec().exclusive() ? "NO" : "OK";
       }},
      {{'P', "Partition", "PARTITION"},
       [](const JobRecord& j, const Ctx&) { return j.spec().partition(); }},
      {{0, "PendingTime", "PENDING_TIME"},
       [](const JobRecord& j, const Ctx& c) {
         const bool started = j.start_time() != 0 && j.start_time() < c.now;
         return std::to_string((started ? j.start_time() : c.now) - j.submit_time());
       }},
      {{'p', "Priority", "PRIORITY"},
       [](const JobRecord& j, const Ctx&) { return PriorityFloatText(j); }},
      {{'Q', "PriorityLong", "PRIORITY"},
       [](const JobRecord& j, const Ctx&) { return U(j.priority()); }},
      {{'q', "QOS", "QOS"}, [](const JobRecord& j, const Ctx&) { return j.spec().qos(); }},
      {{'r', "Reason", "REASON"}, [](const JobRecord& j, const Ctx&) { return ReasonText(j); }},
      {{'R', "ReasonList", "NODELIST(REASON)", kNoCut, kNoCut},
       [](const JobRecord& j, const Ctx&) { return ReasonListText(j); }},
      {{'n', "ReqNodes", "REQ_NODES"},
       [](const JobRecord& j, const Ctx&) { return j.spec().nodelist(); }},
      {{0, "Requeue", "REQUEUE"},
       [](const JobRecord& j, const Ctx&) { return U(j.requeue() ? 1 : 0); }},
      {{'v', "Reservation", "RESERVATION"},
       [](const JobRecord& j, const Ctx&) { return OrNull(j.spec().reservation()); }},
      {{0, "RestartCnt", "RESTARTCNT"},
       [](const JobRecord& j, const Ctx&) { return U(j.restart_count()); }},
      {{'Y', "SchedNodes", "SCHEDNODES", kNoCut, kNoCut},
       // The controller does not send the nodes planned for a pending job yet.
       [](const JobRecord&, const Ctx&) -> std::string { return "(null)"; }},
      {{'S', "StartTime", "START_TIME"},
       [](const JobRecord& j, const Ctx& c) { return TimeOrNA(j.start_time(), c); }},
      {{'T', "State", "STATE"},
       [](const JobRecord& j, const Ctx&) { return JobStateText(j.state()); }},
      {{'t', "StateCompact", "ST"},
       [](const JobRecord& j, const Ctx&) { return JobStateCompactText(j.state()); }},
      {{0, "StdErr", "STDERR"}, [](const JobRecord& j, const Ctx&) { return j.spec().std_err(); }},
      {{0, "StdIn", "STDIN"}, [](const JobRecord& j, const Ctx&) { return j.spec().std_in(); }},
      {{0, "StdOut", "STDOUT"}, [](const JobRecord& j, const Ctx&) { return j.spec().std_out(); }},
      {{'V', "SubmitTime", "SUBMIT_TIME"},
       [](const JobRecord& j, const Ctx& c) { return TimeOrNA(j.submit_time(), c); }},
      {{'L', "TimeLeft", "TIME_LEFT", kNoCut},
       [](const JobRecord& j, const Ctx& c) { return TimeLeftText(j, c.now); }},
      {{'l', "TimeLimit", "TIME_LIMIT", kNoCut},
       [](const JobRecord& j, const Ctx&) { return LimitText(j); }},
      {{'M', "TimeUsed", "TIME", kNoCut},
       [](const JobRecord& j, const Ctx& c) { return JobTimeUsedText(j, c.now); }},
      {{0, "tres-alloc", "TRES_ALLOC"},
       [](const JobRecord& j, const Ctx&) { return j.alloc_tres(); }},
      {{'U', "UserId", "UID"}, [](const JobRecord& j, const Ctx&) { return U(j.spec().uid()); }},
      {{'u', "UserName", "USER"}, [](const JobRecord& j, const Ctx&) { return UserText(j); }},
      {{'Z', "WorkDir", "WORK_DIR"},
       [](const JobRecord& j, const Ctx&) { return j.spec().work_dir(); }},
  };
  return FieldTable<JobRecord, Ctx>("Invalid job format specification: ", std::move(f));
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
  if (j.start_time() == 0) return std::numeric_limits<int64_t>::max();
  if (j.state() == wire::JOB_STATE_PENDING && j.start_time() < now) return now;
  return j.start_time();
}

using JobCmp = std::function<int(const JobRecord&, const JobRecord&)>;

// Sets `cmp` to the comparator for one -S letter (left empty for letters
// Slurm accepts but ignores). False for letters Slurm rejects.
bool SortKeyFor(char key, const Ctx& ctx, JobCmp& cmp) {
  const int64_t now = ctx.now;
  switch (key) {
    case 'i':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        auto id = [](const JobRecord& j) {
          return j.array_job_id() != 0 ? j.array_job_id() : j.job_id();
        };
        // A meta record stands for tasks not yet split off: after the tasks.
        auto task = [](const JobRecord& j) {
          return j.array_meta() ? std::numeric_limits<uint32_t>::max() : j.array_task_id();
        };
        const int c = Cmp(id(a), id(b));
        return c != 0 ? c : Cmp(task(a), task(b));
      };
      return true;
    case 'A':
      cmp = [](const JobRecord& a, const JobRecord& b) { return Cmp(a.job_id(), b.job_id()); };
      return true;
    case 'P':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return Cmp(a.spec().partition(), b.spec().partition());
      };
      return true;
    case 't':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return Cmp(JobStateCompactText(a.state()), JobStateCompactText(b.state()));
      };
      return true;
    case 'T':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return Cmp(JobStateText(a.state()), JobStateText(b.state()));
      };
      return true;
    case 'p':
    case 'Q':
      cmp = [](const JobRecord& a, const JobRecord& b) { return Cmp(a.priority(), b.priority()); };
      return true;
    case 'u':
      cmp = [](const JobRecord& a, const JobRecord& b) { return Cmp(UserText(a), UserText(b)); };
      return true;
    case 'U':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return Cmp(a.spec().uid(), b.spec().uid());
      };
      return true;
    case 'g':
      cmp = [](const JobRecord& a, const JobRecord& b) { return Cmp(GroupText(a), GroupText(b)); };
      return true;
    case 'G':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return Cmp(a.spec().gid(), b.spec().gid());
      };
      return true;
    case 'j':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return Cmp(a.spec().name(), b.spec().name());
      };
      return true;
    case 'S':
      cmp = [now](const JobRecord& a, const JobRecord& b) {
        return Cmp(StartKey(a, now), StartKey(b, now));
      };
      return true;
    case 'V':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return Cmp(a.submit_time(), b.submit_time());
      };
      return true;
    case 'e':
      cmp = [](const JobRecord& a, const JobRecord& b) { return Cmp(a.end_time(), b.end_time()); };
      return true;
    case 'l':
      cmp = [](const JobRecord& a, const JobRecord& b) { return Cmp(LimitKey(a), LimitKey(b)); };
      return true;
    case 'L':
      cmp = [now](const JobRecord& a, const JobRecord& b) {
        auto left = [now](const JobRecord& j) {
          return IsUnlimited(j.time_limit_s()) ? std::numeric_limits<int64_t>::max()
                                               : j.time_limit_s() - TimeUsedSecs(j, now);
        };
        return Cmp(left(a), left(b));
      };
      return true;
    case 'M':
      cmp = [now](const JobRecord& a, const JobRecord& b) {
        return Cmp(TimeUsedSecs(a, now), TimeUsedSecs(b, now));
      };
      return true;
    case 'D':
      cmp = [](const JobRecord& a, const JobRecord& b) { return Cmp(NodeCount(a), NodeCount(b)); };
      return true;
    case 'C':
      cmp = [](const JobRecord& a, const JobRecord& b) { return Cmp(CpuCount(a), CpuCount(b)); };
      return true;
    case 'N':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return NaturalCompare(a.nodes().empty() ? "" : a.nodes(0),
                              b.nodes().empty() ? "" : b.nodes(0));
      };
      return true;
    case 'a':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return Cmp(a.spec().account(), b.spec().account());
      };
      return true;
    case 'q':
      cmp = [](const JobRecord& a, const JobRecord& b) {
        return Cmp(a.spec().qos(), b.spec().qos());
      };
      return true;
    case 'b':
    case 'c':
    case 'f':
    case 'h':
    case 'n':
    case 'O':
      cmp = nullptr;  // Accepted and ignored by Slurm too.
      return true;
    default:
      return false;
  }
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

const FieldTable<JobRecord, SqueueContext>& SqueueFields() {
  static const FieldTable<JobRecord, SqueueContext> table = BuildTable();
  return table;
}

Status SortJobs(std::vector<const JobRecord*>& jobs, std::string_view sort_spec,
                const SqueueContext& ctx) {
  // Validate the whole spec before reordering anything.
  std::vector<std::pair<JobCmp, bool>> keys;  // Left to right.
  for (size_t i = 0; i < sort_spec.size(); ++i) {
    const char c = sort_spec[i];
    if (c == ',' || c == '+' || c == '-') continue;
    JobCmp cmp;
    if (!SortKeyFor(c, ctx, cmp)) {
      return InvalidArgument("Invalid sort specification: " + std::string(1, c));
    }
    if (cmp) keys.emplace_back(std::move(cmp), i > 0 && sort_spec[i - 1] == '-');
  }
  // Slurm applies one stable sort per key, last key first; a single stable
  // sort on the composite key gives the same order.
  std::stable_sort(jobs.begin(), jobs.end(), [&](const JobRecord* a, const JobRecord* b) {
    for (const auto& [cmp, descending] : keys) {
      const int c = cmp(*a, *b);
      if (c != 0) return descending ? c > 0 : c < 0;
    }
    return false;
  });
  return Status::Ok();
}

Result<Listing> RenderSqueue(std::span<const JobRecord> jobs, const SqueueOptions& options,
                             const SqueueContext& ctx) {
  std::vector<const JobRecord*> pointers;
  pointers.reserve(jobs.size());
  for (const JobRecord& job : jobs) pointers.push_back(&job);
  return RenderSqueue(std::span<const JobRecord* const>(pointers), options, ctx);
}

Result<Listing> RenderSqueue(std::span<const JobRecord* const> jobs, const SqueueOptions& options,
                             const SqueueContext& ctx) {
  if (options.json) return FailedPrecondition("squeue --json is not implemented yet");
  const auto& table = SqueueFields();
  Result<FormatSpec> spec = !options.format.empty()        ? table.ParseShort(options.format)
                            : !options.format_long.empty() ? table.ParseLong(options.format_long)
                            : options.start                ? table.ParseShort(kSqueueStartFormat)
                            : options.long_format          ? table.ParseShort(kSqueueLongFormat)
                                                           : table.ParseShort(kSqueueDefaultFormat);
  if (!spec.ok()) return spec.status();

  std::vector<const JobRecord*> rows;
  rows.reserve(jobs.size());
  for (const JobRecord* job : jobs) {
    if (options.start && job->state() != wire::JOB_STATE_PENDING) continue;
    rows.push_back(job);
  }
  const std::string_view sort = !options.sort.empty() ? std::string_view(options.sort)
                                : options.start       ? kSqueueStartSort
                                                      : kSqueueDefaultSort;
  ROTA_RETURN_IF_ERROR(SortJobs(rows, sort, ctx));

  Listing listing;
  listing.errors = spec->errors;
  if (options.long_format) listing.text = FormatCtime(ctx.now, ctx.utc_offset_s) + "\n";
  listing.text += table.Render(*spec, rows, ctx, options.no_header);
  return listing;
}

}  // namespace rota::cli::format
