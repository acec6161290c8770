#pragma once

// Advance reservations (scontrol create|update|delete reservation): nodes set
// aside for some users and accounts over a window of time [start, end). The
// table checks and keeps them; the scheduling passes read their windows
// (sched/reserved_windows.h). Pure: `now` and what the nodes are busy with
// are arguments. Owned by the state loop thread (ControllerCore).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "reservation.pb.h"
#include "sched/cluster_model.h"
#include "sched/reserved_windows.h"

namespace rota::ctld {

// Duration=UNLIMITED: the window lasts a year, as Slurm's does.
inline constexpr int64_t kUnlimitedReservationSecs = 365 * 24 * 3600;

class ReservationTable {
 public:
  // Per node name: until when jobs holding it are expected to run
  // (sched::kForever: without a time limit). Nodes without jobs are absent.
  using BusyUntil = std::map<std::string, int64_t>;

  // scontrol create reservation, by `user` (its name is the default name's
  // prefix). Errors carry Slurm's message. The record is what to log.
  Result<wire::ReservationRecord> Create(const wire::ReservationRequest& request,
                                         const std::string& user, const conf::ClusterConfig& config,
                                         const BusyUntil& busy, int64_t now);
  // scontrol update reservation: the fields named in request.given change.
  Result<wire::ReservationRecord> Update(const wire::ReservationRequest& request,
                                         const conf::ClusterConfig& config, const BusyUntil& busy,
                                         int64_t now);
  // scontrol delete reservation.
  Status Delete(const std::string& name);
  // Reservations whose window has closed by `now` are removed; their names.
  std::vector<std::string> Expire(int64_t now);

  // Whether a job of `user` charged to `account` may use reservation `name`:
  // "Requested reservation is invalid" when there is none, "Access denied to
  // requested reservation" when neither is listed.
  Status CheckAccess(const std::string& name, const std::string& user,
                     const std::string& account) const;

  // Recovery: a logged change, or the whole table from a snapshot.
  void Apply(const wire::ReservationChange& change);
  void Restore(const wire::ReservationState& state);
  wire::ReservationState State() const;
  // The log record for the table's current counter and `record` (or a removal).
  wire::ReservationChange UpsertChange(const wire::ReservationRecord& record) const;
  wire::ReservationChange RemoveChange(const std::string& name) const;

  const wire::ReservationRecord* Find(const std::string& name) const;
  const std::map<std::string, wire::ReservationRecord>& all() const { return by_name_; }
  bool empty() const { return by_name_.empty(); }
  // The next start or end after `now` (0: none): when the passes see a change.
  int64_t NextEventAfter(int64_t now) const;
  // Every reservation's window over `model`'s node indices, except the one
  // named `except` ("" for none).
  std::vector<sched::ReservedWindow> Windows(const sched::ClusterModel& model,
                                             const std::string& except = "") const;
  // How sinfo and scontrol show `node` at `now`: "MAINT" in an active
  // maintenance reservation, "RESERVED" in another active one while `idle`,
  // "" otherwise.
  std::string_view StateFlagOf(const std::string& node, int64_t now, bool idle) const;
  // Whether `r`'s window holds `now` (scontrol's State=ACTIVE).
  static bool Active(const wire::ReservationRecord& r, int64_t now) {
    return r.start_time() <= now && now < r.end_time();
  }

 private:
  // Fills `r`'s nodes from the request's Nodes=/NodeCnt= and checks the
  // whole record against the others (overlap) and running jobs (busy).
  Status Place(const wire::ReservationRequest& request, bool nodes_given,
               const conf::ClusterConfig& config, const BusyUntil& busy,
               wire::ReservationRecord& r) const;
  // Whether `a` and `b` may not share a node at the same time.
  static bool Conflict(const wire::ReservationRecord& a, const wire::ReservationRecord& b);

  std::map<std::string, wire::ReservationRecord> by_name_;
  uint32_t next_suffix_ = 1;
};

}  // namespace rota::ctld
