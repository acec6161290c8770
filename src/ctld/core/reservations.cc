// Advance reservations in the controller: the scontrol commands, the check
// at submission, their expiry, and what the scheduling passes may use around
// their windows. The table itself is reservation_table.cc.
#include <algorithm>

#include "ctld/core/controller_core.h"
#include "model/job_state.h"
#include "model/pending_reason.h"
#include "sched/availability_profile.h"

namespace rota::ctld {
namespace {

Status PermissionDenied() {
  return Status(StatusCode::kPermissionDenied, "Access/permission denied");
}

bool HoldsNodes(wire::JobState s) {
  return s == wire::JOB_STATE_RUNNING || s == wire::JOB_STATE_SUSPENDED ||
         s == wire::JOB_STATE_COMPLETING;
}

}  // namespace

ReservationTable::BusyUntil ControllerCore::NodesBusyUntil(const std::string& except) const {
  ReservationTable::BusyUntil busy;
  for (const auto& [id, job] : jobs_) {
    if (!HoldsNodes(job->state())) continue;
    if (!except.empty() && job->spec().reservation() == except) continue;
    const int64_t until = job->time_limit_s() < 0 ? sched::kForever : job->end_time();
    for (const std::string& n : job->nodes()) {
      int64_t& b = busy[n];
      b = std::max(b, until);
    }
  }
  return busy;
}

void ControllerCore::RefreshReservedWindows() {
  reserved_windows_ = reservations_.Windows(nodes_.model());
}

Result<wire::ReservationResponse> ControllerCore::CreateReservation(
    const wire::ReservationRequest& request, const Caller& caller, int64_t now, Effects& effects) {
  if (!WithAdminLevel(caller).privileged) return PermissionDenied();
  Result<wire::ReservationRecord> r =
      reservations_.Create(request, caller.user, *config_, NodesBusyUntil(""), now);
  if (!r.ok()) return r.status();
  *effects.records.emplace_back().mutable_reservation() = reservations_.UpsertChange(*r);
  RefreshReservedWindows();
  NoteWake(reservations_.NextEventAfter(now));
  wire::ReservationResponse out;
  out.set_name(r->name());
  return out;
}

Result<wire::ReservationResponse> ControllerCore::UpdateReservation(
    const wire::ReservationRequest& request, const Caller& caller, int64_t now, Effects& effects) {
  if (!WithAdminLevel(caller).privileged) return PermissionDenied();
  Result<wire::ReservationRecord> r =
      reservations_.Update(request, *config_, NodesBusyUntil(request.name()), now);
  if (!r.ok()) return r.status();
  *effects.records.emplace_back().mutable_reservation() = reservations_.UpsertChange(*r);
  RefreshReservedWindows();
  NoteWake(reservations_.NextEventAfter(now));
  wire::ReservationResponse out;
  out.set_name(r->name());
  return out;
}

Status ControllerCore::DeleteReservation(const std::string& name, const Caller& caller,
                                         Effects& effects) {
  if (!WithAdminLevel(caller).privileged) return PermissionDenied();
  ROTA_RETURN_IF_ERROR(reservations_.Delete(name));
  *effects.records.emplace_back().mutable_reservation() = reservations_.RemoveChange(name);
  RefreshReservedWindows();
  return Status::Ok();
}

Result<wire::ListReservationsResponse> ControllerCore::ListReservations(const std::string& name,
                                                                        int64_t now) const {
  wire::ListReservationsResponse out;
  out.set_now(now);
  if (!name.empty()) {
    const wire::ReservationRecord* r = reservations_.Find(name);
    if (r == nullptr) return NotFound("Reservation " + name + " not found");
    *out.add_reservations() = *r;
    return out;
  }
  for (const auto& [n, r] : reservations_.all()) *out.add_reservations() = r;
  return out;
}

void ControllerCore::ExpireReservations(int64_t now, Effects& effects) {
  if (reservations_.empty()) return;
  std::vector<std::string> gone = reservations_.Expire(now);
  for (const std::string& name : gone) {
    *effects.records.emplace_back().mutable_reservation() = reservations_.RemoveChange(name);
  }
  if (!gone.empty()) RefreshReservedWindows();
  NoteWake(reservations_.NextEventAfter(now));
}

Status ControllerCore::CheckReservationAtSubmit(const wire::JobSpec& spec,
                                                const Caller& caller) const {
  if (spec.reservation().empty()) return Status::Ok();
  if (WithAdminLevel(caller).privileged) {
    // Root and SlurmUser may use every reservation.
    if (reservations_.Find(spec.reservation()) != nullptr) return Status::Ok();
    return InvalidArgument("Requested reservation is invalid");
  }
  return reservations_.CheckAccess(spec.reservation(), caller.user, spec.account());
}

model::PendingReason ControllerCore::ReservationWaitReason(const wire::JobRecord& job,
                                                           int64_t now) const {
  const wire::ReservationRecord* r = reservations_.Find(job.spec().reservation());
  if (r == nullptr) return std::string(model::reason::kReservationDeleted);
  if (now < r->start_time()) return std::string(model::reason::kReservation);
  return "";
}

bool ControllerCore::FilterReserved(const wire::JobRecord& job, int64_t now,
                                    std::vector<uint32_t>& usable) const {
  if (!job.spec().reservation().empty()) {
    const wire::ReservationRecord* r = reservations_.Find(job.spec().reservation());
    if (r == nullptr || !ReservationTable::Active(*r, now)) {
      usable.clear();
      return false;
    }
    const sched::ClusterModel& model = nodes_.model();
    auto outside = [&](uint32_t n) {
      const std::string& name = model.nodes[n].name;
      return std::find(r->nodes().begin(), r->nodes().end(), name) == r->nodes().end();
    };
    usable.erase(std::remove_if(usable.begin(), usable.end(), outside), usable.end());
    return false;
  }
  if (reserved_windows_.empty()) return false;
  const int64_t end = job.time_limit_s() < 0 ? sched::kForever : now + job.time_limit_s();
  return sched::DropReserved(reserved_windows_, now, end, usable).maint;
}

}  // namespace rota::ctld
