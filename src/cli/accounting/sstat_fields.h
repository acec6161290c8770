#pragma once
// sstat's fields and output: Slurm 22.05's field names and widths as a
// format::FieldTable over one row per running step, its nodes' live figures
// (api::kStepStats answers) added up; the layouts are sacct's (aligned, -p,
// -P; cli/format/accounting_table.h) and so are the values' formats
// (sacct_fields.h).
//
// Rota reads one cage per step and node, not one per task: a node's memory
// and CPU time are shared equally over its tasks there, and the *Task
// fields name no task (0). Virtual memory, pages, disk I/O and CPU
// frequency are not measured: they show 0 (or Unknown for the requested
// frequencies), as Slurm shows figures its gather plugin lacks.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/accounting/sacct_fields.h"
#include "cli/format/format_spec.h"
#include "common/status.h"
#include "step_stats.pb.h"

namespace rota::cli {

// Slurm's default field list (no -o).
inline constexpr std::string_view kSstatDefaultFormat =
    "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,"
    "MaxPages,MaxPagesNode,MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,"
    "AveCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov,ConsumedEnergy,MaxDiskRead,"
    "MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask,"
    "AveDiskWrite,TRESUsageInAve,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,"
    "TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutAve,"
    "TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask,TRESUsageOutMin,"
    "TRESUsageOutMinNode,TRESUsageOutMinTask,TRESUsageOutTot";

// One running step as its nodes answered: one StepLiveFigures per node.
struct SstatStep {
  uint32_t job_id = 0;
  std::string step;  // "batch", "0"
  std::vector<wire::StepLiveFigures> nodes;
};

struct SstatContext {
  bool no_convert = false;  // --noconvert: memory in K as measured
};

// The step's figures over its nodes, as the fields read them.
struct SstatTotals {
  uint32_t tasks = 0;
  std::string nodelist;    // The nodes, as a host list
  std::string first_node;  // Where unmeasured figures are said to peak
  bool cpu_measured = false;
  uint64_t cpu_total_us = 0;
  uint64_t cpu_ave_us = 0;  // Per task
  uint64_t cpu_min_us = 0;  // The least per task of a node
  std::string cpu_min_node;
  uint64_t cpu_max_us = 0;  // The most per task of a node
  std::string cpu_max_node;
  bool mem_measured = false;
  uint64_t max_rss_kb = 0;  // The most per task of a node, at its peak
  std::string max_rss_node;
  uint64_t min_rss_kb = 0;  // The least per task of a node, now
  std::string min_rss_node;
  uint64_t ave_rss_kb = 0;   // Per task, now
  uint64_t tot_rss_kb = 0;   // All tasks, now
  wire::GpuUsage gpu;        // The nodes' GPUs added up (no samples: unmeasured)
  std::string gpu_max_node;  // The node whose GPUs peaked highest
  std::string gpu_min_node;
  uint32_t gpu_min_util = 0;       // The least peak of a node's GPUs
  uint64_t gpu_min_mem_bytes = 0;  // That node's peak memory
};
SstatTotals SstatTotalsOf(const SstatStep& step);

struct SstatRow {
  const SstatStep* step = nullptr;
  SstatTotals totals;
};

const format::FieldTable<SstatRow, SstatContext>& SstatFields();

// Parses a --format list as sacct does (case-insensitive names, "Name%N").
// InvalidArgument naming the field for an unknown one.
Result<std::vector<SacctColumn>> ParseSstatFormat(std::string_view format);

// The listing: header (unless `no_header`) and a line per step, each ending in '\n'.
std::string RenderSstat(const std::vector<SacctColumn>& columns, SacctLayout layout, bool no_header,
                        const std::vector<SstatStep>& steps, const SstatContext& ctx);

// One entry of -j: "12" (the job's default step, or all with -a),
// "12.batch", "12.3"; "12.extern" is taken but never measured.
struct SstatSelection {
  enum class Kind { kDefault, kBatch, kExtern, kStep };
  uint32_t job_id = 0;
  Kind kind = Kind::kDefault;
  uint32_t step_id = 0;  // kStep
};
// Parses a -j list. InvalidArgument "Invalid job id: X" for a bad entry.
Result<std::vector<SstatSelection>> ParseSstatJobs(std::string_view list);

// -e/--helpformat: the field names, four to a line.
std::string SstatHelpFormat();

}  // namespace rota::cli
