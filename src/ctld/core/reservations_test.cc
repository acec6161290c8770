// Advance reservations through the controller core: who may create them, the
// check at submission, and what the main and backfill passes do around them.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cli/scontrol_show.h"
#include "ctld/core/core_test_fixture.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

// The fixture's kT0 is a multiple of bf_resolution (60 s). The tests name
// their callers by these constants (one is a default argument below).
const Caller kRoot{0, 0, "root", "root", true};
const Caller kAlice{1000, 1000, "alice", "alice", false};
const Caller kBob{1001, 1001, "bob", "bob", false};

class ReservationsTest : public testing::CoreTest {
 protected:
  void SetUp() override {
    Start(
        "SlurmdTimeout=0\n"
        "NodeName=n[1-4] CPUs=4 RealMemory=16000\n"
        "PartitionName=batch Nodes=n[1-4] Default=YES MaxTime=1-00:00:00 "
        "DefaultTime=1:00:00\n");
  }

  Result<wire::ReservationResponse> Create(const std::string& name, const std::string& nodes,
                                           int64_t start, int64_t secs, uint32_t flags = 0,
                                           const Caller& caller = kRoot) {
    wire::ReservationRequest r;
    r.set_name(name);
    r.set_start_time(kT0 + start);
    r.set_duration_s(secs);
    r.set_nodes(nodes);
    r.add_users("alice");
    r.set_flags(flags);
    for (const char* g : {"starttime", "duration", "nodes", "users", "flags"}) r.add_given(g);
    Effects e;
    auto out = core_->CreateReservation(r, caller, kT0, e);
    log_.insert(log_.end(), e.records.begin(), e.records.end());
    return out;
  }

  // sbatch -N nodes --exclusive-ish (4 tasks a node) --time=minutes [--reservation].
  // Not the fixture's SubmitAs: what the submission logs goes to log_.
  Result<wire::SubmitJobResponse> TrySubmit(const Caller& who, uint32_t nodes, int64_t minutes,
                                            const std::string& reservation = "") {
    wire::SubmitJobRequest req;
    wire::JobSpec& s = *req.mutable_spec();
    s.set_name("j");
    s.set_min_nodes(nodes);
    s.set_num_tasks(4 * nodes);
    s.set_time_limit_s(minutes * 60);
    s.set_reservation(reservation);
    s.set_script("#!/bin/sh\ntrue\n");
    Effects e;
    auto out = core_->Submit(req, who, kT0, e);
    log_.insert(log_.end(), e.records.begin(), e.records.end());
    return out;
  }
  uint32_t Submit(const Caller& who, uint32_t nodes, int64_t minutes,
                  const std::string& reservation = "") {
    auto r = TrySubmit(who, nodes, minutes, reservation);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->job_id() : 0;
  }
  void Tick(int64_t at) {
    Effects e;
    core_->Tick(at, e);
    log_.insert(log_.end(), e.records.begin(), e.records.end());
  }
  std::string State(uint32_t id) { return std::string(model::JobStateName(Job(id).state())); }
  std::string Nodes(uint32_t id) {
    std::string out;
    for (const std::string& n : Job(id).nodes()) out += (out.empty() ? "" : ",") + n;
    return out;
  }

  std::vector<wire::StateRecord> log_;
};

TEST_F(ReservationsTest, OnlyPrivilegedUsersManageReservations) {
  auto denied = Create("r", "n1", 0, 600, 0, kAlice);
  EXPECT_EQ(denied.status().message(), "Access/permission denied");
  ASSERT_TRUE(Create("r", "n1", 0, 600).ok());
  Effects e;
  EXPECT_EQ(core_->DeleteReservation("r", kAlice, e).message(), "Access/permission denied");
  EXPECT_TRUE(core_->DeleteReservation("r", kRoot, e).ok());
  EXPECT_EQ(core_->ListReservations("r", kT0).status().message(), "Reservation r not found");
}

TEST_F(ReservationsTest, SubmissionChecksTheReservation) {
  ASSERT_TRUE(Create("r", "n1", 0, 600).ok());
  EXPECT_EQ(TrySubmit(kBob, 1, 5, "r").status().message(),
            "Access denied to requested reservation");
  EXPECT_EQ(TrySubmit(kAlice, 1, 5, "nope").status().message(), "Requested reservation is invalid");
  EXPECT_TRUE(TrySubmit(kAlice, 1, 5, "r").ok());
  EXPECT_TRUE(TrySubmit(kRoot, 1, 5, "r").ok());  // Root may use every reservation
}

TEST_F(ReservationsTest, OthersSkipReservedNodesAndMembersRunInside) {
  // n1-n2 reserved for alice from now for an hour.
  ASSERT_TRUE(Create("r", "n[1-2]", 0, 3600).ok());
  uint32_t other = Submit(kBob, 1, 10);
  uint32_t member = Submit(kAlice, 2, 10, "r");
  uint32_t too_big = Submit(kBob, 3, 10);  // Only n3-n4 are open to bob
  Tick(kT0);
  EXPECT_EQ(State(other), "RUNNING");
  EXPECT_EQ(Nodes(other), "n3");
  EXPECT_EQ(State(member), "RUNNING");
  EXPECT_EQ(Nodes(member), "n1,n2");
  EXPECT_EQ(State(too_big), "PENDING");
  EXPECT_EQ(Job(too_big).reason(), "Resources");
  // Backfill plans it after the window closes (n1-n2 free again by then).
  EXPECT_GE(Job(too_big).sched_start_time(), kT0 + 3600);
}

