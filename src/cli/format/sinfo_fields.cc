#include "cli/format/sinfo_fields.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "cli/format/time_text.h"
#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::cli::format {
namespace {

using wire::NodeInfo;
using Ctx = SinfoContext;
namespace ns = node_state;

// Slurm's minimum width of an auto-sized NODELIST column.
constexpr int kMinNodeFieldWidth = 9;

std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }

const NodeInfo& First(const SinfoRow& row) { return *row.nodes.front(); }

bool Busy(uint32_t bits) {
  const uint32_t base = bits & ns::kBaseMask;
  return (bits & ns::kCompleting) || base == ns::kAllocated || base == ns::kMixed;
}

bool Unusable(uint32_t bits) {
  return (bits & (ns::kDrain | ns::kFail)) || (bits & ns::kBaseMask) == ns::kDown;
}

// The marks Slurm appends to a state name.
std::string StateSuffix(uint32_t bits) {
  if (bits & ns::kNoRespond) return "*";
  if (bits & ns::kPoweredDown) return "~";
  if (bits & ns::kPoweringUp) return "#";
  return "";
}

std::string PartitionName(const SinfoRow& row) {
  return row.partition->name + (row.partition->is_default ? "*" : "");
}

std::string AvailText(const SinfoPartition& p) {
  switch (p.avail) {
    case PartitionAvail::kUp:
      return "up";
    case PartitionAvail::kDown:
      return "down";
    case PartitionAvail::kDrain:
      return "drain";
    case PartitionAvail::kInactive:
      return "inactive";
  }
  return "unknown";
}

std::string TimeText(DurationSecs t) {
  if (t == kInfiniteDuration) return "infinite";
  if (t <= 0) return "n/a";
  return FormatDurationSqueue(t);
}

std::string SizeText(const SinfoPartition& p) {
  const std::string max = p.max_nodes == 0 ? "infinite" : std::to_string(p.max_nodes);
  return p.min_nodes == p.max_nodes ? max : std::to_string(p.min_nodes) + "-" + max;
}

std::string JoinFeatures(const NodeInfo& n) {
  return OrNull(Join({n.features().begin(), n.features().end()}, ","));
}

std::string SctText(const NodeInfo& n) {
  return std::to_string(n.sockets()) + ":" + std::to_string(n.cores_per_socket()) + ":" +
         std::to_string(n.threads_per_core());
}

std::string ReasonText(const NodeInfo& n) {
  return n.record().reason().empty() ? "none" : n.record().reason();
}

std::string ReasonUser(const NodeInfo& n, const Ctx& ctx, bool with_uid) {
  if (n.record().reason().empty()) return "Unknown";
  const uint32_t uid = n.record().reason_uid();
  auto it = ctx.user_names.find(uid);
  const std::string name = it != ctx.user_names.end() ? it->second : std::to_string(uid);
  return with_uid ? name + "(" + std::to_string(uid) + ")" : name;
}

std::string ReasonTime(const NodeInfo& n, const Ctx& ctx) {
  const int64_t t = n.record().reason_time();
  return t == 0 ? "Unknown" : FormatIsoTime(t, ctx.utc_offset_s);
}

// CPUS(A/I/O/T): CPUs of drained, down or failed nodes count as "other".
std::string CpusAiot(const SinfoRow& row) {
  uint64_t alloc = 0, idle = 0, other = 0, total = 0;
  for (const NodeInfo* n : row.nodes) {
    const uint32_t free_cpus = n->cpus() > n->alloc_cpus() ? n->cpus() - n->alloc_cpus() : 0;
    alloc += n->alloc_cpus();
    (Unusable(NodeStateBits(*n)) ? other : idle) += free_cpus;
    total += n->cpus();
  }
  return std::to_string(alloc) + "/" + std::to_string(idle) + "/" + std::to_string(other) + "/" +
         std::to_string(total);
}

// NODES(A/I/O/T) and NODES(A/I).
std::string NodesAiot(const SinfoRow& row, bool with_other_total) {
  uint64_t alloc = 0, idle = 0, other = 0;
  for (const NodeInfo* n : row.nodes) {
    const uint32_t bits = NodeStateBits(*n);
    if (Unusable(bits)) {
      ++other;
    } else if (Busy(bits)) {
      ++alloc;
    } else {
      ++idle;
    }
  }
  std::string out = std::to_string(alloc) + "/" + std::to_string(idle);
  if (with_other_total) out += "/" + std::to_string(other) + "/" + std::to_string(row.nodes.size());
  return out;
}

