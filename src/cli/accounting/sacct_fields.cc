#include "cli/accounting/sacct_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "cli/accounting/step_usages.h"
#include "cli/format/named_columns.h"
#include "cli/format/time_text.h"
#include "common/duration.h"
#include "common/hostlist.h"
#include "common/memory_size.h"
#include "common/strings.h"
#include "common/tres.h"
#include "common/user_names.h"
#include "model/job_state.h"

namespace rota::cli {
namespace {

using format::Field;
using format::FieldInfo;
using format::FieldTable;
using format::TableColumn;
using Row = SacctRow;
using Ctx = SacctContext;
using Extract = std::string (*)(const Row& row, const Ctx& ctx);

std::string Time(int64_t t, const Ctx& ctx) {
  return t > 0 ? format::FormatIsoTime(t, ctx.utc_offset_s) : "Unknown";
}

int64_t ElapsedSeconds(const wire::AccountingJob& j, const Ctx& ctx) {
  if (j.start_time() <= 0) return 0;
  int64_t end = j.end_time() > 0 ? j.end_time() : ctx.now;
  // Time spent suspended is not part of it, as in Slurm.
  return std::max<int64_t>(0, end - j.start_time() - j.suspended_s());
}

// A count from the requested TRES ("cpu", "node"); 0 when absent.
uint32_t Requested(const wire::AccountingJob& j, std::string_view tres) {
  Result<TresCounts> req = TresCounts::Parse(j.req_tres());
  return req.ok() ? static_cast<uint32_t>(req->Get(tres)) : 0;
}

uint32_t Cpus(const wire::AccountingJob& j) {
  return j.alloc_cpus() > 0 ? j.alloc_cpus() : Requested(j, "cpu");
}

uint32_t Nodes(const wire::AccountingJob& j) {
  return j.alloc_nodes() > 0 ? j.alloc_nodes() : Requested(j, "node");
}

std::string JobId(const Row& r, const Ctx&) {
  std::string id = SacctJobIdText(*r.record);
  if (!r.step.empty()) id += fmt::format(".{}", r.step);
  return id;
}

// What a batch step shows for its job's final state: the script was killed
// (CANCELLED) when the job ran out of time, was preempted or requeued.
wire::JobState BatchState(wire::JobState job) {
  switch (job) {
    case wire::JOB_STATE_TIMEOUT:
    case wire::JOB_STATE_PREEMPTED:
    case wire::JOB_STATE_DEADLINE:
    case wire::JOB_STATE_REQUEUED:
    case wire::JOB_STATE_NODE_FAIL:
      return wire::JOB_STATE_CANCELLED;
    case wire::JOB_STATE_COMPLETING:
      return wire::JOB_STATE_RUNNING;
    default:
      return job;
  }
}

// The fields a step row shares with its job.
wire::AccountingJob StepBase(const wire::AccountingJob& job) {
  wire::AccountingJob r;
  r.set_cluster(job.cluster());
  r.set_job_id(job.job_id());
  r.set_restarts(job.restarts());
  r.set_array_job_id(job.array_job_id());
  r.set_array_task_id(job.array_task_id());
  r.set_account(job.account());
  r.set_uid(job.uid());
  r.set_qos(job.qos());
  r.set_time_limit_s(job.time_limit_s());
  r.set_reason(job.reason());
  return r;
}

// The usage of a step row that was measured at all: its tasks' memory, their
// CPU time or its GPUs' samples. Null on a job's row and where unmeasured.
const wire::StepUsage* Measured(const Row& r) {
  if (r.usage == nullptr) return nullptr;
  const wire::StepUsage& u = *r.usage;
  const bool measured =
      u.tasks() > 0 || u.user_cpu_us() > 0 || u.system_cpu_us() > 0 || u.gpu().samples() > 0;
  return measured ? r.usage : nullptr;
}
// The usage of a step row whose tasks' memory was measured (MaxRSS...).
const wire::StepUsage* MemoryMeasured(const Row& r) {
  const wire::StepUsage* u = Measured(r);
  return u != nullptr && u->tasks() > 0 ? u : nullptr;
}
// A size measured in KiB as sacct shows it: in --units' unit when given.
std::string MemoryKb(uint64_t kb, const Ctx& ctx) {
  if (ctx.units)
    return format::ConvertNumUnitTo(static_cast<double>(kb), format::Unit::kKilo, *ctx.units);
  return SacctMemoryKb(kb, !ctx.no_convert);
}
std::string MaxRss(const Row& r, const Ctx& ctx) {
  const wire::StepUsage* u = MemoryMeasured(r);
  return u != nullptr ? MemoryKb(u->max_rss_kb(), ctx) : "";
}
std::string MaxRssNode(const Row& r, const Ctx&) {
  const wire::StepUsage* u = MemoryMeasured(r);
  return u != nullptr ? u->max_rss_node() : "";
}
std::string MaxRssTask(const Row& r, const Ctx&) {
  const wire::StepUsage* u = MemoryMeasured(r);
  return u != nullptr ? std::to_string(u->max_rss_task()) : "";
}
std::string AveRss(const Row& r, const Ctx& ctx) {
  const wire::StepUsage* u = MemoryMeasured(r);
  return u != nullptr ? MemoryKb(u->ave_rss_kb(), ctx) : "";
}

// TotalCPU, UserCPU, SystemCPU: the step's own on a step row, blank where
// unmeasured; the sum over the job's steps on its row, as Slurm shows it.
using CpuPart = uint64_t (*)(const wire::StepUsage& u);
uint64_t TotalCpuUs(const wire::StepUsage& u) { return u.user_cpu_us() + u.system_cpu_us(); }
uint64_t UserCpuUs(const wire::StepUsage& u) { return u.user_cpu_us(); }
uint64_t SystemCpuUs(const wire::StepUsage& u) { return u.system_cpu_us(); }
std::string CpuField(const Row& r, CpuPart part) {
  if (!r.step.empty()) {
    const wire::StepUsage* u = Measured(r);
    return u != nullptr ? SacctCpuTime(part(*u)) : "";
  }
  uint64_t sum = 0;
  for (const wire::StepUsage* u : StepUsages(*r.record)) sum += part(*u);
  return SacctCpuTime(sum);
}

// ConsumedEnergy(Raw): Rota measures the GPUs' energy only. A step row
// shows its own (blank where nothing was measured), a job row the sum.
std::optional<uint64_t> ConsumedEnergy(const Row& r) {
  if (!r.step.empty()) {
    const wire::StepUsage* u = Measured(r);
    if (u == nullptr) return std::nullopt;
    return GpuEnergyJoules(u->gpu());
  }
  uint64_t sum = 0;
  for (const wire::StepUsage* u : StepUsages(*r.record)) sum += GpuEnergyJoules(u->gpu());
  return sum;
}

// TRESUsageInMax, TRESUsageInAve, TRESUsageInTot: on step rows, what was
// measured, by TRES name.
enum class UsageStat { kMax, kAve, kTot };
std::string TresUsageIn(const Row& r, UsageStat stat) {
  const wire::StepUsage* u = Measured(r);
  if (u == nullptr) return "";
  TresUsageItems items;
  const uint64_t cpu_us = TotalCpuUs(*u);
  if (cpu_us > 0) {
    // Only the step's sum over its tasks is kept, not each task's: Max shows
    // that sum as Tot does (an upper bound of the busiest task's), Ave the
    // sum shared over the tasks.
    const uint64_t tasks = std::max<uint64_t>(u->tasks(), 1);
    const uint64_t us = stat == UsageStat::kAve ? cpu_us / tasks : cpu_us;
    items.emplace_back("cpu", TresUsageCpu(us));
  }
  AddGpuTresUsage(u->gpu(), stat == UsageStat::kAve, items);
  if (u->tasks() > 0) {
    const uint64_t kb = stat == UsageStat::kMax   ? u->max_rss_kb()
                        : stat == UsageStat::kAve ? u->ave_rss_kb()
                                                  : u->ave_rss_kb() * u->tasks();
    items.emplace_back("mem", SacctMemoryKb(kb));
  }
  return SacctTresUsage(std::move(items));
}

// CPUTime: the row's elapsed time times its CPUs.
int64_t CpuTimeSeconds(const Row& r, const Ctx& ctx) {
  return ElapsedSeconds(*r.record, ctx) * static_cast<int64_t>(Cpus(*r.record));
}

// The first host of a hostlist expression ("n[1-2]" -> "n1").
std::string FirstNode(const std::string& nodelist) {
  Result<std::vector<std::string>> nodes = ExpandHostlist(nodelist);
  return nodes.ok() && !nodes->empty() ? nodes->front() : nodelist;
}

// The job's own fields that step rows leave blank (Priority, Comment...).
std::string JobOnly(const Row& r, std::string value) {
  return r.step.empty() ? std::move(value) : std::string();
}

// Reserved, ResvCPU: how long the job waited from eligible to its start
// (to now while it waits); 0 before it was eligible. Job rows only.
int64_t ReservedSeconds(const Row& r, const Ctx& ctx) {
  const wire::AccountingJob& j = *r.record;
  if (j.eligible_time() <= 0) return 0;
  const int64_t until = j.start_time() > 0 ? j.start_time() : (j.ended() ? j.end_time() : ctx.now);
  return std::max<int64_t>(0, until - j.eligible_time());
}

// DerivedExitCode: the highest exit code of the job's srun steps, with the
// signal of that step ("0:0" without steps). Job rows only.
std::string DerivedExitCode(const Row& r) {
  if (!r.step.empty()) return "";
  // As slurmctld keeps it: the largest wait status of the steps.
  uint32_t highest = 0;
  for (const wire::AccountingStep& step : r.record->steps()) {
    highest = std::max(highest, step.exit_code());
  }
  return fmt::format("{}:{}", (highest >> 8) & 0xff, highest & 0x7f);
}

// AveCPU: the step's CPU time shared over its tasks (its sum is all that
// is kept); blank on job rows and where unmeasured.
std::string AveCpu(const Row& r) {
  const wire::StepUsage* u = Measured(r);
  if (u == nullptr) return "";
  return SacctCpuTime(TotalCpuUs(*u) / std::max<uint32_t>(u->tasks(), 1));
}

// ReqCPUFreq*: steps never ask for a CPU frequency here.
std::string UnknownOnSteps(const Row& r, const Ctx&) { return r.step.empty() ? "" : "Unknown"; }

// TRESUsageInMax{Node,Task}: where the measured figures peaked. Only
// memory's peak is kept with its node and task; CPU time and the GPUs'
// figures are kept as the step's sums (shown on the step's first node).
std::string TresWhere(const Row& r, bool task) {
  const wire::StepUsage* u = Measured(r);
  if (u == nullptr) return "";
  const std::string first_node = FirstNode(r.record->nodelist());
  TresUsageItems items;
  if (TotalCpuUs(*u) > 0) items.emplace_back("cpu", task ? "0" : first_node);
  if (u->gpu().samples() > 0) {
    items.emplace_back("gres/gpumem", task ? "0" : first_node);
    items.emplace_back("gres/gpuutil", task ? "0" : first_node);
  }
  if (u->tasks() > 0) {
    items.emplace_back("mem", task ? std::to_string(u->max_rss_task()) : u->max_rss_node());
  }
  return SacctTresUsage(std::move(items));
}

// Justification in the aligned layout.
constexpr bool kLeft = true;
constexpr bool kRight = false;

using SacctTable = format::NamedColumns<Row, Ctx>;
constexpr auto Def = SacctTable::Named;

// What Rota does not measure or keep (VM sizes, pages, disk I/O, CPU
// frequencies, database ids, MCS labels): blank, as Slurm shows a figure its
// plugins did not gather (docs/accounting.md).
constexpr format::BlankColumn kNotKept[] = {
    {"MaxVMSize", 10},
    {"AdminComment", 15},
    {"AssocID", 7},
    {"AveCPUFreq", 10},
    {"AveDiskRead", 14},
    {"AveDiskWrite", 14},
    {"AvePages", 10},
    {"AveVMSize", 10},
    {"BlockID", 16},
    {"Flags", 19},
    {"MaxDiskRead", 12},
    {"MaxDiskReadNode", 15},
    {"MaxDiskReadTask", 15},
    {"MaxDiskWrite", 12},
    {"MaxDiskWriteNode", 16},
    {"MaxDiskWriteTask", 16},
    {"MaxPages", 8},
    {"MaxPagesNode", 12},
    {"MaxPagesTask", 14},
    {"MaxVMSizeNode", 14},
    {"MaxVMSizeTask", 14},
    {"McsLabel", 12},
    {"MinCPU", 10},
    {"MinCPUNode", 10},
    {"MinCPUTask", 10},
    {"QOSRAW", 6},
    {"ReservationId", 8},
    {"SystemComment", 15},
    {"TRESUsageInMin", 14},
    {"TRESUsageInMinNode", 18},
    {"TRESUsageInMinTask", 18},
    {"WCKeyID", 10},
};

// Listed by kind here; kept in Slurm's order, by name.
SacctTable BuildTable() {
  return SacctTable(SacctTable::ByName(SacctTable::WithBlanks(
      SacctTable::WithBlanks(
          {
              Def("JobID", 12, kLeft, JobId),
              Def("JobIDRaw", 12, kLeft,
                  [](const Row& r, const Ctx&) {
                    return r.step.empty() ? std::to_string(r.record->job_id())
                                          : fmt::format("{}.{}", r.record->job_id(), r.step);
                  }),
              Def("JobName", 10, kRight, [](const Row& r, const Ctx&) { return r.record->name(); }),
              Def("Partition", 10, kRight,
                  [](const Row& r, const Ctx&) { return r.record->partition(); }),
              Def("Account", 10, kRight,
                  [](const Row& r, const Ctx&) { return r.record->account(); }),
              Def("AllocCPUS", 10, kRight,
                  [](const Row& r, const Ctx&) { return std::to_string(Cpus(*r.record)); }),
              Def("AllocTRES", 10, kRight,
                  [](const Row& r, const Ctx&) { return SacctTres(r.record->alloc_tres()); }),
              Def("ReqTRES", 10, kRight,
                  [](const Row& r, const Ctx&) { return SacctTres(r.record->req_tres()); }),
              Def("ReqMem", 10, kRight,
                  [](const Row& r, const Ctx& ctx) {
                    const uint64_t mb = r.record->req_mem_mb();
                    return ctx.units ? format::ConvertNumUnitTo(static_cast<double>(mb),
                                                                format::Unit::kMega, *ctx.units)
                                     : FormatMemoryMb(mb);
                  }),
              Def("Elapsed", 10, kRight,
                  [](const Row& r, const Ctx& ctx) {
                    return SacctElapsed(ElapsedSeconds(*r.record, ctx));
                  }),
              Def("ElapsedRaw", 10, kRight,
                  [](const Row& r, const Ctx& ctx) {
                    return std::to_string(ElapsedSeconds(*r.record, ctx));
                  }),
              Def("State", 10, kRight,
                  [](const Row& r, const Ctx&) { return SacctState(*r.record); }),
              Def("ExitCode", 8, kRight,
                  [](const Row& r, const Ctx&) { return SacctExitCode(*r.record); }),
              Def("Start", 19, kRight,
                  [](const Row& r, const Ctx& ctx) { return Time(r.record->start_time(), ctx); }),
              Def("End", 19, kRight,
                  [](const Row& r, const Ctx& ctx) { return Time(r.record->end_time(), ctx); }),
              Def("Submit", 19, kRight,
                  [](const Row& r, const Ctx& ctx) { return Time(r.record->submit_time(), ctx); }),
              Def("NodeList", 15, kLeft,
                  [](const Row& r, const Ctx&) {
                    return r.record->nodelist().empty() ? std::string("None assigned")
                                                        : r.record->nodelist();
                  }),
              Def("Reason", 20, kRight,
                  [](const Row& r, const Ctx&) {
                    return r.record->reason().empty() ? std::string("None") : r.record->reason();
                  }),
              Def("Restarts", 8, kRight,
                  [](const Row& r, const Ctx&) { return std::to_string(r.record->restarts()); }),
              Def("User", 9, kRight, [](const Row& r, const Ctx&) { return r.record->user(); }),
              Def("WCKey", 10, kRight, [](const Row& r, const Ctx&) { return r.record->wckey(); }),
              Def("UID", 6, kRight,
                  [](const Row& r, const Ctx&) { return std::to_string(r.record->uid()); }),
              Def("Timelimit", 10, kRight,
                  [](const Row& r, const Ctx&) {
                    // -1 (and the 0 of a record that never had one) is no limit at all.
                    const int64_t limit = r.record->time_limit_s();
                    return FormatDurationScontrol(limit > 0 ? limit : kInfiniteDuration);
                  }),
              Def("NNodes", 8, kRight,
                  [](const Row& r, const Ctx&) { return std::to_string(Nodes(*r.record)); }),
              Def("AllocNodes", 10, kRight,
                  [](const Row& r, const Ctx&) { return std::to_string(r.record->alloc_nodes()); }),
              Def("NCPUS", 10, kRight,
                  [](const Row& r, const Ctx&) { return std::to_string(Cpus(*r.record)); }),
              Def("ReqCPUS", 8, kRight,
                  [](const Row& r, const Ctx&) {
                    return std::to_string(Requested(*r.record, "cpu"));
                  }),
              Def("MaxRSS", 10, kRight, MaxRss),
              Def("MaxRSSNode", 10, kRight, MaxRssNode),
              Def("MaxRSSTask", 10, kRight, MaxRssTask),
              Def("AveRSS", 10, kRight, AveRss),
              Def("DBIndex", 21, kLeft, [](const Row&, const Ctx&) { return std::string(); }),
              Def("TRESUsageInMax", 14, kRight,
                  [](const Row& r, const Ctx&) { return TresUsageIn(r, UsageStat::kMax); }),
              Def("TRESUsageInAve", 14, kRight,
                  [](const Row& r, const Ctx&) { return TresUsageIn(r, UsageStat::kAve); }),
              Def("TRESUsageInTot", 14, kRight,
                  [](const Row& r, const Ctx&) { return TresUsageIn(r, UsageStat::kTot); }),
              Def("TotalCPU", 10, kRight,
                  [](const Row& r, const Ctx&) { return CpuField(r, TotalCpuUs); }),
              Def("UserCPU", 10, kRight,
                  [](const Row& r, const Ctx&) { return CpuField(r, UserCpuUs); }),
              Def("SystemCPU", 10, kRight,
                  [](const Row& r, const Ctx&) { return CpuField(r, SystemCpuUs); }),
              Def("CPUTime", 10, kRight,
                  [](const Row& r, const Ctx& ctx) {
                    return SacctElapsed(CpuTimeSeconds(r, ctx));
                  }),
              Def("CPUTimeRAW", 10, kRight,
                  [](const Row& r, const Ctx& ctx) {
                    return std::to_string(CpuTimeSeconds(r, ctx));
                  }),
              Def("ConsumedEnergy", 14, kRight,
                  [](const Row& r, const Ctx&) {
                    std::optional<uint64_t> j = ConsumedEnergy(r);
                    return j ? SacctEnergy(*j) : std::string();
                  }),
              Def("ConsumedEnergyRaw", 17, kRight,
                  [](const Row& r, const Ctx&) {
                    std::optional<uint64_t> j = ConsumedEnergy(r);
                    return j ? std::to_string(*j) : std::string();
                  }),
              // Of the request and the run, on the job's row.
              Def("Cluster", 10, kRight, [](const Row& r, const Ctx&) { return r.job->cluster(); }),
              Def("Comment", 14, kRight,
                  [](const Row& r, const Ctx&) { return JobOnly(r, r.job->comment()); }),
              Def("Constraints", 19, kRight,
                  [](const Row& r, const Ctx&) { return JobOnly(r, r.job->constraints()); }),
              Def("Container", 19, kRight,
                  [](const Row& r, const Ctx&) { return JobOnly(r, r.job->container()); }),
              Def("DerivedExitCode", 15, kRight,
                  [](const Row& r, const Ctx&) { return DerivedExitCode(r); }),
              Def("Eligible", 19, kRight,
                  [](const Row& r, const Ctx& ctx) {
                    // A step is eligible when it starts.
                    return Time(r.step.empty() ? r.record->eligible_time() : r.record->start_time(),
                                ctx);
                  }),
              Def("GID", 6, kRight,
                  [](const Row& r, const Ctx&) { return std::to_string(r.job->gid()); }),
              Def("Group", 9, kRight,
                  [](const Row& r, const Ctx&) { return GroupNameOrNumber(r.job->gid()); }),
              Def("Layout", 9, kRight,
                  [](const Row& r, const Ctx&) {
                    return r.step_row != nullptr ? r.step_row->layout : std::string();
                  }),
              Def("NTasks", 8, kRight,
                  [](const Row& r, const Ctx&) {
                    return r.step_row != nullptr ? std::to_string(r.step_row->ntasks)
                                                 : std::string();
                  }),
              Def("Priority", 10, kRight,
                  [](const Row& r, const Ctx&) {
                    return JobOnly(r, std::to_string(r.job->priority()));
                  }),
              Def("QOS", 10, kRight, [](const Row& r, const Ctx&) { return r.job->qos(); }),
              Def("ReqNodes", 8, kRight,
                  [](const Row& r, const Ctx&) {
                    return JobOnly(r, std::to_string(r.job->req_nodes()));
                  }),
              Def("Reservation", 20, kRight,
                  [](const Row& r, const Ctx&) { return JobOnly(r, r.job->reservation()); }),
              Def("Reserved", 10, kRight,
                  [](const Row& r, const Ctx& ctx) {
                    return JobOnly(r, SacctElapsed(ReservedSeconds(r, ctx)));
                  }),
              Def("ResvCPU", 10, kRight,
                  [](const Row& r, const Ctx& ctx) {
                    return JobOnly(
                        r, SacctElapsed(ReservedSeconds(r, ctx) * Requested(*r.job, "cpu")));
                  }),
              Def("ResvCPURAW", 10, kRight,
                  [](const Row& r, const Ctx& ctx) {
                    return JobOnly(
                        r, std::to_string(ReservedSeconds(r, ctx) * Requested(*r.job, "cpu")));
                  }),
              Def("SubmitLine", 20, kRight,
                  [](const Row& r, const Ctx&) { return JobOnly(r, r.job->submit_line()); }),
              Def("Suspended", 10, kRight,
                  [](const Row& r, const Ctx&) { return SacctElapsed(r.job->suspended_s()); }),
              Def("TimelimitRaw", 10, kRight,
                  [](const Row& r, const Ctx&) {
                    // Minutes, as Slurm keeps limits; UNLIMITED without one.
                    const int64_t limit = r.record->time_limit_s();
                    return limit > 0 ? std::to_string((limit + 59) / 60) : std::string("UNLIMITED");
                  }),
              Def("WorkDir", 20, kRight,
                  [](const Row& r, const Ctx&) { return JobOnly(r, r.job->work_dir()); }),
              // Of what the steps used.
              Def("AveCPU", 10, kRight, [](const Row& r, const Ctx&) { return AveCpu(r); }),
              Def("TRESUsageInMaxNode", 18, kRight,
                  [](const Row& r, const Ctx&) { return TresWhere(r, false); }),
              Def("TRESUsageInMaxTask", 18, kRight,
                  [](const Row& r, const Ctx&) { return TresWhere(r, true); }),
              Def("ReqCPUFreq", 10, kRight, UnknownOnSteps),
              Def("ReqCPUFreqMin", 13, kRight, UnknownOnSteps),
              Def("ReqCPUFreqMax", 13, kRight, UnknownOnSteps),
              Def("ReqCPUFreqGov", 13, kRight, UnknownOnSteps),
          },
          kNotKept),
      format::kTresUsageOutColumns)));
}

const SacctTable& Table() {
  static const SacctTable table = BuildTable();
  return table;
}

}  // namespace

std::string SacctTres(const std::string& tres) {
  if (tres.empty()) return "";
  std::vector<std::string_view> items = Split(tres, ',');
  std::sort(items.begin(), items.end(), [](std::string_view a, std::string_view b) {
    return a.substr(0, a.find('=')) < b.substr(0, b.find('='));
  });
  std::string out;
  for (std::string_view item : items) {
    if (!out.empty()) out += ',';
    out.append(item);
  }
  return out;
}

std::string TresUsageCpu(uint64_t micros) {
  return SacctElapsed(static_cast<int64_t>(micros / 1'000'000));
}

uint64_t GpuEnergyJoules(const wire::GpuUsage& gpu) {
  return gpu.samples() > 0 ? static_cast<uint64_t>(std::llround(gpu.energy_j())) : 0;
}

void AddGpuTresUsage(const wire::GpuUsage& gpu, bool mean, TresUsageItems& items) {
  if (gpu.samples() == 0) return;
  // The GPUs' energy is the step's whole: the same whatever the statistic.
  items.emplace_back("energy", std::to_string(GpuEnergyJoules(gpu)));
  const uint64_t mem = mean ? gpu.mem_ave_bytes() : gpu.mem_max_bytes();
  items.emplace_back("gres/gpumem", SacctMemoryKb(mem / 1024));
  const uint64_t util = mean ? static_cast<uint64_t>(std::llround(gpu.util_ave())) : gpu.util_max();
  items.emplace_back("gres/gpuutil", std::to_string(util));
}

std::string SacctTresUsage(TresUsageItems items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [name, value] : items) {
    if (!out.empty()) out += ',';
    out += name + "=" + value;
  }
  return out;
}

