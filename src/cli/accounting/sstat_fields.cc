#include "cli/accounting/sstat_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "cli/format/accounting_table.h"
#include "cli/step/step_usage_tally.h"
#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::cli {
namespace {

using format::Field;
using format::FieldInfo;
using format::FieldTable;
using format::TableColumn;
using Row = SstatRow;
using Ctx = SstatContext;
using Extract = std::string (*)(const Row& row, const Ctx& ctx);
using Items = TresUsageItems;

constexpr bool kLeft = true;
constexpr bool kRight = false;

using SstatTable = format::NamedColumns<Row, Ctx>;
constexpr auto Def = SstatTable::Named;

// What Rota does not measure, as Slurm shows what its plugin lacks.
std::string Zero(const Row&, const Ctx&) { return "0"; }
std::string Unknown(const Row&, const Ctx&) { return "Unknown"; }
std::string Blank(const Row&, const Ctx&) { return ""; }
std::string FirstNode(const Row& r, const Ctx&) { return r.totals.first_node; }

std::string Memory(const Row& r, const Ctx& ctx, uint64_t kb) {
  return r.totals.mem_measured ? SacctMemoryKb(kb, !ctx.no_convert) : "0";
}

enum class Stat { kAve, kMax, kMin, kTot };
// TRESUsageIn{Ave,Max,Min,Tot}: what was measured, by TRES name.
std::string TresUsageIn(const Row& r, Stat stat) {
  const SstatTotals& t = r.totals;
  Items items;
  if (t.cpu_measured) {
    const uint64_t us = stat == Stat::kAve   ? t.cpu_ave_us
                        : stat == Stat::kMax ? t.cpu_max_us
                        : stat == Stat::kMin ? t.cpu_min_us
                                             : t.cpu_total_us;
    items.emplace_back("cpu", TresUsageCpu(us));
  }
  if (t.mem_measured) {
    const uint64_t kb = stat == Stat::kAve   ? t.ave_rss_kb
                        : stat == Stat::kMax ? t.max_rss_kb
                        : stat == Stat::kMin ? t.min_rss_kb
                                             : t.tot_rss_kb;
    items.emplace_back("mem", SacctMemoryKb(kb));
  }
  if (stat != Stat::kMin) {
    AddGpuTresUsage(t.gpu, stat == Stat::kAve, items);
  } else if (t.gpu.samples() > 0) {  // The least node's, which sacct never shows
    items.emplace_back("energy", std::to_string(GpuEnergyJoules(t.gpu)));
    items.emplace_back("gres/gpumem", SacctMemoryKb(t.gpu_min_mem_bytes / 1024));
    items.emplace_back("gres/gpuutil", std::to_string(t.gpu_min_util));
  }
  return SacctTresUsage(std::move(items));
}

// TRESUsageIn{Max,Min}{Node,Task}: where each measured figure peaked (or
// was least); tasks are not told apart (0).
std::string TresWhere(const Row& r, bool max, bool task) {
  const SstatTotals& t = r.totals;
  auto where = [&](const std::string& node) { return task ? std::string("0") : node; };
  Items items;
  if (t.cpu_measured) items.emplace_back("cpu", where(max ? t.cpu_max_node : t.cpu_min_node));
  if (t.mem_measured) items.emplace_back("mem", where(max ? t.max_rss_node : t.min_rss_node));
  if (t.gpu.samples() > 0) {
    const std::string& node = max ? t.gpu_max_node : t.gpu_min_node;
    items.emplace_back("gres/gpumem", where(node));
    items.emplace_back("gres/gpuutil", where(node));
  }
  return SacctTresUsage(std::move(items));
}

SstatTable BuildTable() {
  return SstatTable(SstatTable::WithBlanks(
      {
          Def("AveCPU", 10, kRight,
              [](const Row& r, const Ctx&) { return SacctCpuTime(r.totals.cpu_ave_us); }),
          Def("AveCPUFreq", 10, kRight, Zero),
          Def("AveDiskRead", 12, kRight, Zero),
          Def("AveDiskWrite", 12, kRight, Zero),
          Def("AvePages", 10, kRight, Zero),
          Def("AveRSS", 10, kRight,
              [](const Row& r, const Ctx& ctx) { return Memory(r, ctx, r.totals.ave_rss_kb); }),
          Def("AveVMSize", 10, kRight, Zero),
          Def("ConsumedEnergy", 14, kRight,
              [](const Row& r, const Ctx&) { return SacctEnergy(GpuEnergyJoules(r.totals.gpu)); }),
          Def("ConsumedEnergyRaw", 17, kRight,
              [](const Row& r, const Ctx&) {
                return std::to_string(GpuEnergyJoules(r.totals.gpu));
              }),
          Def("JobID", 12, kLeft,
              [](const Row& r, const Ctx&) {
                return fmt::format("{}.{}", r.step->job_id, r.step->step);
              }),
          Def("MaxDiskRead", 12, kRight, Zero),
          Def("MaxDiskReadNode", 15, kRight, FirstNode),
          Def("MaxDiskReadTask", 15, kRight, Zero),
          Def("MaxDiskWrite", 12, kRight, Zero),
          Def("MaxDiskWriteNode", 16, kRight, FirstNode),
          Def("MaxDiskWriteTask", 16, kRight, Zero),
          Def("MaxPages", 8, kRight, Zero),
          Def("MaxPagesNode", 12, kRight, FirstNode),
          Def("MaxPagesTask", 14, kRight, Zero),
          Def("MaxRSS", 10, kRight,
              [](const Row& r, const Ctx& ctx) { return Memory(r, ctx, r.totals.max_rss_kb); }),
          Def("MaxRSSNode", 10, kRight,
              [](const Row& r, const Ctx&) {
                return r.totals.mem_measured ? r.totals.max_rss_node : r.totals.first_node;
              }),
          Def("MaxRSSTask", 10, kRight, Zero),
          Def("MaxVMSize", 10, kRight, Zero),
          Def("MaxVMSizeNode", 14, kRight, FirstNode),
          Def("MaxVMSizeTask", 14, kRight, Zero),
          Def("MinCPU", 10, kRight,
              [](const Row& r, const Ctx&) { return SacctCpuTime(r.totals.cpu_min_us); }),
          Def("MinCPUNode", 10, kRight,
              [](const Row& r, const Ctx&) {
                return r.totals.cpu_measured ? r.totals.cpu_min_node : r.totals.first_node;
              }),
          Def("MinCPUTask", 10, kRight, Zero),
          Def("Nodelist", 20, kRight, [](const Row& r, const Ctx&) { return r.totals.nodelist; }),
          Def("NTasks", 8, kRight,
              [](const Row& r, const Ctx&) { return std::to_string(r.totals.tasks); }),
          Def("Pids", 20, kRight, Blank),
          Def("ReqCPUFreq", 10, kRight, Unknown),
          Def("ReqCPUFreqMin", 13, kRight, Unknown),
          Def("ReqCPUFreqMax", 13, kRight, Unknown),
          Def("ReqCPUFreqGov", 13, kRight, Unknown),
          Def("TRESUsageInAve", 14, kRight,
              [](const Row& r, const Ctx&) { return TresUsageIn(r, Stat::kAve); }),
          Def("TRESUsageInMax", 14, kRight,
              [](const Row& r, const Ctx&) { return TresUsageIn(r, Stat::kMax); }),
          Def("TRESUsageInMaxNode", 18, kRight,
              [](const Row& r, const Ctx&) { return TresWhere(r, true, false); }),
          Def("TRESUsageInMaxTask", 18, kRight,
              [](const Row& r, const Ctx&) { return TresWhere(r, true, true); }),
          Def("TRESUsageInMin", 14, kRight,
              [](const Row& r, const Ctx&) { return TresUsageIn(r, Stat::kMin); }),
          Def("TRESUsageInMinNode", 18, kRight,
              [](const Row& r, const Ctx&) { return TresWhere(r, false, false); }),
          Def("TRESUsageInMinTask", 18, kRight,
              [](const Row& r, const Ctx&) { return TresWhere(r, false, true); }),
          Def("TRESUsageInTot", 14, kRight,
              [](const Row& r, const Ctx&) { return TresUsageIn(r, Stat::kTot); }),
      },
      // Disk I/O is not measured: nothing goes out.
      format::kTresUsageOutColumns));
}

const SstatTable& Table() {
  static const SstatTable table = BuildTable();
  return table;
}

}  // namespace