std::string NodeList(const SinfoRow& row) {
  std::vector<std::string> names;
  names.reserve(row.nodes.size());
  for (const NodeInfo* n : row.nodes) names.push_back(n->record().name());
  return CompressHostlist(names);
}

// A field of sinfo's table plus, for node attributes, the key that keeps
// unlike nodes on separate lines (Slurm's match flags).
struct SinfoField {
  Field<SinfoRow, Ctx> field;
  GroupKey key;
};

using R = const SinfoRow&;
using P = const SinfoPartition&;
using N = const NodeInfo&;

// Values of node attributes read the first node: nodes on one line agree on
// every attribute the format shows. An empty line (partition without nodes)
// prints "n/a" for them.
template <std::string (*Fn)(N, const Ctx&)>
std::string FromNode(R row, const Ctx& ctx) {
  return row.nodes.empty() ? "n/a" : Fn(First(row), ctx);
}

std::string StateCompactOf(N n, const Ctx&) { return NodeStateCompactText(NodeStateBits(n)); }
std::string StateLongOf(N n, const Ctx&) { return NodeStateLongText(NodeStateBits(n)); }
std::string CpusOf(N n, const Ctx&) { return std::to_string(n.cpus()); }
std::string MemoryOf(N n, const Ctx&) { return std::to_string(n.real_memory_mb()); }
std::string WeightOf(N n, const Ctx&) { return std::to_string(n.weight()); }
std::string FeaturesOf(N n, const Ctx&) { return JoinFeatures(n); }
std::string GresOf(N n, const Ctx&) { return OrNull(n.gres()); }
std::string GresUsedOf(N n, const Ctx&) { return OrNull(n.gres_used()); }
std::string ReasonOf(N n, const Ctx&) { return ReasonText(n); }
std::string UserOf(N n, const Ctx& c) { return ReasonUser(n, c, false); }
std::string UserLongOf(N n, const Ctx& c) { return ReasonUser(n, c, true); }
std::string TimestampOf(N n, const Ctx& c) { return ReasonTime(n, c); }
std::string SctOf(N n, const Ctx&) { return SctText(n); }
std::string SocketsOf(N n, const Ctx&) { return std::to_string(n.sockets()); }
std::string CoresOf(N n, const Ctx&) { return std::to_string(n.cores_per_socket()); }
std::string ThreadsOf(N n, const Ctx&) { return std::to_string(n.threads_per_core()); }
std::string AddrOf(N n, const Ctx&) { return OrNull(n.address()); }
std::string HostOf(N n, const Ctx&) { return OrNull(n.hostname()); }
std::string PortOf(N n, const Ctx&) { return std::to_string(n.port()); }
// The controller does not report these yet; Slurm's words for "unknown".
std::string DiskOf(N, const Ctx&) { return "0"; }
std::string NotReported(N, const Ctx&) { return "N/A"; }

template <std::string (*Fn)(N, const Ctx&)>
GroupKey NodeKey() {
  return [](P, N n) { return Fn(n, Ctx{}); };
}

GroupKey PartitionKey() {
  return [](P p, N) { return p.name; };
}

