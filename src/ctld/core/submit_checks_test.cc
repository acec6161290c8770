// What an ordinary user may not slip past the controller: a negative nice, a
// deadline already past, an oversized script or environment, a dependency on
// the job itself, and another user's jobs cancelled by "-u" without a word.
#include "ctld/core/submit_checks.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ctld/core/core_test_fixture.h"

namespace rota::ctld {
namespace {

constexpr int64_t kT0 = 1'800'000'000;  // The plain tests' clock; the fixture has its own

TEST(SubmitChecksTest, NiceAndDeadline) {
  wire::JobSpec spec;
  EXPECT_TRUE(CheckSubmitFields(spec, false, kT0).ok());
  spec.set_nice(100);
  EXPECT_TRUE(CheckSubmitFields(spec, false, kT0).ok());
  spec.set_nice(-1);
  EXPECT_EQ(CheckSubmitFields(spec, false, kT0).message(), "Access/permission denied");
  EXPECT_EQ(CheckSubmitFields(spec, false, kT0).code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(CheckSubmitFields(spec, true, kT0).ok());
  spec.set_nice(-2147483646);
  EXPECT_EQ(CheckSubmitFields(spec, true, kT0).message(), "Invalid nice value");
  spec.set_nice(2147483646);
  EXPECT_EQ(CheckSubmitFields(spec, true, kT0).message(), "Invalid nice value");
  spec.set_nice(0);

  spec.set_deadline(kT0 - 1);
  EXPECT_EQ(CheckSubmitFields(spec, true, kT0).message(), "Invalid time specified");
  spec.set_deadline(kT0 + 60);
  EXPECT_TRUE(CheckSubmitFields(spec, false, kT0).ok());
}

TEST(SubmitChecksTest, ScriptAndEnvironmentSizes) {
  const std::string too_long = "Pathname of a file, directory or other parameter too long";
  EXPECT_TRUE(CheckSubmitSizes(100, 100, 100).ok());
  EXPECT_EQ(CheckSubmitSizes(101, 0, 100).message(), too_long);
  EXPECT_EQ(CheckSubmitSizes(0, 101, 100).message(), too_long);
  wire::JobSpec spec;
  spec.add_environment("A=1");
  spec.add_environment("BB=22");
  EXPECT_EQ(EnvironmentBytes(spec), 4u + 6u);
}

class SubmitChecksCoreTest : public testing::CoreTest {
 protected:
  void SetUp() override {
    // No node has registered.
    Start(
        "MinJobAge=300\n"
        "SchedulerParameters=max_script_size=64\n"
        "NodeName=n1 CPUs=4 RealMemory=16000\n"
        "PartitionName=batch Nodes=n1 Default=YES MaxTime=1-00:00:00\n",
        /*register_nodes=*/false);
  }

  // `spec` as it is (its name too, replacing the fixture's), at now_ (kT0).
  Result<uint32_t> Submit(wire::JobSpec spec, const Caller& who) {
    auto r = SubmitAs(who, [&](wire::JobSpec& s) { s = std::move(spec); });
    if (!r.ok()) return r.status();
    return r->job_id();
  }
  std::vector<std::string> Update(uint32_t id, const Caller& who,
                                  std::map<std::string, std::string> fields) {
    wire::UpdateJobRequest req;
    req.add_job_ids(std::to_string(id));
    for (auto& [k, v] : fields) (*req.mutable_fields())[k] = v;
    Effects e;
    auto r = core_->UpdateJobs(req, who, kT0, e);
    return {r.errors().begin(), r.errors().end()};
  }
};

TEST_F(SubmitChecksCoreTest, OnlyPrivilegedUsersSubmitWithANegativeNice) {
  wire::JobSpec spec;
  spec.set_nice(-2147483645);
  Result<uint32_t> refused = Submit(spec, alice_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "Access/permission denied");
  EXPECT_TRUE(Submit(spec, root_).ok());
  spec.set_nice(10);
  EXPECT_TRUE(Submit(spec, alice_).ok());
}

TEST_F(SubmitChecksCoreTest, DeadlineAlreadyPastIsRefused) {
  wire::JobSpec spec;
  spec.set_deadline(kT0 - 3600);
  Result<uint32_t> refused = Submit(spec, alice_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "Invalid time specified");
  spec.set_deadline(kT0 + 3600);
  EXPECT_TRUE(Submit(spec, alice_).ok());
}

TEST_F(SubmitChecksCoreTest, MaxScriptSizeBoundsScriptAndEnvironment) {
  const std::string too_long = "Pathname of a file, directory or other parameter too long";
  wire::JobSpec spec;
  spec.set_script("#!/bin/sh\n" + std::string(55, '#'));  // 65 bytes
  EXPECT_EQ(Submit(spec, alice_).status().message(), too_long);
  spec.set_script("#!/bin/sh\n" + std::string(54, '#'));  // 64 bytes
  EXPECT_TRUE(Submit(spec, alice_).ok());
  spec.add_environment("X=" + std::string(62, 'x'));  // 65 bytes with its NUL
  EXPECT_EQ(Submit(spec, alice_).status().message(), too_long);

  // As the server sends it: packed, with the sizes measured before packing.
  Effects e;
  wire::SubmitJobRequest req;
  req.set_packed_payload("x");
  req.set_script_bytes(65);
  EXPECT_EQ(core_->Submit(req, alice_, kT0, e).status().message(), too_long);
  req.set_script_bytes(64);
  req.set_environment_bytes(64);
  EXPECT_TRUE(core_->Submit(req, alice_, kT0, e).ok());
}

TEST_F(SubmitChecksCoreTest, AJobCannotDependOnItselfOrOnAChainBackToIt) {
  wire::JobSpec held;
  held.set_hold(true);
  const uint32_t a = Submit(held, alice_).value();
  const uint32_t b = Submit(held, alice_).value();
  const std::string a_problem = std::to_string(a) + ": Job dependency problem";
  EXPECT_EQ(Update(a, alice_, {{"Dependency", "afterok:" + std::to_string(a)}}),
            std::vector<std::string>{a_problem});
  EXPECT_EQ(Update(a, alice_, {{"Dependency", "afterok:999"}}),
            std::vector<std::string>{a_problem});
  EXPECT_TRUE(Update(a, alice_, {{"Dependency", "afterok:" + std::to_string(b)}}).empty());
  EXPECT_EQ(Update(b, alice_, {{"Dependency", "afterany:" + std::to_string(a)}}),
            std::vector<std::string>{std::to_string(b) + ": Circular dependency"});
  EXPECT_TRUE(Update(a, alice_, {{"Dependency", ""}}).empty());
  EXPECT_TRUE(Update(b, alice_, {{"Dependency", "afterany:" + std::to_string(a)}}).empty());
}

TEST_F(SubmitChecksCoreTest, CancellingAnotherUsersJobsByUserReportsEachRefusal) {
  wire::JobSpec held;
  held.set_hold(true);
  const uint32_t bobs = Submit(held, bob_).value();
  const uint32_t alices = Submit(held, alice_).value();
  wire::SignalJobsRequest req;
  req.set_user("bob");
  Effects e;
  wire::SignalJobsResponse r = core_->SignalJobs(req, alice_, kT0, e);
  ASSERT_EQ(r.errors_size(), 1);
  EXPECT_EQ(r.errors(0), std::to_string(bobs) + ": Access/permission denied");
  EXPECT_EQ(r.affected(), 0u);
  EXPECT_EQ(core_->FindJob(bobs)->state(), wire::JOB_STATE_PENDING);

  // Filters other than the user pick only from the caller's own jobs.
  wire::SignalJobsRequest by_partition;
  by_partition.set_partition("batch");
  r = core_->SignalJobs(by_partition, alice_, kT0, e);
  EXPECT_EQ(r.errors_size(), 0);
  EXPECT_EQ(r.affected(), 1u);
  EXPECT_EQ(core_->FindJob(alices)->state(), wire::JOB_STATE_CANCELLED);
  EXPECT_EQ(core_->FindJob(bobs)->state(), wire::JOB_STATE_PENDING);
}

}  // namespace
}  // namespace rota::ctld