std::string SacctMemoryKb(uint64_t kb, bool convert) {
  static constexpr char kUnits[] = {'K', 'M', 'G', 'T', 'P'};
  if (kb == 0) return "0";
  size_t unit = 0;
  while (convert && kb % 1024 == 0 && unit + 1 < sizeof kUnits) {
    kb /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", kb, kUnits[unit]);
}

std::string SacctJobIdText(const wire::AccountingJob& job) {
  return job.array_job_id() != 0 ? fmt::format("{}_{}", job.array_job_id(), job.array_task_id())
                                 : std::to_string(job.job_id());
}

std::string SacctState(const wire::AccountingJob& job) {
  std::string name(model::JobStateName(job.state()));
  if (job.state() == wire::JOB_STATE_CANCELLED && job.cancelled()) {
    name += fmt::format(" by {}", job.cancelled_by_uid());
  }
  return name;
}

std::string SacctExitCode(const wire::AccountingJob& job) {
  // Slurm's job line shows 0:0 for a cancelled job; the signal that ended the
  // script belongs to its batch step.
  if (job.state() == wire::JOB_STATE_CANCELLED && job.cancelled()) return "0:0";
  const uint32_t status = job.exit_code();
  return fmt::format("{}:{}", (status >> 8) & 0xff, status & 0x7f);
}

std::string SacctCpuTime(uint64_t micros) {
  if (micros == 0) return "00:00:00";
  const uint64_t seconds = micros / 1'000'000;
  const uint64_t days = seconds / 86400;
  const uint64_t hours = seconds / 3600 % 24;
  const uint64_t minutes = seconds / 60 % 60;
  if (days > 0) return fmt::format("{}-{:02}:{:02}:{:02}", days, hours, minutes, seconds % 60);
  if (hours > 0) return fmt::format("{:02}:{:02}:{:02}", hours, minutes, seconds % 60);
  return fmt::format("{:02}:{:02}.{:03}", minutes, seconds % 60, micros % 1'000'000 / 1000);
}

std::string SacctEnergy(uint64_t joules) {
  static constexpr char kUnits[] = {'K', 'M', 'G', 'T', 'P'};
  if (joules < 1024) return std::to_string(joules);
  double value = static_cast<double>(joules) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof kUnits) {
    value /= 1024;
    ++unit;
  }
  // Slurm prints a whole value without decimals.
  if (value == std::floor(value)) {
    return fmt::format("{}{}", static_cast<uint64_t>(value), kUnits[unit]);
  }
  return fmt::format("{:.2f}{}", value, kUnits[unit]);
}

