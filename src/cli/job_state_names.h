#pragma once

// The job state names Slurm 22.05's commands take in their state filters
// (squeue -t, sacct -s), Rota's states and those it never reaches alike: a
// script filtering on CONFIGURING or SPECIAL_EXIT gets no jobs, not an error.
// Checked before anything is contacted.

#include <string>
#include <string_view>

namespace rota::cli {

// squeue -t/--states: a base state or a state flag, in full or compact form
// (PENDING, PD, CONFIGURING, CF, ...), any case, or "all".
bool IsSqueueStateName(std::string_view name);

// squeue's refusal of `name`: two lines without the "squeue: error: "
// prefixes, the second listing the names it takes.
std::string SqueueStateError(std::string_view name);

// sacct -s/--state: the same names but "all".
bool IsSacctStateName(std::string_view name);

}  // namespace rota::cli
