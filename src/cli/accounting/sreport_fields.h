#pragma once
// sreport's columns: each report's fields in a table of the accounting
// commands' format engine (format/named_columns.h, as sacct's and sstat's),
// chosen and sized by the report's format= list ("format=Cluster,Used%12"),
// and printed in the aligned, -p and -P layouts.
//
// Field names are Slurm's (its man page's "FORMAT OPTIONS FOR EACH REPORT"),
// in any case, and may be cut short: "al" is Allocated, the first field of
// the report that starts so. "Name%N" sets the width. Without format= a
// report shows the columns it always has (with TresName under -T).
//
//   cluster Utilization       Allocated Cluster Down Idle OverCommitted Planned
//                             PlannedDown Reported TresCount TresName
//   user TopUsage             Accounts Cluster Energy Login Proper TresName Used
//   cluster AccountUtilizationByUser, UserUtilizationByAccount
//                             the same and TresCount (blank, as in Slurm)
//   job SizesByAccount        Account Cluster (the size ranges and "% of
//                             cluster" always follow)
//   user/account GpuEfficiency (Rota's own) Account Allocated Cluster Efficiency
//                             Jobs Login Proper Used Unmeasured (no Login and
//                             Proper by account)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/accounting/sreport_report.h"
#include "cli/format/accounting_table.h"
#include "common/status.h"

namespace rota::cli {

enum class SreportReport {
  kUtilization,
  kTopUsage,
  kAccountUtilizationByUser,
  kUserUtilizationByAccount,
  kSizesByAccount,
  kGpuEfficiencyByUser,
  kGpuEfficiencyByAccount,
};

// The list of a report's format= condition ("Format=Cluster,Used%12", the
// key in any case); nullopt for any other word.
std::optional<std::string_view> FormatCondition(std::string_view word);

// Whether `options.format` names only fields of `report` (empty: yes).
// InvalidArgument in Slurm's words, "Unknown field 'X'", for a name the
// report lacks; "No fields requested" for a list of none.
Status CheckSreportFormat(SreportReport report, const ReportOptions& options);

// As Slurm's sreport: the names of `options.format` that `report` lacks are
// dropped from it, and the report shows the others. Returns one message per
// name dropped, in Slurm's words ("Unknown field 'X'").
std::vector<std::string> DropUnknownFields(SreportReport report, ReportOptions& options);

// The renderers below print the header (unless options.no_header) and one
// line per element, in options.layout, in the columns options.format
// chooses. REQUIRES: CheckSreportFormat passed; otherwise they show the
// report's own columns.

// cluster Utilization: one TRES over the window, in TRES-seconds.
struct UtilizationLine {
  std::string cluster;
  std::string tres;
  uint64_t tres_count = 0;  // What the cluster has of it
  double allocated = 0;
  double down = 0;
  double planned_down = 0;
  double idle = 0;
  double planned = 0;
  double over_committed = 0;
  double reported = 0;  // Percentages are of this
};
std::string RenderUtilization(const std::vector<UtilizationLine>& lines,
                              const ReportOptions& options);

// A line of TopUsage, AccountUtilizationByUser or UserUtilizationByAccount.
struct UsageLine {
  std::string cluster;
  std::string account;  // As shown: indented in AccountUtilizationByUser
  std::string login;
  std::string proper_name;
  std::string tres;
  double used = 0;   // TRES-seconds
  double total = 0;  // The cluster's TRES-seconds: percentages are of this
};
// REQUIRES: `report` is one of those three.
std::string RenderUsage(SreportReport report, const std::vector<UsageLine>& lines,
                        const ReportOptions& options);

// job SizesByAccount: one account's values, already as shown, one per
// column of `size_columns` (the ranges and "% of cluster").
struct SizesLine {
  std::string cluster;
  std::string account;
  std::vector<std::string> cells;
};
std::string RenderSizes(const std::vector<SizesLine>& lines,
                        const std::vector<format::TableColumn>& size_columns,
                        const ReportOptions& options);

// user/account GpuEfficiency: GPU-seconds of one user and account, or of
// one account.
struct GpuEfficiencyLine {
  std::string cluster;
  std::string login;
  std::string proper_name;
  std::string account;
  double allocated = 0;   // Of sampled jobs
  double used = 0;        // Of those, weighted by utilisation
  double unmeasured = 0;  // Of jobs never sampled
  int jobs = 0;
};
std::string RenderGpuEfficiency(bool by_account, const std::vector<GpuEfficiencyLine>& lines,
                                const ReportOptions& options);

}  // namespace rota::cli
