#pragma once

// scontrol create|update|delete|show reservation: the KEY=VALUE arguments
// into a request, and a reservation in Slurm's key=value layout.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "common/status.h"
#include "reservation.pb.h"
#include "rota.pb.h"

namespace rota::cli {

// Flags=... as Slurm names them ("MAINT,IGNORE_JOBS"), both ways. Flags
// Rota does not implement are refused, by name.
Result<uint32_t> ParseReservationFlags(const std::string& text);
std::string FormatReservationFlags(uint32_t flags);

// The arguments after "create reservation" / "update reservation". Times
// (StartTime=now+1hour, EndTime=...) are resolved against `now`. Errors carry
// the message scontrol prints (for create, Slurm's checks before sending).
Result<wire::ReservationRequest> ParseReservationArgs(const std::vector<std::string>& args,
                                                      bool create, int64_t now);

// One reservation as scontrol show reservation prints it (State= against `now`).
std::string FormatReservation(const wire::ReservationRecord& r, int64_t now, bool one_liner);

// The scontrol verbs: exit status, output to `out`, errors to `err`.
int CreateReservationCommand(const std::vector<std::string>& args, std::ostream& out,
                             std::ostream& err);
int UpdateReservationCommand(const std::vector<std::string>& args, std::ostream& out,
                             std::ostream& err);
int DeleteReservationCommand(const std::vector<std::string>& args, std::ostream& err);
int ShowReservationCommand(const std::vector<std::string>& names, bool one_liner, std::ostream& out,
                           std::ostream& err);

}  // namespace rota::cli
