#include "ctld/core/reservation_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::ctld {
namespace {

constexpr uint32_t kMayOverlap = wire::RESV_FLAG_MAINT | wire::RESV_FLAG_OVERLAP;

bool Given(const wire::ReservationRequest& request, std::string_view key) {
  return std::any_of(request.given().begin(), request.given().end(),
                     [&](const std::string& g) { return EqualsIgnoreCase(g, key); });
}

bool Overlaps(const wire::ReservationRecord& a, const wire::ReservationRecord& b) {
  return a.start_time() < b.end_time() && b.start_time() < a.end_time();
}

Status NodesBusy() { return FailedPrecondition("Requested nodes are busy"); }

}  // namespace

bool ReservationTable::Conflict(const wire::ReservationRecord& a,
                                const wire::ReservationRecord& b) {
  if (((a.flags() | b.flags()) & kMayOverlap) != 0 || !Overlaps(a, b)) return false;
  for (const std::string& n : a.nodes()) {
    if (std::find(b.nodes().begin(), b.nodes().end(), n) != b.nodes().end()) return true;
  }
  return false;
}

Status ReservationTable::Place(const wire::ReservationRequest& request, bool check_busy,
                               const conf::ClusterConfig& config, const BusyUntil& busy,
                               wire::ReservationRecord& r) const {
  const bool ignore_jobs = (r.flags() & wire::RESV_FLAG_IGNORE_JOBS) != 0;
  // A node the reservation may take: no other reservation holds it over an
  // overlapping window (unless one of them allows it), and, unless told to
  // ignore jobs, no job is expected to still run there when it starts.
  auto others_hold = [&](const std::string& node) {
    wire::ReservationRecord probe = r;
    probe.clear_nodes();
    probe.add_nodes(node);
    for (const auto& [name, other] : by_name_) {
      if (name != r.name() && Conflict(probe, other)) return true;
    }
    return false;
  };
  auto jobs_hold = [&](const std::string& node) {
    auto it = busy.find(node);
    return !ignore_jobs && it != busy.end() && it->second > r.start_time();
  };
  std::vector<std::string> pool;
  if (!r.partition().empty()) {
    const conf::PartitionConfig* p = config.FindPartition(r.partition());
    if (p == nullptr) return InvalidArgument("Invalid partition name specified");
    pool = p->nodes;
  } else {
    for (const conf::NodeConfig& n : config.nodes) pool.push_back(n.name);
  }

  const bool nodes_given = Given(request, "nodes");
  const bool count_given = Given(request, "nodecnt");
  if (nodes_given) {
    std::vector<std::string> named;
    if (EqualsIgnoreCase(request.nodes(), "ALL")) {
      named = pool;
    } else {
      Result<std::vector<std::string>> expanded = ExpandHostlist(request.nodes());
      if (!expanded.ok()) return InvalidArgument("Invalid node name specified");
      named = std::move(expanded).value();
    }
    std::set<size_t> order;  // Configuration order, no duplicates
    for (const std::string& n : named) {
      auto it = config.node_index.find(n);
      if (it == config.node_index.end()) return InvalidArgument("Invalid node name specified");
      order.insert(it->second);
    }
    if (order.empty()) return InvalidArgument("Invalid node name specified");
    r.clear_nodes();
    for (size_t i : order) r.add_nodes(config.nodes[i].name);
    r.set_flags(r.flags() | wire::RESV_FLAG_SPEC_NODES);
    check_busy = true;
  } else if (count_given) {
    if (request.node_count() == 0) return InvalidArgument("Invalid node count specified");
    r.clear_nodes();
    r.set_flags(r.flags() & ~uint32_t{wire::RESV_FLAG_SPEC_NODES});
    for (const std::string& n : pool) {
      if (static_cast<uint32_t>(r.nodes_size()) == request.node_count()) break;
      if (!others_hold(n) && !jobs_hold(n)) r.add_nodes(n);
    }
    if (static_cast<uint32_t>(r.nodes_size()) < request.node_count()) return NodesBusy();
    check_busy = false;  // Chosen among the free ones
  } else if (r.nodes().empty()) {
    return InvalidArgument("Nodes or NodeCnt must be specified");
  }
  for (const std::string& n : r.nodes()) {
    if (others_hold(n) || (check_busy && jobs_hold(n))) return NodesBusy();
  }
  uint32_t cores = 0;
  for (const std::string& n : r.nodes()) {
    if (const conf::NodeConfig* c = config.FindNode(n)) cores += c->cpus;
  }
  r.set_core_count(cores);
  return Status::Ok();
}