std::vector<SinfoField> BuildFields() {
  return {
      {{{'a', "Available", "AVAIL"}, [](R r, const Ctx&) { return AvailText(*r.partition); }},
       [](P p, N) { return AvailText(p); }},
      {{{'A', "NodeAI", "NODES(A/I)"}, [](R r, const Ctx&) { return NodesAiot(r, false); }},
       nullptr},
      {{{'b', "features_act", "ACTIVE_FEATURES"}, FromNode<FeaturesOf>}, NodeKey<FeaturesOf>()},
      {{{'c', "CPUs", "CPUS"}, FromNode<CpusOf>}, NodeKey<CpusOf>()},
      {{{'C', "CPUsState", "CPUS(A/I/O/T)"}, [](R r, const Ctx&) { return CpusAiot(r); }}, nullptr},
      {{{'d', "Disk", "TMP_DISK"}, FromNode<DiskOf>}, nullptr},
      {{{'D', "Nodes", "NODES"}, [](R r, const Ctx&) { return std::to_string(r.nodes.size()); }},
       nullptr},
      {{{'e', "FreeMem", "FREE_MEM"}, FromNode<NotReported>}, nullptr},
      {{{'E', "Reason", "REASON"}, FromNode<ReasonOf>}, NodeKey<ReasonOf>()},
      {{{'f', "Features", "AVAIL_FEATURES"}, FromNode<FeaturesOf>}, NodeKey<FeaturesOf>()},
      {{{'F', "NodeAIOT", "NODES(A/I/O/T)"}, [](R r, const Ctx&) { return NodesAiot(r, true); }},
       nullptr},
      {{{'g', "Groups", "GROUPS"},
        [](R r, const Ctx&) {
          return r.partition->allow_groups.empty() ? std::string("all") : r.partition->allow_groups;
        }},
       [](P p, N) { return p.allow_groups; }},
      {{{'G', "Gres", "GRES"}, FromNode<GresOf>}, NodeKey<GresOf>()},
      {{{0, "GresUsed", "GRES_USED"}, FromNode<GresUsedOf>}, NodeKey<GresUsedOf>()},
      {{{'h', "OverSubscribe", "OVERSUBSCRIBE"},
        [](R r, const Ctx&) { return r.partition->oversubscribe; }},
       [](P p, N) { return p.oversubscribe; }},
      {{{'H', "Timestamp", "TIMESTAMP"}, FromNode<TimestampOf>}, NodeKey<TimestampOf>()},
      {{{'I', "PriorityJobFactor", "PRIO_JOB_FACTOR"},
        [](R r, const Ctx&) { return std::to_string(r.partition->priority_job_factor); }},
       [](P p, N) { return std::to_string(p.priority_job_factor); }},
      {{{'l', "Time", "TIMELIMIT"},
        [](R r, const Ctx&) { return TimeText(r.partition->max_time); }},
       [](P p, N) { return TimeText(p.max_time); }},
      {{{'L', "DefaultTime", "DEFAULTTIME"},
        [](R r, const Ctx&) { return TimeText(r.partition->default_time); }},
       [](P p, N) { return TimeText(p.default_time); }},
      {{{'m', "Memory", "MEMORY"}, FromNode<MemoryOf>}, NodeKey<MemoryOf>()},
      {{{0, "AllocMem", "ALLOCMEM"},
        [](R r, const Ctx&) {
          uint64_t sum = 0;
          for (const NodeInfo* n : r.nodes) sum += n->alloc_mem_mb();
          return std::to_string(sum);
        }},
       nullptr},
      {{{'n', "NodeHost", "HOSTNAMES"}, FromNode<HostOf>}, NodeKey<HostOf>()},
      {{{'N', "NodeList", "NODELIST"}, [](R r, const Ctx&) { return NodeList(r); }}, nullptr},
      {{{'o', "NodeAddr", "NODE_ADDR"}, FromNode<AddrOf>}, NodeKey<AddrOf>()},
      {{{'O', "CPUsLoad", "CPU_LOAD"}, FromNode<NotReported>}, nullptr},
      {{{'p', "PriorityTier", "PRIO_TIER"},
        [](R r, const Ctx&) { return std::to_string(r.partition->priority_tier); }},
       [](P p, N) { return std::to_string(p.priority_tier); }},
      {{{'P', "Partition", "PARTITION"}, [](R r, const Ctx&) { return PartitionName(r); }},
       PartitionKey()},
      {{{0, "Port", "PORT"}, FromNode<PortOf>}, NodeKey<PortOf>()},
      {{{'r', "Root", "ROOT"},
        [](R r, const Ctx&) { return std::string(r.partition->root_only ? "yes" : "no"); }},
       [](P p, N) { return std::string(p.root_only ? "yes" : "no"); }},
      {{{'R', "PartitionName", "PARTITION"}, [](R r, const Ctx&) { return r.partition->name; }},
       PartitionKey()},
      {{{'s', "Size", "JOB_SIZE"}, [](R r, const Ctx&) { return SizeText(*r.partition); }},
       [](P p, N) { return SizeText(p); }},
      {{{'t', "StateCompact", "STATE"}, FromNode<StateCompactOf>}, NodeKey<StateCompactOf>()},
      {{{'T', "StateLong", "STATE"}, FromNode<StateLongOf>}, NodeKey<StateLongOf>()},
      {{{'u', "User", "USER"}, FromNode<UserOf>},
       [](P, N n) { return std::to_string(n.record().reason_uid()); }},
      {{{'U', "UserLong", "USER"}, FromNode<UserLongOf>},
       [](P, N n) { return std::to_string(n.record().reason_uid()); }},
      {{{'v', "Version", "VERSION"}, FromNode<NotReported>}, nullptr},
      {{{'w', "Weight", "WEIGHT"}, FromNode<WeightOf>}, NodeKey<WeightOf>()},
      {{{'X', "Sockets", "SOCKETS"}, FromNode<SocketsOf>}, NodeKey<SocketsOf>()},
      {{{'Y', "Cores", "CORES"}, FromNode<CoresOf>}, NodeKey<CoresOf>()},
      {{{'z', "SocketCoreThread", "S:C:T"}, FromNode<SctOf>}, NodeKey<SctOf>()},
      {{{'Z', "Threads", "THREADS"}, FromNode<ThreadsOf>}, NodeKey<ThreadsOf>()},
  };
}

