// Licenses=: requests checked at submission, jobs waiting (reason Licenses)
// until enough are free, without holding back the jobs behind them.
#include "ctld/core/license_pool.h"

#include <gtest/gtest.h>

#include "ctld/core/core_test_fixture.h"

namespace rota::ctld {
namespace {

TEST(LicensePoolTest, RequestsAreCheckedAgainstTheCluster) {
  conf::LicenseCounts cluster = {{"fluent", 4}, {"ansys", 1}};
  EXPECT_EQ(CheckLicenseRequest(cluster, "fluent:2,ansys").value_or(""), "ansys:1,fluent:2");
  for (const char* bad : {"matlab", "fluent:5", "fluent:x", "fluent,fluent"}) {
    Result<std::string> r = CheckLicenseRequest(cluster, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), "Invalid license specification");
  }
}

TEST(LicensePoolTest, CountsWhatAllocatedJobsHold) {
  LicensePool pool({{"fluent", 4}});
  wire::JobRecord running;
  running.set_state(wire::JOB_STATE_RUNNING);
  running.mutable_spec()->set_licenses("fluent:3");
  wire::JobRecord pending = running;
  pending.set_state(wire::JOB_STATE_PENDING);
  pool.Count(running);
  pool.Count(pending);
  EXPECT_EQ(pool.Used("fluent"), 3u);
  wire::JobSpec one, two;
  one.set_licenses("fluent:1");
  two.set_licenses("fluent:2");
  EXPECT_TRUE(pool.Available(one));
  EXPECT_FALSE(pool.Available(two));
  EXPECT_TRUE(pool.Available(wire::JobSpec()));
  pool.Take(one);
  EXPECT_FALSE(pool.Available(one));
}

class LicenseCoreTest : public testing::CoreTest {
 protected:
  void SetUp() override {
    Start(
        "Licenses=fluent:2\n"
        "NodeName=n[1-2] CPUs=8 RealMemory=64000\n"
        "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00\n");
  }
  Result<wire::SubmitJobResponse> Submit(const std::string& licenses) {
    return SubmitAs(alice_, [&](wire::JobSpec& s) { s.set_licenses(licenses); });
  }
  uint32_t SubmitOk(const std::string& licenses) {
    return SubmitOkAs(alice_, [&](wire::JobSpec& s) { s.set_licenses(licenses); });
  }
};

TEST_F(LicenseCoreTest, AJobWaitsForLicensesWithoutBlockingOthers) {
  uint32_t a = SubmitOk("fluent:2");
  uint32_t b = SubmitOk("fluent");
  uint32_t c = SubmitOk("");
  Tick();
  EXPECT_EQ(Job(a).state(), wire::JOB_STATE_RUNNING);
  EXPECT_EQ(Job(a).spec().licenses(), "fluent:2");
  EXPECT_EQ(Job(b).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(b).reason(), "Licenses");
  EXPECT_EQ(Job(c).state(), wire::JOB_STATE_RUNNING);
  // a ends: its licenses are free again.
  Effects e;
  ASSERT_TRUE(core_->JobExited(a, 0, now_, e).ok());
  now_ += 1;
  Tick();
  EXPECT_EQ(Job(b).state(), wire::JOB_STATE_RUNNING);
}

TEST_F(LicenseCoreTest, UnknownOrTooManyLicensesAreRefused) {
  for (const char* bad : {"matlab:1", "fluent:3"}) {
    auto r = Submit(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), "Invalid license specification");
  }
}

}  // namespace
}  // namespace rota::ctld