Result<wire::ReservationRecord> ReservationTable::Create(const wire::ReservationRequest& request,
                                                         const std::string& user,
                                                         const conf::ClusterConfig& config,
                                                         const BusyUntil& busy, int64_t now) {
  wire::ReservationRecord r;
  uint32_t suffix = next_suffix_;
  if (request.name().empty()) {
    while (by_name_.count(fmt::format("{}_{}", user, suffix)) > 0) ++suffix;
    r.set_name(fmt::format("{}_{}", user, suffix));
  } else if (by_name_.count(request.name()) > 0) {
    return Status(StatusCode::kAlreadyExists, "Duplicate reservation name");
  } else {
    r.set_name(request.name());
  }
  // A start in the past (StartTime=now typed a moment ago) begins now.
  r.set_start_time(std::max(request.start_time(), now));
  if (Given(request, "endtime")) {
    r.set_end_time(request.end_time());
  } else if (Given(request, "duration")) {
    r.set_end_time(r.start_time() +
                   (request.duration_s() < 0 ? kUnlimitedReservationSecs : request.duration_s()));
  } else {
    return InvalidArgument("Duration or EndTime must be specified");
  }
  if (r.end_time() <= r.start_time()) return InvalidArgument("Invalid time specified");
  r.mutable_users()->CopyFrom(request.users());
  r.mutable_accounts()->CopyFrom(request.accounts());
  if (r.users().empty() && r.accounts().empty()) {
    return InvalidArgument("Either Users or Accounts must be specified");
  }
  r.set_partition(request.partition());
  r.set_flags(request.flags() & ~uint32_t{wire::RESV_FLAG_SPEC_NODES});
  ROTA_RETURN_IF_ERROR(Place(request, true, config, busy, r));
  next_suffix_ = suffix + 1;
  by_name_[r.name()] = r;
  return r;
}

Result<wire::ReservationRecord> ReservationTable::Update(const wire::ReservationRequest& request,
                                                         const conf::ClusterConfig& config,
                                                         const BusyUntil& busy, int64_t now) {
  auto it = by_name_.find(request.name());
  if (it == by_name_.end()) return NotFound("Requested reservation is invalid");
  wire::ReservationRecord r = it->second;
  const int64_t duration = r.end_time() - r.start_time();
  bool moved = false;
  if (Given(request, "starttime")) {
    // Moving the start keeps the length, as Slurm does.
    r.set_start_time(std::max(request.start_time(), now));
    r.set_end_time(r.start_time() + duration);
    moved = true;
  }
  if (Given(request, "endtime")) r.set_end_time(request.end_time());
  if (Given(request, "duration")) {
    r.set_end_time(r.start_time() +
                   (request.duration_s() < 0 ? kUnlimitedReservationSecs : request.duration_s()));
    moved = true;
  }
  if (r.end_time() <= r.start_time()) return InvalidArgument("Invalid time specified");
  if (Given(request, "users")) r.mutable_users()->CopyFrom(request.users());
  if (Given(request, "accounts")) r.mutable_accounts()->CopyFrom(request.accounts());
  if (r.users().empty() && r.accounts().empty()) {
    return InvalidArgument("Either Users or Accounts must be specified");
  }
  if (Given(request, "partitionname")) r.set_partition(request.partition());
  if (Given(request, "flags")) {
    r.set_flags(request.flags() | (r.flags() & wire::RESV_FLAG_SPEC_NODES));
  }
  ROTA_RETURN_IF_ERROR(Place(request, moved, config, busy, r));
  it->second = r;
  return r;
}

