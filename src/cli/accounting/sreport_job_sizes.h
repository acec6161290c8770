#pragma once
// sreport job SizesByAccount: the CPU time of jobs by job size (allocated
// CPUs, in the ranges Grouping= draws) for each account one level below root
// (or below each account of Accounts=), a sub-account's jobs counted in its
// ancestor at that level.
// Pure: tree, records and window in, text out.
#include <cstdint>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "cli/accounting/sreport_assoc.h"
#include "cli/accounting/sreport_report.h"
#include "common/status.h"

namespace rota::cli {

struct JobSizesOptions {
  std::vector<uint32_t> grouping = {50, 250, 500, 1000};  // Lower bounds after the first range
  std::vector<std::string> parents;                       // Accounts=; empty: root
  bool flat_view = false;        // FlatView: every account on its own, no roll-up
  bool print_job_count = false;  // PrintJobCount: jobs, not time
};

// "50,250,500,1000": increasing, positive. InvalidArgument otherwise.
Result<std::vector<uint32_t>> ParseGrouping(std::string_view text);

std::string JobSizesByAccountReport(const std::string& cluster,
                                    const std::vector<wire::AccountingJob>& jobs,
                                    const AssocTree& tree, const ReportWindow& window,
                                    const JobSizesOptions& sizes, const ReportOptions& options);

}  // namespace rota::cli