std::string SacctElapsed(int64_t seconds) {
  const int64_t days = seconds / 86400;
  const int64_t rest = seconds % 86400;
  std::string hms = fmt::format("{:02}:{:02}:{:02}", rest / 3600, rest / 60 % 60, rest % 60);
  return days > 0 ? fmt::format("{}-{}", days, hms) : hms;
}

const FieldTable<SacctRow, SacctContext>& SacctFields() { return Table().fields(); }

Result<std::vector<SacctColumn>> ParseSacctFormat(std::string_view format) {
  return Table().Parse(format);
}

std::string SacctHelpFormat() { return Table().HelpFormat(); }

std::string RenderSacct(const std::vector<SacctColumn>& columns, SacctLayout layout, bool no_header,
                        const std::vector<wire::AccountingJob>& jobs, const SacctContext& ctx) {
  const SacctTable& table = Table();
  std::string out;
  out.reserve((jobs.size() + 2) * columns.size() * 12);
  const std::vector<TableColumn> shown = table.Shown(columns);
  auto line = [&](const Row& row) {
    format::AppendTableLine(
        out, shown, layout, [&](size_t i) { return table.Value(columns[i], row, ctx); },
        ctx.delimiter);
  };
  if (!no_header) format::AppendTableHeader(out, shown, layout, ctx.delimiter);
  for (const wire::AccountingJob& job : jobs) {
    auto only = ctx.only_steps.find(job.job_id());
    const bool whole = only == ctx.only_steps.end();
    if (whole) line(Row{&job, {}, nullptr, &job, nullptr});
    if (!ctx.steps && whole) continue;
    for (const SacctStepRow& step : SacctStepRows(job)) {
      if (!whole &&
          std::find(only->second.begin(), only->second.end(), step.step) == only->second.end()) {
        continue;
      }
      line(Row{&step.record, step.step, &step.usage, &job, &step});
    }
  }
  return out;
}