Status ReservationTable::Delete(const std::string& name) {
  if (by_name_.erase(name) == 0) return NotFound("Requested reservation is invalid");
  return Status::Ok();
}

std::vector<std::string> ReservationTable::Expire(int64_t now) {
  std::vector<std::string> gone;
  for (auto it = by_name_.begin(); it != by_name_.end();) {
    if (it->second.end_time() <= now) {
      gone.push_back(it->first);
      it = by_name_.erase(it);
    } else {
      ++it;
    }
  }
  return gone;
}

Status ReservationTable::CheckAccess(const std::string& name, const std::string& user,
                                     const std::string& account) const {
  const wire::ReservationRecord* r = Find(name);
  if (r == nullptr) return InvalidArgument("Requested reservation is invalid");
  auto listed = [](const auto& list, const std::string& who) {
    return !who.empty() && std::find(list.begin(), list.end(), who) != list.end();
  };
  if (listed(r->users(), user) || listed(r->accounts(), account)) return Status::Ok();
  return Status(StatusCode::kPermissionDenied, "Access denied to requested reservation");
}

void ReservationTable::Apply(const wire::ReservationChange& change) {
  next_suffix_ = std::max(next_suffix_, change.next_suffix());
  if (change.has_upsert()) {
    by_name_[change.upsert().name()] = change.upsert();
  } else if (change.change_case() == wire::ReservationChange::kRemove) {
    by_name_.erase(change.remove());
  }
}

void ReservationTable::Restore(const wire::ReservationState& state) {
  by_name_.clear();
  for (const wire::ReservationRecord& r : state.reservations()) by_name_[r.name()] = r;
  next_suffix_ = std::max<uint32_t>(1, state.next_suffix());
}

wire::ReservationState ReservationTable::State() const {
  wire::ReservationState s;
  for (const auto& [name, r] : by_name_) *s.add_reservations() = r;
  s.set_next_suffix(next_suffix_);
  return s;
}

wire::ReservationChange ReservationTable::UpsertChange(const wire::ReservationRecord& r) const {
  wire::ReservationChange c;
  *c.mutable_upsert() = r;
  c.set_next_suffix(next_suffix_);
  return c;
}

wire::ReservationChange ReservationTable::RemoveChange(const std::string& name) const {
  wire::ReservationChange c;
  c.set_remove(name);
  c.set_next_suffix(next_suffix_);
  return c;
}

const wire::ReservationRecord* ReservationTable::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

std::string_view ReservationTable::StateFlagOf(const std::string& node, int64_t now,
                                               bool idle) const {
  std::string_view flag;
  for (const auto& [name, r] : by_name_) {
    if (!Active(r, now)) continue;
    if (std::find(r.nodes().begin(), r.nodes().end(), node) == r.nodes().end()) continue;
    if (r.flags() & wire::RESV_FLAG_MAINT) return "MAINT";
    if (idle) flag = "RESERVED";
  }
  return flag;
}

int64_t ReservationTable::NextEventAfter(int64_t now) const {
  int64_t next = 0;
  auto note = [&](int64_t t) {
    if (t > now && (next == 0 || t < next)) next = t;
  };
  for (const auto& [name, r] : by_name_) {
    note(r.start_time());
    note(r.end_time());
  }
  return next;
}

std::vector<sched::ReservedWindow> ReservationTable::Windows(const sched::ClusterModel& model,
                                                             const std::string& except) const {
  std::vector<sched::ReservedWindow> out;
  for (const auto& [name, r] : by_name_) {
    if (name == except) continue;
    sched::ReservedWindow& w = out.emplace_back();
    w.start = r.start_time();
    w.end = r.end_time();
    w.maint = (r.flags() & wire::RESV_FLAG_MAINT) != 0;
    for (const std::string& n : r.nodes()) {
      int32_t i = model.IndexOf(n);
      if (i >= 0) w.nodes.push_back(static_cast<uint32_t>(i));
    }
    std::sort(w.nodes.begin(), w.nodes.end());
  }
  return out;
}

}  // namespace rota::ctld