SstatTotals SstatTotalsOf(const SstatStep& step) {
  SstatTotals t;
  std::vector<std::string> hosts;
  StepUsageTally gpus;
  uint64_t rss_now_kb = 0;  // Summed over the measured tasks
  uint32_t rss_tasks = 0;
  bool gpu_min_set = false;
  uint32_t gpu_max_util = 0;
  for (const wire::StepLiveFigures& n : step.nodes) {
    hosts.push_back(n.node());
    const uint32_t tasks = std::max<uint32_t>(n.tasks(), 1);
    t.tasks += tasks;
    const wire::StepUsage& u = n.usage();
    const uint64_t cpu = u.user_cpu_us() + u.system_cpu_us();
    if (cpu > 0) {
      const uint64_t per_task = cpu / tasks;
      if (!t.cpu_measured || per_task < t.cpu_min_us) {
        t.cpu_min_us = per_task;
        t.cpu_min_node = n.node();
      }
      if (!t.cpu_measured || per_task > t.cpu_max_us) {
        t.cpu_max_us = per_task;
        t.cpu_max_node = n.node();
      }
      t.cpu_measured = true;
      t.cpu_total_us += cpu;
    }
    if (u.tasks() > 0) {
      if (!t.mem_measured || u.max_rss_kb() > t.max_rss_kb) {
        t.max_rss_kb = u.max_rss_kb();
        t.max_rss_node = n.node();
      }
      if (!t.mem_measured || u.ave_rss_kb() < t.min_rss_kb) {
        t.min_rss_kb = u.ave_rss_kb();
        t.min_rss_node = n.node();
      }
      t.mem_measured = true;
      rss_now_kb += u.ave_rss_kb() * u.tasks();
      rss_tasks += u.tasks();
    }
    if (u.gpu().samples() > 0) {
      gpus.AddGpu(u.gpu());
      if (!gpu_min_set || u.gpu().util_max() < t.gpu_min_util) {
        t.gpu_min_util = u.gpu().util_max();
        t.gpu_min_mem_bytes = u.gpu().mem_max_bytes();
        t.gpu_min_node = n.node();
      }
      if (!gpu_min_set || u.gpu().util_max() > gpu_max_util) {
        gpu_max_util = u.gpu().util_max();
        t.gpu_max_node = n.node();
      }
      gpu_min_set = true;
    }
  }
  if (!hosts.empty()) t.first_node = hosts.front();
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  t.nodelist = CompressHostlist(hosts);
  if (t.tasks > 0) t.cpu_ave_us = t.cpu_total_us / t.tasks;
  if (rss_tasks > 0) t.ave_rss_kb = rss_now_kb / rss_tasks;
  t.tot_rss_kb = rss_now_kb;
  t.gpu = gpus.Summary().gpu();
  return t;
}