struct SinfoTables {
  std::vector<GroupKey> keys;  // Parallel to the table's fields.
  FieldTable<SinfoRow, Ctx> table;
};

SinfoTables BuildTables() {
  std::vector<SinfoField> defs = BuildFields();
  std::vector<GroupKey> keys;
  std::vector<Field<SinfoRow, Ctx>> fields;
  for (SinfoField& d : defs) {
    keys.push_back(std::move(d.key));
    fields.push_back(d.field);
  }
  return SinfoTables{
      std::move(keys),
      FieldTable<SinfoRow, Ctx>("Invalid node format specification: ", std::move(fields))};
}

const SinfoTables& Tables() {
  static const SinfoTables tables = BuildTables();
  return tables;
}

}  // namespace

uint32_t NodeStateBits(const NodeInfo& node) {
  static const std::unordered_map<std::string, uint32_t> kBase = {
      {"UNKNOWN", ns::kUnknown},     {"DOWN", ns::kDown},       {"IDLE", ns::kIdle},
      {"ALLOCATED", ns::kAllocated}, {"ALLOC", ns::kAllocated}, {"ERROR", ns::kError},
      {"MIXED", ns::kMixed},         {"MIX", ns::kMixed},       {"FUTURE", ns::kFuture}};
  static const std::unordered_map<std::string, uint32_t> kFlags = {
      {"DRAIN", ns::kDrain},
      {"DRAINED", ns::kDrain},
      {"DRAINING", ns::kDrain},
      {"COMPLETING", ns::kCompleting},
      {"COMP", ns::kCompleting},
      {"FAIL", ns::kFail},
      {"FAILING", ns::kFail},
      {"MAINT", ns::kMaint},
      {"RESERVED", ns::kReserved},
      {"NOT_RESPONDING", ns::kNoRespond},
      {"NO_RESPOND", ns::kNoRespond},
      {"POWERED_DOWN", ns::kPoweredDown},
      {"POWER_DOWN", ns::kPoweredDown},
      {"POWERING_UP", ns::kPoweringUp}};
  const wire::NodeRecord& rec = node.record();
  int base = -1;
  uint32_t flags = 0;
  for (std::string_view token : Split(rec.state(), '+')) {
    while (!token.empty() && (token.back() == '*' || token.back() == '~' || token.back() == '#')) {
      if (token.back() == '*') flags |= ns::kNoRespond;
      token.remove_suffix(1);
    }
    const std::string upper = ToUpper(Trim(token));
    if (auto b = kBase.find(upper); b != kBase.end()) {
      base = static_cast<int>(b->second);
    } else if (auto f = kFlags.find(upper); f != kFlags.end()) {
      flags |= f->second;
    }
  }
  if (rec.drain()) flags |= ns::kDrain;
  if (rec.admin_down()) base = ns::kDown;
  if (base < 0) {
    // "DRAIN" alone, or nothing: what the node holds tells idle from busy.
    if (node.alloc_cpus() == 0) {
      base = ns::kIdle;
    } else {
      base = node.alloc_cpus() >= node.cpus() ? ns::kAllocated : ns::kMixed;
    }
  }
  return static_cast<uint32_t>(base) | flags;
}

