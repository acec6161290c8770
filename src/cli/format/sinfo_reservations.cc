#include "cli/format/sinfo_reservations.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/format/time_text.h"
#include "common/duration.h"
#include "common/hostlist.h"

namespace rota::cli::format {

std::string RenderSinfoReservations(const std::vector<wire::ReservationRecord>& reservations,
                                    int64_t now, int64_t utc_offset_s, bool no_header) {
  size_t width = 9;
  std::string out;
  if (!no_header) {
    for (const wire::ReservationRecord& r : reservations) width = std::max(width, r.name().size());
    out += fmt::format("{:<{}}  {:>8}  {:>19}  {:>19}  {:>11}  {}\n", "RESV_NAME", width, "STATE",
                       "START_TIME", "END_TIME", "DURATION", "NODELIST");
  }
  for (const wire::ReservationRecord& r : reservations) {
    const bool active = r.start_time() <= now && now <= r.end_time();
    out += fmt::format("{:<{}}  {:>8}  {:>19}  {:>19}  {:>11}  {}\n", r.name(), width,
                       active ? "ACTIVE" : "INACTIVE", FormatIsoTime(r.start_time(), utc_offset_s),
                       FormatIsoTime(r.end_time(), utc_offset_s),
                       FormatDurationScontrol(r.end_time() - r.start_time()),
                       CompressHostlist({r.nodes().begin(), r.nodes().end()}));
  }
  return out;
}

}  // namespace rota::cli::format