std::vector<SacctStepRow> SacctStepRows(const wire::AccountingJob& job) {
  std::vector<SacctStepRow> rows;
  if (job.start_time() <= 0 || job.nodelist().empty()) return rows;
  if (job.extern_step()) {
    // Held on every node from the job's start to its end, with no task of
    // its own: it ends well however the job ends.
    wire::AccountingJob r = StepBase(job);
    r.set_name("extern");
    r.set_state(job.ended() ? wire::JOB_STATE_COMPLETED : wire::JOB_STATE_RUNNING);
    r.set_ended(job.ended());
    r.set_submit_time(job.start_time());
    r.set_start_time(job.start_time());
    r.set_end_time(job.end_time());
    r.set_nodelist(job.nodelist());
    r.set_alloc_cpus(job.alloc_cpus());
    r.set_alloc_nodes(job.alloc_nodes());
    r.set_alloc_tres(job.alloc_tres());
    const uint32_t nodes = std::max<uint32_t>(job.alloc_nodes(), 1);  // One task on each
    rows.push_back({"extern", std::move(r), {}, nodes, "Unknown"});
  }
  if (job.batch()) {
    wire::AccountingJob r = StepBase(job);
    r.set_name("batch");
    r.set_state(BatchState(job.state()));
    r.set_ended(job.ended());
    r.set_exit_code(job.exit_code());
    r.set_submit_time(job.start_time());
    r.set_start_time(job.start_time());
    r.set_end_time(job.end_time());
    r.set_nodelist(FirstNode(job.nodelist()));
    r.set_alloc_cpus(job.batch_cpus());
    r.set_alloc_nodes(1);
    r.set_alloc_tres(job.batch_tres());
    rows.push_back({"batch", std::move(r), job.batch_usage(), 1, "Unknown"});
  }
  for (const wire::AccountingStep& step : job.steps()) {
    wire::AccountingJob r = StepBase(job);
    r.set_name(step.name());
    r.set_state(step.state());
    r.set_ended(step.end_time() > 0);
    r.set_exit_code(step.exit_code());
    r.set_submit_time(step.start_time());
    r.set_start_time(step.start_time());
    r.set_end_time(step.end_time());
    r.set_nodelist(step.nodelist());
    r.set_alloc_cpus(step.alloc_cpus());
    r.set_alloc_nodes(step.alloc_nodes());
    r.set_alloc_tres(step.alloc_tres());
    // Records written before steps kept their layout were dealt as block.
    rows.push_back({std::to_string(step.step_id()), std::move(r), step.usage(), step.ntasks(),
                    step.layout().empty() ? "Block" : step.layout()});
  }
  return rows;
}

std::string RenderColumns(const std::vector<PlainColumn>& columns, SacctLayout layout,
                          bool no_header, const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  if (!no_header) format::AppendTableHeader(out, columns, layout);
  for (const std::vector<std::string>& row : rows) {
    format::AppendTableLine(out, columns, layout,
                            [&](size_t i) { return i < row.size() ? row[i] : std::string(); });
  }
  return out;
}

}  // namespace rota::cli
