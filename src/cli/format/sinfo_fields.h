#pragma once
// sinfo's table of fields, its grouping of nodes into lines and its preset
// formats, over the nodes the controller sends (rota::wire::NodeInfo).
//
// The wire schema has no partition message yet, so partitions come in as
// SinfoPartition, which the CLI fills from whatever the controller offers.
// Everything here is a pure function of its arguments.
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/format/format_spec.h"
#include "common/duration.h"
#include "common/status.h"
#include "rota.pb.h"

namespace rota::cli::format {

enum class PartitionAvail { kUp, kDown, kDrain, kInactive };

// A partition as sinfo shows it.
struct SinfoPartition {
  std::string name;
  bool is_default = false;  // Printed with a '*'.
  PartitionAvail avail = PartitionAvail::kUp;
  DurationSecs max_time = kInfiniteDuration;  // "TIMELIMIT"; infinite prints "infinite".
  DurationSecs default_time = 0;              // 0: not set ("n/a").
  std::vector<std::string> nodes;             // Member node names, in configured order.
  uint32_t min_nodes = 1;
  uint32_t max_nodes = 0;  // 0: unlimited.
  bool root_only = false;
  std::string oversubscribe = "NO";
  std::string allow_groups;  // Empty: all.
  uint32_t priority_tier = 1;
  uint32_t priority_job_factor = 1;
};

// What sinfo's fields may read besides the line.
struct SinfoContext {
  int64_t now = 0;                             // -l's date line.
  int64_t utc_offset_s = 0;                    // Local time minus UTC, for printed timestamps.
  std::map<uint32_t, std::string> user_names;  // uid -> name, for who set a node's reason.
};

// One line of output: nodes that print alike. `partition` is the partition
// the line's first node was listed under (never null); when the format has
// no partition column a line may hold nodes of several partitions.
struct SinfoRow {
  const SinfoPartition* partition = nullptr;
  std::vector<const wire::NodeInfo*> nodes;
};

// Node state as Slurm's bit set (base state in the low bits, flags above),
// so that sorting by state orders like Slurm's "-t".
namespace node_state {
inline constexpr uint32_t kUnknown = 0, kDown = 1, kIdle = 2, kAllocated = 3, kError = 4,
                          kMixed = 5, kFuture = 6, kBaseMask = 0xf;
inline constexpr uint32_t kReserved = 0x20, kDrain = 0x200, kCompleting = 0x400, kNoRespond = 0x800,
                          kPoweredDown = 0x1000, kFail = 0x2000, kPoweringUp = 0x4000,
                          kMaint = 0x8000;
}  // namespace node_state

// Reads NodeRecord.state ("MIXED", "IDLE+DRAIN", "DOWN*", ...) and its drain
// and admin_down bits. Without a base state, the allocation decides.
uint32_t NodeStateBits(const wire::NodeInfo& node);
std::string NodeStateCompactText(uint32_t bits);  // %t: "mix", "drain", "drng", "idle*"
std::string NodeStateLongText(uint32_t bits);     // %T: "mixed", "drained", "draining"

// Which attributes must agree for nodes to share a line.
using GroupKey = std::function<std::string(const SinfoPartition&, const wire::NodeInfo&)>;
struct GroupingRule {
  std::vector<GroupKey> keys;          // Empty: one line for everything.
  bool one_row_per_node = false;       // -N: a line per (partition, node).
  bool show_empty_partitions = false;  // A line for a partition without nodes.
};

// sinfo's grouping as a pure function: walks partitions in order and their
// nodes in configured order, putting each node on the first line whose keys
// match; a node already on that line (listed under two partitions) counts
// once. Nodes missing from `nodes`, or refused by `keep`, are left out.
std::vector<SinfoRow> GroupNodes(std::span<const SinfoPartition> partitions,
                                 std::span<const wire::NodeInfo> nodes, const GroupingRule& rule,
                                 const std::function<bool(const wire::NodeInfo&)>& keep);

// Slurm 22.05's built-in formats.
inline constexpr std::string_view kSinfoDefaultFormat = "%9P %.5a %.10l %.6D %.6t %N";
inline constexpr std::string_view kSinfoLongFormat =
    "%9P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N";
inline constexpr std::string_view kSinfoNodeFormat = "%N %.6D %.9P %6t";
inline constexpr std::string_view kSinfoNodeLongFormat =
    "%N %.6D %.9P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E";
inline constexpr std::string_view kSinfoReasonFormat = "%20E %9u %19H %N";
inline constexpr std::string_view kSinfoReasonLongFormat = "%20E %12U %19H %6t %N";
inline constexpr std::string_view kSinfoSummaryFormat = "%9P %.5a %.10l %.16F  %N";

const FieldTable<SinfoRow, SinfoContext>& SinfoFields();

struct SinfoOptions {
  std::string format;          // -o; empty: preset.
  std::string format_long;     // -O; used when `format` is empty.
  std::string sort;            // -S; empty: "N" with -N, else "#P,-t".
  bool node_oriented = false;  // -N
  bool long_format = false;    // -l
  bool list_reasons = false;   // -R: only down, drained and failed nodes.
  bool summarize = false;      // -s
  bool no_header = false;      // -h
};

// Reorders rows by a Slurm sinfo -S spec ('-' descending, '#P' partition in
// configured order). Stable; unknown letters are ignored, as in Slurm.
void SortSinfoRows(std::vector<SinfoRow>& rows, std::string_view sort_spec,
                   std::span<const SinfoPartition> partitions);

// The whole listing: -l's date line, header, lines.
Result<Listing> RenderSinfo(std::span<const SinfoPartition> partitions,
                            std::span<const wire::NodeInfo> nodes, const SinfoOptions& options,
                            const SinfoContext& ctx);

}  // namespace rota::cli::format
