// Advance reservations in the controller (reservations.h). The table itself
// is reservation_table.cc.
#include "ctld/core/reservations.h"

#include <algorithm>

#include "model/job_state.h"
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

void AdvanceReservations::Recovered() {
  RefreshWindows();
  for (const auto& [name, r] : table_.all()) {  // Tick sorts out the past ones
    lifecycle_.NoteWake(r.start_time());
    lifecycle_.NoteWake(r.end_time());
  }
}

ReservationTable::BusyUntil AdvanceReservations::NodesBusyUntil(const std::string& except) const {
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

Result<wire::ReservationResponse> AdvanceReservations::Changed(Result<wire::ReservationRecord> r,
                                                               int64_t now, Effects& effects) {
  if (!r.ok()) return r.status();
  *effects.records.emplace_back().mutable_reservation() = table_.UpsertChange(*r);
  RefreshWindows();
  lifecycle_.NoteWake(table_.NextEventAfter(now));
  wire::ReservationResponse out;
  out.set_name(r->name());
  return out;
}

Result<wire::ReservationResponse> AdvanceReservations::Create(
    const wire::ReservationRequest& request, const Caller& caller, int64_t now, Effects& effects) {
  if (!caller.privileged) return PermissionDenied();
  return Changed(table_.Create(request, caller.user, lifecycle_.config(), NodesBusyUntil(""), now),
                 now, effects);
}

Result<wire::ReservationResponse> AdvanceReservations::Update(
    const wire::ReservationRequest& request, const Caller& caller, int64_t now, Effects& effects) {
  if (!caller.privileged) return PermissionDenied();
  return Changed(table_.Update(request, lifecycle_.config(), NodesBusyUntil(request.name()), now),
                 now, effects);
}

Status AdvanceReservations::Delete(const std::string& name, const Caller& caller,
                                   Effects& effects) {
  if (!caller.privileged) return PermissionDenied();
  ROTA_RETURN_IF_ERROR(table_.Delete(name));
  *effects.records.emplace_back().mutable_reservation() = table_.RemoveChange(name);
  RefreshWindows();
  return Status::Ok();
}

Result<wire::ListReservationsResponse> AdvanceReservations::List(const std::string& name,
                                                                 int64_t now) const {
  wire::ListReservationsResponse out;
  out.set_now(now);
  if (!name.empty()) {
    const wire::ReservationRecord* r = table_.Find(name);
    if (r == nullptr) return NotFound("Reservation " + name + " not found");
    *out.add_reservations() = *r;
    return out;
  }
  for (const auto& [n, r] : table_.all()) *out.add_reservations() = r;
  return out;
}

void AdvanceReservations::Expire(int64_t now, Effects& effects) {
  if (table_.empty()) return;
  std::vector<std::string> gone = table_.Expire(now);
  for (const std::string& name : gone) {
    *effects.records.emplace_back().mutable_reservation() = table_.RemoveChange(name);
  }
  if (!gone.empty()) RefreshWindows();
  lifecycle_.NoteWake(table_.NextEventAfter(now));
}

Status AdvanceReservations::CheckAtSubmit(const wire::JobSpec& spec, const Caller& caller) const {
  if (spec.reservation().empty()) return Status::Ok();
  if (caller.privileged) {
    // Root and SlurmUser may use every reservation.
    if (table_.Find(spec.reservation()) != nullptr) return Status::Ok();
    return InvalidArgument("Requested reservation is invalid");
  }
  return table_.CheckAccess(spec.reservation(), caller.user, spec.account());
}

model::PendingReason AdvanceReservations::WaitReason(const wire::JobRecord& job,
                                                     int64_t now) const {
  const wire::ReservationRecord* r = table_.Find(job.spec().reservation());
  if (r == nullptr) return std::string(model::reason::kReservationDeleted);
  if (now < r->start_time()) return std::string(model::reason::kReservation);
  return "";
}

bool AdvanceReservations::FilterReserved(const wire::JobRecord& job, int64_t now,
                                         std::vector<uint32_t>& usable) const {
  if (!job.spec().reservation().empty()) {
    const wire::ReservationRecord* r = table_.Find(job.spec().reservation());
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
  if (windows_.empty()) return false;
  const int64_t end = job.time_limit_s() < 0 ? sched::kForever : now + job.time_limit_s();
  return sched::DropReserved(windows_, now, end, usable).maint;
}

}  // namespace rota::ctld
