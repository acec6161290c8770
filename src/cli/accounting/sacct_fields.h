#pragma once
// sacct's fields and output: Slurm's field names as a format::FieldTable,
// each with its default width, the --format/-o parser
// ("JobID,JobName%20,AllocTRES%60") and the three layouts Slurm prints
// (aligned columns with a dashed rule, -p with a '|' after every field,
// -P/--parsable2 with '|' between fields; cli/format/accounting_table.h).
//
// Pure functions of (records, options, context): the time "now" and the
// local time zone come in through SacctContext.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "accounting.pb.h"
#include "cli/format/accounting_table.h"
#include "cli/format/format_spec.h"
#include "cli/format/named_columns.h"
#include "cli/format/slurm_units.h"
#include "common/status.h"

namespace rota::cli {

// Slurm's default field list.
inline constexpr std::string_view kSacctDefaultFormat =
    "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode";
// -l/--long: Slurm 22.05's list (the usage fields, then the request's TRES).
inline constexpr std::string_view kSacctLongFormat =
    "JobID,JobIDRaw,JobName,Partition,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,"
    "MaxRSSNode,MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,AvePages,MinCPU,MinCPUNode,"
    "MinCPUTask,AveCPU,NTasks,AllocCPUS,Elapsed,State,ExitCode,AveCPUFreq,ReqCPUFreqMin,"
    "ReqCPUFreqMax,ReqCPUFreqGov,ReqMem,ConsumedEnergy,MaxDiskRead,MaxDiskReadNode,"
    "MaxDiskReadTask,AveDiskRead,MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,"
    "ReqTRES,AllocTRES,TRESUsageInAve,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,"
    "TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutMax,"
    "TRESUsageOutMaxNode,TRESUsageOutMaxTask,TRESUsageOutAve,TRESUsageOutTot";

struct SacctContext {
  int64_t now = 0;           // Elapsed of running jobs
  int64_t utc_offset_s = 0;  // Local time minus UTC, for printed timestamps
  bool steps = false;        // List each job's steps under it (sacct without -X)
  bool no_convert = false;   // --noconvert: MaxRSS/AveRSS in K as measured
  // --units: MaxRSS, AveRSS and ReqMem in this unit (before --noconvert).
  std::optional<format::Unit> units;
  std::string delimiter = "|";  // --delimiter: the separator of -p and -P
  // `sacct -j 28.batch,28.0`: of these jobs only the named steps are listed
  // (not the job's own row). Jobs absent are listed whole.
  std::map<uint32_t, std::vector<std::string>> only_steps;
};

// One step row of a job: "batch" for the batch script, "N" for srun's steps,
// with the step's own values in a record shaped like a job's (name, state,
// exit code, times, nodes, allocation); the rest (ids, account) is the job's.
struct SacctStepRow {
  std::string step;
  wire::AccountingJob record;
  wire::StepUsage usage;  // Empty when not measured (the extern step's always)
  uint32_t ntasks = 1;    // NTasks: srun's count; one per node for extern
  std::string layout;     // Layout: how srun dealt the tasks; "Unknown" for batch, extern
};
// The job's step rows in sacct's order: extern (PrologFlags=Contain), batch,
// then srun's by step id. None for a job that never started.
std::vector<SacctStepRow> SacctStepRows(const wire::AccountingJob& job);

// One line of the listing, as the fields read it: a job's own row or one of
// its step rows. A view: the record and usage belong to the caller (the
// job, or its SacctStepRow) and outlive the row.
struct SacctRow {
  const wire::AccountingJob* record = nullptr;  // The job's, or the step's (SacctStepRow::record)
  std::string_view step;                        // "batch", "0"; "" on the job's own row
  // The step's usage (MaxRSS, TotalCPU...); null on the job's own row, which
  // shows the memory and TRESUsageIn fields blank as Slurm does, and the
  // sums over the job's steps (the record's batch_usage and steps) for
  // TotalCPU, UserCPU, SystemCPU and ConsumedEnergy.
  const wire::StepUsage* usage = nullptr;
  const wire::AccountingJob* job = nullptr;  // The job's own record, on every row
  const SacctStepRow* step_row = nullptr;    // Null on the job's own row
};

// sacct's fields in Slurm's spelling, found by name in any case. Each field's
// header is its name.
const format::FieldTable<SacctRow, SacctContext>& SacctFields();

// A field of SacctFields() and the width it is shown at.
using SacctColumn = format::ChosenColumn;

// The accounting commands' layouts (cli/format/accounting_table.h).
using SacctLayout = format::TableLayout;

// Parses a --format list. Names are case-insensitive; "Name%N" sets the width.
// InvalidArgument naming the field for an unknown one (Slurm: "Invalid field
// requested").
Result<std::vector<SacctColumn>> ParseSacctFormat(std::string_view format);

// --helpformat: every field's name, in Slurm's order, four to a line.
std::string SacctHelpFormat();

// The listing: header (unless `no_header`, plus the dashed rule in the aligned
// layout) and one line per record (followed by its step rows when
// ctx.steps), each ending in '\n'.
std::string RenderSacct(const std::vector<SacctColumn>& columns, SacctLayout layout, bool no_header,
                        const std::vector<wire::AccountingJob>& jobs, const SacctContext& ctx);

// The same layouts for any table (sacctmgr's, sreport's): `rows` hold one
// value per column.
using PlainColumn = format::TableColumn;
std::string RenderColumns(const std::vector<PlainColumn>& columns, SacctLayout layout,
                          bool no_header, const std::vector<std::vector<std::string>>& rows);

// Values as sacct prints them, for tests and --json.
std::string SacctJobIdText(const wire::AccountingJob& job);  // "28", "30_2" (an array task)
std::string SacctState(const wire::AccountingJob& job);      // "CANCELLED by 0"
std::string SacctExitCode(const wire::AccountingJob& job);   // "1:0"
std::string SacctElapsed(int64_t seconds);                   // "1-02:03:04", "00:00:12"
// CPU time in microseconds as sacct prints TotalCPU, UserCPU and SystemCPU:
// "1-02:03:04" with days, "01:02:03" with hours, otherwise minutes, seconds
// and milliseconds ("00:01.250"); "00:00:00" for none.
std::string SacctCpuTime(uint64_t micros);
// Joules as sacct prints ConsumedEnergy: divided by 1024 while at least 1024,
// with K, M, G...; two decimals when not whole ("500", "2K", "1.50K").
std::string SacctEnergy(uint64_t joules);
// TRES in sacct's order (by name): "billing=1,cpu=1,gres/gpu=2,mem=1G,node=1".
std::string SacctTres(const std::string& tres);
// A TRES list of usage figures as sacct prints TRESUsageIn* (sstat too):
// "name=value" items in name order, joined by commas
// ("cpu=00:00:03,energy=300,gres/gpumem=10G,gres/gpuutil=80,mem=4M").
using TresUsageItems = std::vector<std::pair<std::string, std::string>>;
std::string SacctTresUsage(TresUsageItems items);
// The CPU time of a TRES usage list ("cpu=00:01:02"): whole seconds as Elapsed.
std::string TresUsageCpu(uint64_t micros);
// The energy a step's GPUs drew, in whole joules; 0 when they were not sampled.
uint64_t GpuEnergyJoules(const wire::GpuUsage& gpu);
// Appends a sampled step's GPU figures to a TRES usage list: energy=,
// gres/gpumem= and gres/gpuutil=, the means with `mean`, else the peaks.
// Nothing when the GPUs were not sampled.
void AddGpuTresUsage(const wire::GpuUsage& gpu, bool mean, TresUsageItems& items);
// A memory figure in KiB as sacct prints MaxRSS: "1234K", moved to the next
// unit only while it divides exactly ("51200K" is "50M"); "0" for zero.
// `convert` false (--noconvert) keeps it in K.
std::string SacctMemoryKb(uint64_t kb, bool convert = true);

}  // namespace rota::cli
