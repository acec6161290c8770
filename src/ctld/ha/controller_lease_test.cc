#include "ctld/ha/controller_lease.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/temp_dir.h"

namespace rota::ctld {
namespace {

using std::chrono::milliseconds;

class ControllerLeaseTest : public ::testing::Test {
 protected:
  ControllerLease Lease(const std::string& me) {
    return ControllerLease(dir_.path().string(), me, milliseconds(3000), [this] { return now_; });
  }
  testing::TempDir dir_;
  int64_t now_ = 1'000'000;
};

// One holder at a time; another takes only once it was released or expired.
TEST_F(ControllerLeaseTest, OneHolderUntilReleasedOrExpired) {
  ControllerLease primary = Lease("ctl");
  ControllerLease backup = Lease("ctl2");
  EXPECT_EQ(primary.TryTake().value(), true);
  EXPECT_EQ(backup.TryTake().value(), false);
  now_ += 2000;
  EXPECT_EQ(primary.Renew().value(), true);
  now_ += 2500;  // 4.5 s after the take, 2.5 s after the renewal
  EXPECT_EQ(backup.TryTake().value(), false);
  now_ += 600;  // Expired
  EXPECT_EQ(backup.TryTake().value(), true);
  // The old holder's renewal now fails: it must stop.
  EXPECT_EQ(primary.Renew().value(), false);
  EXPECT_EQ(backup.Read()->holder, "ctl2");
  ASSERT_TRUE(backup.Release().ok());
  EXPECT_EQ(primary.TryTake().value(), true);
}

// A wish for control makes the holder stop at its next renewal, and the
// lease, once released, goes to the one who asked, not back to the holder.
TEST_F(ControllerLeaseTest, AWishHandsTheLeaseOver) {
  ControllerLease primary = Lease("ctl");
  ControllerLease backup = Lease("ctl2");
  ASSERT_EQ(backup.TryTake().value(), true);
  ASSERT_TRUE(primary.Want().ok());
  EXPECT_EQ(primary.TryTake().value(), false);  // Still held
  EXPECT_EQ(backup.Renew().value(), false);     // Hand over
  ASSERT_TRUE(backup.Release().ok());
  EXPECT_EQ(backup.TryTake().value(), false);  // Promised to ctl
  EXPECT_EQ(primary.TryTake().value(), true);
  LeaseRecord record = primary.Read().value();
  EXPECT_EQ(record.holder, "ctl");
  EXPECT_EQ(record.wanted_by, "");
  EXPECT_EQ(primary.Renew().value(), true);
}

// A wish whose asker never came lapses after a lease's length.
TEST_F(ControllerLeaseTest, AWishLapses) {
  ControllerLease primary = Lease("ctl");
  ControllerLease backup = Lease("ctl2");
  ASSERT_TRUE(backup.Want().ok());
  EXPECT_EQ(primary.TryTake().value(), false);
  now_ += 3001;
  EXPECT_EQ(primary.TryTake().value(), true);
  EXPECT_EQ(primary.Renew().value(), true);
}

// A lease that does not parse is an error for a lease's length from its
// last change (someone may hold it), then replaced.
TEST_F(ControllerLeaseTest, AFileThatIsNoLeaseIsHeldForALeasesLengthThenReplaced) {
  std::ofstream(dir_.path() / "controller.lease") << "garbage";
  now_ = std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count();
  EXPECT_EQ(Lease("ctl").TryTake().status().code(), StatusCode::kCorruption);
  now_ += 3500;
  EXPECT_EQ(Lease("ctl").TryTake().value(), true);
  EXPECT_EQ(Lease("ctl").Read()->holder, "ctl");
}

}  // namespace
}  // namespace rota::ctld