std::string NodeStateCompactText(uint32_t bits) {
  const uint32_t base = bits & ns::kBaseMask;
  const std::string mark = StateSuffix(bits);
  if (bits & ns::kDrain) return (Busy(bits) ? "drng" : "drain") + mark;
  if (bits & ns::kFail) return (Busy(bits) ? "failg" : "fail") + mark;
  if (base == ns::kDown) return "down" + mark;
  if (bits & ns::kMaint) return "maint" + mark;
  if (bits & ns::kCompleting) return "comp" + mark;
  if (bits & ns::kReserved) return "resv" + mark;
  switch (base) {
    case ns::kIdle:
      return "idle" + mark;
    case ns::kAllocated:
      return "alloc" + mark;
    case ns::kMixed:
      return "mix" + mark;
    case ns::kFuture:
      return "futr" + mark;
    case ns::kError:
      return "err" + mark;
    default:
      return "unk" + mark;
  }
}

std::string NodeStateLongText(uint32_t bits) {
  const uint32_t base = bits & ns::kBaseMask;
  const std::string mark = StateSuffix(bits);
  if (bits & ns::kDrain) return (Busy(bits) ? "draining" : "drained") + mark;
  if (bits & ns::kFail) return (Busy(bits) ? "failing" : "fail") + mark;
  if (base == ns::kDown) return "down" + mark;
  if (bits & ns::kMaint) return "maint" + mark;
  if (bits & ns::kCompleting) return "completing" + mark;
  if (bits & ns::kReserved) return "reserved" + mark;
  switch (base) {
    case ns::kIdle:
      return "idle" + mark;
    case ns::kAllocated:
      return "allocated" + mark;
    case ns::kMixed:
      return "mixed" + mark;
    case ns::kFuture:
      return "future" + mark;
    case ns::kError:
      return "error" + mark;
    default:
      return "unknown" + mark;
  }
}

std::vector<SinfoRow> GroupNodes(std::span<const SinfoPartition> partitions,
                                 std::span<const NodeInfo> nodes, const GroupingRule& rule,
                                 const std::function<bool(const NodeInfo&)>& keep) {
  std::unordered_map<std::string, const NodeInfo*> by_name;
  for (const NodeInfo& n : nodes) by_name.emplace(n.record().name(), &n);

  std::vector<SinfoRow> rows;
  std::vector<std::string> row_keys;               // Parallel to rows.
  std::vector<std::set<std::string>> row_members;  // Node names on each row.
  for (const SinfoPartition& part : partitions) {
    if (part.nodes.empty() && rule.show_empty_partitions) {
      rows.push_back(SinfoRow{&part, {}});
      row_keys.emplace_back();
      row_members.emplace_back();
      continue;
    }
    for (const std::string& name : part.nodes) {
      auto it = by_name.find(name);
      if (it == by_name.end() || (keep && !keep(*it->second))) continue;
      const NodeInfo& node = *it->second;
      std::string key;
      for (const GroupKey& k : rule.keys) {
        key += k(part, node);
        key += '\x1f';  // Keeps ("ab","c") apart from ("a","bc").
      }
      size_t r = rows.size();
      if (!rule.one_row_per_node) {
        // Lines are few; a linear scan keeps first-seen order simply.
        for (size_t i = 0; i < rows.size(); ++i) {
          if (!rows[i].nodes.empty() && row_keys[i] == key) {
            r = i;
            break;
          }
        }
      }
      if (r == rows.size()) {
        rows.push_back(SinfoRow{&part, {}});
        row_keys.push_back(key);
        row_members.emplace_back();
      }
      if (row_members[r].insert(name).second) rows[r].nodes.push_back(&node);
    }
  }
  return rows;
}

