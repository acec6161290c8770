#pragma once
// sreport's two reports Rota offers, computed from accounting's job records:
//
//   cluster Utilization   Allocated / Down / PLND Down / Idle / Planned /
//                         Reported TRES time of the cluster in a window
//   user TopUsage         the users (per account) with the most TRES time
//
// Allocated is what jobs held inside the window (each job's allocated TRES
// times the part of its run inside the window); Reported is the configured
// capacity times the window; Down is the TRES of nodes out of service (node
// events: DOWN, DRAIN...) times the part of the event inside the window.
// Reservations are not recorded, so PLND Down and Planned are 0, and Idle is
// Reported - Allocated - Down.
// Pure functions: records, capacity and window in, text out.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "accounting.pb.h"
#include "cli/accounting/sacct_fields.h"
#include "common/status.h"
#include "conf/cluster_config.h"
#include "node_events.pb.h"

namespace rota::cli {

// sreport -t: Minutes (default), Seconds, Hours, and the /Percentage forms.
enum class ReportUnit { kSeconds, kMinutes, kHours };
struct ReportTime {
  ReportUnit unit = ReportUnit::kMinutes;
  bool percent = false;
};
// Case-insensitive, abbreviations allowed ("min", "hourp"); the error names
// the input.
Result<ReportTime> ParseReportTime(std::string_view text);

struct ReportWindow {
  int64_t start = 0;  // Inclusive
  int64_t end = 0;    // Exclusive
};

struct ReportOptions {
  ReportTime time;
  SacctLayout layout = SacctLayout::kAligned;
  bool no_header = false;
  bool tres_named = false;   // -T given: a "TRES Name" column and "TRES" units
  int64_t utc_offset_s = 0;  // For the banner's times
  int64_t now = 0;           // The end of jobs still running
  // format=: the columns chosen and their widths ("Cluster,Used%12");
  // empty: the report's own (sreport_fields.h).
  std::string format;
};

// Shared by the reports (sreport_assoc.h):
// A TRES time as sreport prints it: whole units, with the share of
// `total_seconds` in the /Percentage forms.
std::string TimeValue(double tres_seconds, double total_seconds, const ReportTime& time);
// "2026-11-29T00:00:00" at `utc_offset_s` from UTC.
std::string LocalStamp(int64_t t, int64_t utc_offset_s);
// The dashed banner: the title, then "Usage reported in CPU Minutes".
std::string Banner(const std::string& title, const ReportOptions& o);
// A column whose header the aligned layout cuts to its width (as Slurm does,
// without the '+' that marks a cut value).
PlainColumn Column(std::string_view header, int width, const ReportOptions& o, bool left = false);

// Canonical TRES names for -T ("cpu", "mem", "node", "gres/gpu",
// "gres/gpu:a100"); "billing" and others are refused, naming them.
Result<std::vector<std::string>> ParseReportTres(std::string_view list);

// What the configuration offers of each TRES (memory in MB).
uint64_t TresCapacity(const conf::ClusterConfig& config, const std::string& tres);

// TRES-seconds each job record held inside the window, by TRES name.
double AllocatedTresSeconds(const wire::AccountingJob& job, const std::string& tres,
                            const ReportWindow& window, int64_t now);

// TRES-seconds a node event took out of service inside the window (an open
// event lasts until `now`).
double DownTresSeconds(const wire::NodeEvent& event, const std::string& tres,
                       const ReportWindow& window, int64_t now);

// Down never exceeds what Allocated leaves of Reported (a draining node's jobs
// count as Allocated), so Idle is never negative.
std::string ClusterUtilizationReport(const std::string& cluster,
                                     const std::vector<std::string>& tres,
                                     const std::map<std::string, uint64_t>& capacity,
                                     const std::vector<wire::AccountingJob>& jobs,
                                     const ReportWindow& window, const ReportOptions& options,
                                     const std::vector<wire::NodeEvent>& events = {});

// `proper_names`: login -> the passwd comment (gecos) field. Percentages are
// of the cluster's capacity over the window.
std::string UserTopUsageReport(const std::string& cluster, const std::vector<std::string>& tres,
                               const std::map<std::string, uint64_t>& capacity,
                               const std::vector<wire::AccountingJob>& jobs,
                               const ReportWindow& window, uint32_t top_count, bool group_accounts,
                               const std::map<std::string, std::string>& proper_names,
                               const ReportOptions& options);

}  // namespace rota::cli
