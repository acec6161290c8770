#pragma once
// sreport's GPU efficiency reports (Rota's own; Slurm has none):
//
//   user GpuEfficiency      per user and account
//   account GpuEfficiency   per account
//
// Allocated is the GPU time jobs held inside the window (gres/gpu x the part
// of their run inside it). Used is that time weighted by the jobs' mean GPU
// utilisation, from the GPU figures that stand for each job (its step
// sampled longest); Efficiency is Used over the Allocated of jobs whose GPUs
// were sampled. Jobs never sampled (a node without NVML, JobAcctGatherFrequency
// longer than the job) count only in Unmeasured. docs/gpu-efficiency.md.
#include <map>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "cli/accounting/sreport_report.h"

namespace rota::cli {

// `by_account`: one row per account instead of per (user, account).
// `proper_names`: login -> the passwd comment field. Rows by Allocated, most
// first.
std::string GpuEfficiencyReport(const std::string& cluster,
                                const std::vector<wire::AccountingJob>& jobs,
                                const ReportWindow& window, bool by_account,
                                const std::map<std::string, std::string>& proper_names,
                                const ReportOptions& o);

}  // namespace rota::cli
