#pragma once

// sinfo -T/--reservation: the advance reservations, one line each, in the
// layout of Slurm's sinfo (not scontrol's key=value record).

#include <cstdint>
#include <string>
#include <vector>

#include "reservation.pb.h"

namespace rota::cli::format {

// "RESV_NAME  STATE  START_TIME  END_TIME  DURATION  NODELIST" and a line
// per reservation: ACTIVE while `now` lies in its window (both ends
// included), INACTIVE otherwise; times as ISO local time shifted by
// `utc_offset_s`. The name column is as wide as the longest name (nine at
// least) when the header is shown, and nine without it, as in Slurm.
std::string RenderSinfoReservations(const std::vector<wire::ReservationRecord>& reservations,
                                    int64_t now, int64_t utc_offset_s, bool no_header);

}  // namespace rota::cli::format
