#include "cli/format/sinfo_reservations.h"

#include <gtest/gtest.h>

namespace rota::cli::format {
namespace {

wire::ReservationRecord Reservation(const std::string& name, int64_t start, int64_t end,
                                    std::vector<std::string> nodes) {
  wire::ReservationRecord r;
  r.set_name(name);
  r.set_start_time(start);
  r.set_end_time(end);
  for (std::string& n : nodes) r.add_nodes(std::move(n));
  return r;
}

TEST(SinfoReservationsTest, OneLinePerReservationInSlurmsColumns) {
  // 2026-12-04T10:00:00 UTC, shown an hour ahead.
  const int64_t ten = 1796378400;
  std::vector<wire::ReservationRecord> list = {
      Reservation("maint", ten, ten + 3600, {"n1", "n2", "n3"}),
      Reservation("training_week", ten + 86400, ten + 2 * 86400 + 7200, {"gpu7"})};
  EXPECT_EQ(RenderSinfoReservations(list, ten + 60, 3600, false),
            "RESV_NAME         STATE           START_TIME             END_TIME     DURATION  "
            "NODELIST\n"
            "maint            ACTIVE  2026-12-04T11:00:00  2026-12-04T12:00:00     01:00:00  "
            "n[1-3]\n"
            "training_week  INACTIVE  2026-12-05T11:00:00  2026-12-06T13:00:00   1-02:00:00  "
            "gpu7\n");
  // Without the header the name column keeps Slurm's nine.
  EXPECT_EQ(RenderSinfoReservations({list[0]}, ten + 3600, 0, true),
            "maint        ACTIVE  2026-12-04T10:00:00  2026-12-04T11:00:00     01:00:00  n[1-3]\n");
  EXPECT_EQ(
      RenderSinfoReservations({}, ten, 0, false),
      "RESV_NAME     STATE           START_TIME             END_TIME     DURATION  NODELIST\n");
}

}  // namespace
}  // namespace rota::cli::format