void SortSinfoRows(std::vector<SinfoRow>& rows, std::string_view sort_spec,
                   std::span<const SinfoPartition> partitions) {
  auto part_index = [&](const SinfoRow& r) {
    return static_cast<long>(r.partition - partitions.data());
  };
  auto state_of = [](const SinfoRow& r) -> long {
    return r.nodes.empty() ? -1 : static_cast<long>(NodeStateBits(First(r)));
  };
  auto first_name = [](const SinfoRow& r) {
    return r.nodes.empty() ? std::string() : First(r).record().name();
  };
  // One stable sort per key, last key first, as Slurm does.
  for (size_t i = sort_spec.size(); i-- > 0;) {
    const char c = sort_spec[i];
    const bool descending = i > 0 && sort_spec[i - 1] == '-';
    const bool part_order = i > 0 && sort_spec[i - 1] == '#';
    std::function<int(const SinfoRow&, const SinfoRow&)> cmp;
    auto diff = [](auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); };
    switch (c) {
      case 'P':
        cmp = [&](const SinfoRow& a, const SinfoRow& b) {
          return part_order ? diff(part_index(a), part_index(b))
                            : diff(a.partition->name, b.partition->name);
        };
        break;
      case 't':
      case 'T':
        cmp = [&](const SinfoRow& a, const SinfoRow& b) { return diff(state_of(a), state_of(b)); };
        break;
      case 'N':
        cmp = [&](const SinfoRow& a, const SinfoRow& b) {
          return NaturalCompare(first_name(a), first_name(b));
        };
        break;
      case 'D':
        cmp = [&](const SinfoRow& a, const SinfoRow& b) {
          return diff(a.nodes.size(), b.nodes.size());
        };
        break;
      case 'l':
        cmp = [&](const SinfoRow& a, const SinfoRow& b) {
          return diff(a.partition->max_time, b.partition->max_time);
        };
        break;
      default:
        continue;  // Slurm ignores letters it does not sort by.
    }
    std::stable_sort(rows.begin(), rows.end(), [&](const SinfoRow& a, const SinfoRow& b) {
      const int d = cmp(a, b);
      return descending ? d > 0 : d < 0;
    });
  }
}

const FieldTable<SinfoRow, SinfoContext>& SinfoFields() { return Tables().table; }

Result<Listing> RenderSinfo(std::span<const SinfoPartition> partitions,
                            std::span<const NodeInfo> nodes, const SinfoOptions& options,
                            const SinfoContext& ctx) {
  const SinfoTables& tables = Tables();
  const bool preset = options.format.empty() && options.format_long.empty();
  std::string_view preset_format = kSinfoDefaultFormat;
  if (options.summarize) {
    preset_format = kSinfoSummaryFormat;
  } else if (options.node_oriented) {
    preset_format = options.long_format ? kSinfoNodeLongFormat : kSinfoNodeFormat;
  } else if (options.list_reasons) {
    preset_format = options.long_format ? kSinfoReasonLongFormat : kSinfoReasonFormat;
  } else if (options.long_format) {
    preset_format = kSinfoLongFormat;
  }
  Result<FormatSpec> spec = !options.format.empty() ? tables.table.ParseShort(options.format)
                            : !options.format_long.empty()
                                ? tables.table.ParseLong(options.format_long)
                                : tables.table.ParseShort(preset_format);
  if (!spec.ok()) return spec.status();
  if (preset && options.node_oriented && !options.summarize) {
    // Slurm sizes the node column of its -N formats from the data.
    for (FormatItem& item : spec->items) {
      if (item.field >= 0 &&
          tables.table.fields()[static_cast<size_t>(item.field)].info.letter == 'N') {
        item.auto_min_width = kMinNodeFieldWidth;
      }
    }
  }

  GroupingRule rule;
  rule.one_row_per_node = options.node_oriented;
  bool shows_partition = false;
  for (const FormatItem& item : spec->items) {
    if (item.field < 0) continue;
    const size_t f = static_cast<size_t>(item.field);
    if (tables.keys[f]) rule.keys.push_back(tables.keys[f]);
    const char letter = tables.table.fields()[f].info.letter;
    shows_partition = shows_partition || letter == 'P' || letter == 'R';
  }
  rule.show_empty_partitions = shows_partition && !options.node_oriented && !options.list_reasons;
  std::function<bool(const NodeInfo&)> keep;
  if (options.list_reasons) {
    keep = [](const NodeInfo& n) { return Unusable(NodeStateBits(n)); };
  }
  std::vector<SinfoRow> rows = GroupNodes(partitions, nodes, rule, keep);
  SortSinfoRows(rows,
                !options.sort.empty()   ? std::string_view(options.sort)
                : options.node_oriented ? std::string_view("N")
                                        : std::string_view("#P,-t"),
                partitions);

  std::vector<const SinfoRow*> ptrs;
  ptrs.reserve(rows.size());
  for (const SinfoRow& r : rows) ptrs.push_back(&r);
  Listing listing;
  listing.errors = spec->errors;
  if (options.long_format) listing.text = FormatCtime(ctx.now, ctx.utc_offset_s) + "\n";
  listing.text += tables.table.Render(*spec, ptrs, ctx, options.no_header);
  return listing;
}

}  // namespace rota::cli::format
