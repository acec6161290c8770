#pragma once
// seff: how efficiently one job used what it was given, in the layout of
// Slurm's contrib seff (version 2.1), from the job's accounting record, with
// Rota's GPU lines after the memory ones (docs/accounting.md, "seff").
//
// Pure functions of (record, context): the time "now" and the name of the
// job's group come in through SeffContext; seff_main.cc asks rotadbd.
#include <cstdint>
#include <string>
#include <vector>

#include "accounting.pb.h"

namespace rota::cli {

// seff's own version line (-v), not Slurm's release.
inline constexpr char kSeffVersionLine[] = "seff Version 2.1\n";

struct SeffContext {
  int64_t now = 0;     // Wall-clock time of a running job
  std::string group;   // The job's group: its gid's name, or the number
  bool debug = false;  // -d: the raw figures first, on "Slurm data:" lines
};

// The report on `job`, each line ending in '\n'. A pending job gets the
// header lines and "Efficiency not available ..."; a running one the figures
// so far and a warning.
std::string SeffReport(const wire::AccountingJob& job, const SeffContext& ctx);

// The record seff reports on among those rotadbd answered for JOBID `id`:
// the job of that id, else (an array's id) its first task; null when none.
const wire::AccountingJob* SeffChooseJob(const std::vector<wire::AccountingJob>& jobs, uint32_t id);

// A size in KiB as seff prints it: 1024-based, two decimals and the unit
// ("512.00 KB", "1.50 GB"); "0.00 MB" for none.
std::string SeffKbytes(double kb);

}  // namespace rota::cli
