#pragma once

// Hostlist expressions exactly as Slurm understands them.
//
//   gpu[01-16]            16 hosts, zero padding kept (gpu01 ... gpu16)
//   cpu[1-3,7]            cpu1 cpu2 cpu3 cpu7
//   rack[1-2]-n[01-03]    several bracket groups: the leftmost varies slowest
//   a1,b[2-3] c4          commas (and blanks) outside brackets separate items
//
// Expansion keeps the order of the expression (and duplicates). Compression
// folds the trailing number of each name into ranges the way `scontrol show
// hostlist` prints them: consecutive names with the same prefix and compatible
// zero padding join a range, ranges of one prefix share one bracket.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota {

// Refuse expressions naming more hosts than this unless the caller raises it.
inline constexpr size_t kDefaultMaxHostlistHosts = 1 << 20;

// Expands `expr`. Errors (InvalidArgument, quoting the whole input) for an
// empty expression, unbalanced or nested brackets, empty or non-numeric
// ranges, a reversed range (gpu[3-1]); OutOfRange when the expression names
// more than `max_hosts` hosts (checked before anything is allocated).
Result<std::vector<std::string>> ExpandHostlist(std::string_view expr,
                                                size_t max_hosts = kDefaultMaxHostlistHosts);

// Number of hosts `expr` names, without expanding it.
Result<size_t> CountHostlist(std::string_view expr, size_t max_hosts = kDefaultMaxHostlistHosts);

enum class HostlistOrder {
  kAsGiven,       // scontrol show hostlist: tux2,tux1,tux2 -> tux[2,1-2]
  kSorted,        // scontrol show hostlistsorted: tux2,tux1,tux2 -> tux[1-2,2]
  kSortedUnique,  // what Rota uses for node sets: tux2,tux1,tux2 -> tux[1-2]
};

// Compresses host names into one expression. Sorting is by prefix in natural
// order, then by number. Names without a trailing number stand alone.
std::string CompressHostlist(const std::vector<std::string>& hosts,
                             HostlistOrder order = HostlistOrder::kSortedUnique);

}  // namespace rota