// As in Slurm's main pass: a job outside the reservation that does not fit
// holds back its partition, but not the reservation's jobs, which wait only
// behind their own reservation's.
TEST_F(ReservationsTest, ABlockedPartitionDoesNotHoldBackAReservationsJobs) {
  ASSERT_TRUE(Create("r", "n[1-2]", 0, 3600).ok());
  uint32_t too_big = Submit(kBob, 3, 10);  // Only n3-n4 are open to bob
  uint32_t member = Submit(kAlice, 2, 10, "r");
  Tick(kT0);
  EXPECT_EQ(State(too_big), "PENDING");
  EXPECT_EQ(Job(too_big).reason(), "Resources");
  // Started by the main pass: backfill leaves reservations' jobs to it.
  EXPECT_EQ(State(member), "RUNNING");
  EXPECT_EQ(Nodes(member), "n1,n2");
}

TEST_F(ReservationsTest, AJobThatWouldOverlapTheWindowDoesNotStartThere) {
  // n1-n4 reserved from +30 min: a 1-hour job would overlap, a 20-minute one not.
  ASSERT_TRUE(Create("r", "n[1-4]", 1800, 3600).ok());
  uint32_t long_job = Submit(kBob, 1, 60);
  uint32_t short_job = Submit(kBob, 1, 20);
  Tick(kT0);
  EXPECT_EQ(State(long_job), "PENDING");
  EXPECT_EQ(Job(long_job).sched_start_time(), kT0 + 1800 + 3600);
  EXPECT_EQ(State(short_job), "RUNNING");
}

TEST_F(ReservationsTest, MemberWaitsForTheWindowAndMaintenanceHasItsReason) {
  ASSERT_TRUE(Create("later", "n1", 600, 600).ok());
  ASSERT_TRUE(Create("maint", "n[2-4]", 0, 3600, wire::RESV_FLAG_MAINT).ok());
  uint32_t member = Submit(kAlice, 1, 5, "later");
  uint32_t other = Submit(kBob, 2, 5);
  Tick(kT0);
  EXPECT_EQ(Job(member).reason(), "Reservation");
  EXPECT_EQ(State(other), "PENDING");
  EXPECT_EQ(Job(other).reason(), "ReqNodeNotAvail, Reserved for maintenance");
  // scontrol show job writes it as one word, as Slurm's does.
  const std::string shown = cli::FormatJobDetails(Job(other), kT0, /*one_liner=*/true);
  EXPECT_NE(shown.find(" Reason=ReqNodeNotAvail,_Reserved_for_maintenance Dependency="),
            std::string::npos)
      << shown;
  // The member's window opens: it starts on its node.
  ASSERT_EQ(core_->NextWakeTime().value_or(0) <= kT0 + 600, true);
  Tick(kT0 + 600);
  EXPECT_EQ(State(member), "RUNNING");
  EXPECT_EQ(Nodes(member), "n1");
}

TEST_F(ReservationsTest, RunningJobsMakeNodesBusyUnlessIgnoreJobs) {
  uint32_t running = Submit(kBob, 1, 60);
  Tick(kT0);
  ASSERT_EQ(State(running), "RUNNING");
  const std::string node = Nodes(running);
  EXPECT_EQ(Create("r", node, 600, 600).status().message(), "Requested nodes are busy");
  EXPECT_TRUE(Create("r", node, 3600, 600).ok());  // Starts when the job's limit ends
  EXPECT_TRUE(
      Create("s", node, 600, 600, wire::RESV_FLAG_IGNORE_JOBS | wire::RESV_FLAG_OVERLAP).ok());
}

TEST_F(ReservationsTest, ExpiresAndSurvivesARestart) {
  ASSERT_TRUE(Create("", "n1", 0, 600).ok());  // root_1
  ASSERT_TRUE(Create("keep", "n2", 0, 7200).ok());
  uint32_t member = Submit(kAlice, 1, 60, "root_1");
  Tick(kT0);
  ASSERT_EQ(State(member), "RUNNING");

  // From the log alone, and from a snapshot.
  ControllerCore replayed(config_);
  replayed.Restore(nullptr, log_);
  EXPECT_NE(replayed.reservations().Find("root_1"), nullptr);
  EXPECT_NE(replayed.reservations().Find("keep"), nullptr);
  wire::StateSnapshot snap;
  ASSERT_TRUE(snap.ParseFromString(core_->SerializeSnapshot()));
  ControllerCore restored(config_);
  restored.Restore(&snap, {});
  EXPECT_EQ(restored.reservations().all().size(), 2u);

  // root_1 ends at +10 min: removed, its job keeps running.
  log_.clear();
  Tick(kT0 + 600);
  EXPECT_EQ(core_->reservations().Find("root_1"), nullptr);
  EXPECT_EQ(State(member), "RUNNING");
  ASSERT_EQ(log_.size() >= 1, true);
  bool removal_logged = false;
  for (const wire::StateRecord& r : log_) {
    removal_logged |= r.has_reservation() && r.reservation().remove() == "root_1";
  }
  EXPECT_TRUE(removal_logged);
  // The counter counts every reservation made, named or not (as Slurm's ids).
  EXPECT_EQ(Create("", "n3", 0, 60)->name(), "root_3");
}

}  // namespace
}  // namespace rota::ctld
