// scontrol create|update|delete|show reservation: parsed here, decided by
// the core on the state loop (changes through the write queue, so they are
// logged before the answer; show through the read queue).
#include <memory>

#include "api/methods.h"
#include "ctld/server/controller_service.h"
#include "reservation.pb.h"

namespace rota::ctld {

void ControllerService::HandleReservation(uint16_t method, const Caller& caller,
                                          const std::string& body, rpc::Responder respond) {
  auto answer = [respond](const auto& result) {
    if (result.ok()) {
      respond(0, result->SerializeAsString());
    } else {
      respond.Fail(result.status());
    }
  };
  if (method == api::kCreateReservation || method == api::kUpdateReservation) {
    wire::ReservationRequest req;
    if (!req.ParseFromString(body)) return respond.Fail(InvalidArgument("malformed request"));
    const bool create = method == api::kCreateReservation;
    loop_.Enqueue(
        [req = std::move(req), caller, create, answer](ControllerCore& core, int64_t now,
                                                       Effects& effects) -> StateLoop::Reply {
          auto out = std::make_shared<Result<wire::ReservationResponse>>(
              create ? core.CreateReservation(req, caller, now, effects)
                     : core.UpdateReservation(req, caller, now, effects));
          return [out, answer] { answer(*out); };
        },
        RefuseThrough(respond));
    return;
  }
  wire::ReservationNameRequest req;
  if (!req.ParseFromString(body)) return respond.Fail(InvalidArgument("malformed request"));
  if (method == api::kDeleteReservation) {
    loop_.Enqueue(
        [req = std::move(req), caller, respond](ControllerCore& core, int64_t,
                                                Effects& effects) -> StateLoop::Reply {
          Status s = core.DeleteReservation(req.name(), caller, effects);
          return [s, respond] {
            s.ok() ? respond(0, wire::Empty().SerializeAsString()) : respond.Fail(s);
          };
        },
        RefuseThrough(respond));
    return;
  }
  loop_.EnqueueRead([req = std::move(req), answer](ControllerCore& core, int64_t now,
                                                   Effects&) -> StateLoop::Reply {
    auto out = std::make_shared<Result<wire::ListReservationsResponse>>(
        core.ListReservations(req.name(), now));
    return [out, answer] { answer(*out); };
  });
}

}  // namespace rota::ctld