const format::FieldTable<SstatRow, SstatContext>& SstatFields() { return Table().fields(); }

Result<std::vector<SacctColumn>> ParseSstatFormat(std::string_view format) {
  return Table().Parse(format);
}

std::string RenderSstat(const std::vector<SacctColumn>& columns, SacctLayout layout, bool no_header,
                        const std::vector<SstatStep>& steps, const SstatContext& ctx) {
  const SstatTable& table = Table();
  const std::vector<TableColumn> shown = table.Shown(columns);
  std::string out;
  if (!no_header) format::AppendTableHeader(out, shown, layout);
  for (const SstatStep& step : steps) {
    const Row row{&step, SstatTotalsOf(step)};
    format::AppendTableLine(out, shown, layout,
                            [&](size_t i) { return table.Value(columns[i], row, ctx); });
  }
  return out;
}

Result<std::vector<SstatSelection>> ParseSstatJobs(std::string_view list) {
  std::vector<SstatSelection> out;
  for (std::string_view item : format::SplitFieldList(list)) {
    SstatSelection s;
    const size_t dot = item.find('.');
    std::optional<uint64_t> job = ParseUint(item.substr(0, dot));
    bool ok = job && *job > 0 && *job <= UINT32_MAX;
    if (ok && dot != std::string_view::npos) {
      const std::string_view step = item.substr(dot + 1);
      if (step == "batch") {
        s.kind = SstatSelection::Kind::kBatch;
      } else if (step == "extern") {
        s.kind = SstatSelection::Kind::kExtern;
      } else if (std::optional<uint64_t> id = ParseUint(step); id && *id <= UINT32_MAX) {
        s.kind = SstatSelection::Kind::kStep;
        s.step_id = static_cast<uint32_t>(*id);
      } else {
        ok = false;
      }
    }
    if (!ok) return InvalidArgument(fmt::format("Invalid job id: {}", item));
    s.job_id = static_cast<uint32_t>(*job);
    out.push_back(s);
  }
  return out;
}

std::string SstatHelpFormat() { return Table().HelpFormat(); }

}  // namespace rota::cli
