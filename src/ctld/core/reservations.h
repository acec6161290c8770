#pragma once

// Advance reservations in the controller: the scontrol commands, the check
// at submission, their expiry, and what the scheduling passes may use around
// their windows. It owns the table (reservation_table.h) and the windows the
// passes read (rebuilt when the reservations or the node model change); it
// reads the jobs (until when each node is busy) and the nodes, and asks the
// JobLifecycle (job control's) for the configuration and for wake-ups. Owned by
// ControllerCore (state loop thread).

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "ctld/core/caller.h"
#include "ctld/core/effects.h"
#include "ctld/core/job_lifecycle.h"
#include "ctld/core/job_table.h"
#include "ctld/core/node_table.h"
#include "ctld/core/reservation_table.h"
#include "model/pending_reason.h"
#include "reservation.pb.h"
#include "sched/reserved_windows.h"

namespace rota::ctld {

class AdvanceReservations {
 public:
  // REQUIRES: all three outlive it.
  AdvanceReservations(const JobTable& jobs, const NodeTable& nodes, JobLifecycle& lifecycle)
      : jobs_(jobs), nodes_(nodes), lifecycle_(lifecycle) {}

  const ReservationTable& table() const { return table_; }
  // Recovery: the snapshot's reservations, then the log's changes. Call
  // Recovered() once the nodes are known too.
  void Restore(const wire::ReservationState& state) { table_.Restore(state); }
  void Apply(const wire::ReservationChange& change) { table_.Apply(change); }
  // After recovery or a new node model: the windows rebuilt, a wake-up at
  // each window's start and end (Tick sorts out the past ones).
  void Recovered();
  void NodesChanged() { RefreshWindows(); }

  // scontrol create|update|delete reservation: `caller` with its AdminLevel
  // already applied; only privileged callers may. Errors carry Slurm's messages.
  Result<wire::ReservationResponse> Create(const wire::ReservationRequest& request,
                                           const Caller& caller, int64_t now, Effects& effects);
  Result<wire::ReservationResponse> Update(const wire::ReservationRequest& request,
                                           const Caller& caller, int64_t now, Effects& effects);
  Status Delete(const std::string& name, const Caller& caller, Effects& effects);
  // scontrol show reservation [NAME]; NotFound for an unknown name.
  Result<wire::ListReservationsResponse> List(const std::string& name, int64_t now) const;

  // Reservations whose window closed are removed (jobs in them keep running);
  // wakes for the next window to open or close. Called from Tick.
  void Expire(int64_t now, Effects& effects);
  // Submission: the job's --reservation exists and admits `caller` (with its
  // AdminLevel applied: privileged callers may use every reservation).
  Status CheckAtSubmit(const wire::JobSpec& spec, const Caller& caller) const;
  // Why a job of a reservation cannot be tried now (none when it can).
  model::PendingReason WaitReason(const wire::JobRecord& job, int64_t now) const;
  // Narrows `usable` for `job`: a reservation's job to its reservation's
  // nodes; any other job away from the windows its run would overlap. True
  // when a maintenance reservation took nodes away.
  bool FilterReserved(const wire::JobRecord& job, int64_t now, std::vector<uint32_t>& usable) const;
  // The windows over the node model (backfill blocks them in its profile).
  const std::vector<sched::ReservedWindow>& windows() const { return windows_; }

 private:
  // Until when each node's jobs are expected to run, jobs of reservation
  // `except` left out.
  ReservationTable::BusyUntil NodesBusyUntil(const std::string& except) const;
  void RefreshWindows() { windows_ = table_.Windows(nodes_.model()); }
  // A reservation made or changed: logged, windows and wake-up refreshed.
  Result<wire::ReservationResponse> Changed(Result<wire::ReservationRecord> r, int64_t now,
                                            Effects& effects);

  const JobTable& jobs_;
  const NodeTable& nodes_;
  JobLifecycle& lifecycle_;
  ReservationTable table_;
  std::vector<sched::ReservedWindow> windows_;
};

}  // namespace rota::ctld
