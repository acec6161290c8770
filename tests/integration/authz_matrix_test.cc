// The authorisation matrix: every RPC method of rotactld, rotadbd and rotad
// against every kind of caller, through real daemons (one rotactld, one
// rotadbd, one rotad, auth/slurm) and real users (made with useradd for the
// suite, removed after it).
//
// Callers: the job's owner, another ordinary user, a user with AdminLevel
// Operator and one with Administrator (sacctmgr), root, the SlurmUser (another
// ordinary account named by slurm.conf), and three bad credentials: forged
// (signed with another key), replayed (a genuine frame sent a second time)
// and expired (signed an hour ago). The test signs each credential itself with
// the cluster's key (it runs as root and reads slurm.key), so that it can vouch
// for any uid, as the daemons' own peers do.
//
// The expectations are one table per daemon (kControllerMatrix, kDbdMatrix,
// kNodeMatrix): a row per method (or per variant of one, such as a diag reset),
// a cell per caller with the status code the answer must carry and, for
// changes, whether the change must be seen afterwards (a job cancelled, a node
// drained, an account added...). Every row must have a case that builds its
// request and looks for its effect, and every method id a daemon serves must
// have a row: ids 0..1023 without one are sent as root and must be answered
// "unknown method", so a new method fails this test until it gets its row.
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "accounting.pb.h"
#include "accounting_admin.pb.h"
#include "api/dbd_methods.h"
#include "api/methods.h"
#include "auth/credential.h"
#include "auth/sha256.h"
#include "auth/slurm_key_auth.h"
#include "auth/slurm_key_file.h"
#include "common/status.h"
#include "diag.pb.h"
#include "fairshare.pb.h"
#include "job_prepare.pb.h"
#include "priority.pb.h"
#include "reservation.pb.h"
#include "rota.pb.h"
#include "rpc/client.h"
#include "rpc/frame.h"
#include "rpc/raw_peer_for_test.h"
#include "step_rpc.pb.h"
#include "step_stats.pb.h"
#include "tests/integration/authz_cluster.h"
#include "tests/integration/noded_harness.h"
#include "token.pb.h"
#include "why.pb.h"

namespace rota {
namespace {

using testing::WaitUntil;
using namespace testing::authz;

// ---------------------------------------------------------------------------
// Expectations (the callers, Who, are in authz_cluster.h).

// Whether a change must be seen after the call.
enum class Effect { kUnchecked, kDone, kNotDone };

struct Cell {
  StatusCode code;
  Effect effect;
  // The authorisation check passed; what follows fails for a reason of its
  // own (a request made up by the test that a real peer would fill further).
  bool admitted_only = false;
};

// The cells the tables are written with.
constexpr Cell kRead{StatusCode::kOk, Effect::kUnchecked};  // answered, nothing to see
constexpr Cell kDone{StatusCode::kOk, Effect::kDone};       // answered, change made
// Answered OK, with the refusal inside the answer (per-job errors), no change.
constexpr Cell kOkNot{StatusCode::kOk, Effect::kNotDone};
constexpr Cell kDenied{StatusCode::kPermissionDenied, Effect::kNotDone};    // refused, no change
constexpr Cell kUnknown{StatusCode::kInvalidArgument, Effect::kUnchecked};  // "unknown method"
constexpr Cell kAdmitted{StatusCode::kOk, Effect::kUnchecked, true};   // not refused as a caller
constexpr Cell kBad{StatusCode::kPermissionDenied, Effect::kNotDone};  // forged / expired
constexpr Cell kAgain{StatusCode::kPermissionDenied, Effect::kUnchecked};  // replayed

struct Row {
  const char* name;  // The method's name, or "Method(variant)".
  uint16_t method;
  // owner, other, operator, admin, root, SlurmUser, forged, replayed, expired
  std::array<Cell, kCallers> cells;
};

// clang-format off
const Row kControllerMatrix[] = {
  // name                      method                    owner    other    operator admin    root   SlurmUser forged replayed expired
  {"Ping",                   api::kPing,              {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  {"SubmitJob",              api::kSubmitJob,         {kDone,   kDone,   kDone,   kDone,   kDone,  kDone,  kBad, kAgain, kBad}},
  // A negative nice puts a job ahead of everyone's: privileged callers only.
  {"SubmitJob(nice<0)",      api::kSubmitJob,         {kDenied, kDenied, kDone,   kDone,   kDone,  kDone,  kBad, kAgain, kBad}},
  {"ListJobs",               api::kListJobs,          {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  // scancel: refusals are per job, inside an OK answer.
  {"SignalJobs",             api::kSignalJobs,        {kDone,   kOkNot,  kDone,   kDone,   kDone,  kDone,  kBad, kAgain, kBad}},
  {"UpdateJob",              api::kUpdateJob,         {kDone,   kOkNot,  kDone,   kDone,   kDone,  kDone,  kBad, kAgain, kBad}},
  // Slurm lets only Administrators (not Operators) update nodes; Rota lets both.
  {"UpdateNode",             api::kUpdateNode,        {kDenied, kDenied, kDone,   kDone,   kDone,  kDone,  kBad, kAgain, kBad}},
  {"ListNodes",              api::kListNodes,         {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  // Slurm lets Administrators reconfigure too; Rota only root and SlurmUser.
  {"Reconfigure",            api::kReconfigure,       {kDenied, kDenied, kDenied, kDenied, kRead,  kRead,  kBad, kAgain, kBad}},
  {"NodeRegister",           api::kNodeRegister,      {kDenied, kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"JobExited",              api::kJobExited,         {kDenied, kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  // A node daemon's word that a job's GPUs are idle (of no job here).
  {"JobGpuIdle",             api::kJobGpuIdle,        {kDenied, kDenied, kDenied, kDenied, kAdmitted, kAdmitted, kBad, kAgain, kBad}},
  {"CreateStep",             api::kCreateStep,        {kDone,   kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"StepEnded",              api::kStepEnded,         {kDone,   kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"ListSteps",              api::kListSteps,         {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  // Declared in methods.h, served by no daemon.
  {"SignalStep",             api::kSignalStep,        {kUnknown, kUnknown, kUnknown, kUnknown, kUnknown, kUnknown, kBad, kAgain, kBad}},
  {"Diag",                   api::kDiag,              {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  {"Diag(reset)",            api::kDiag,              {kDenied, kDenied, kDenied, kDenied, kRead,  kRead,  kBad, kAgain, kBad}},
  {"ListPriorities",         api::kListPriorities,    {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  // sacctmgr's after a change: only those rotadbd takes changes from.
  {"PolicyChanged",          api::kPolicyChanged,     {kDenied, kDenied, kDenied, kDenied, kRead,  kRead,  kBad, kAgain, kBad}},
  {"CreateReservation",      api::kCreateReservation, {kDenied, kDenied, kDone,   kDone,   kDone,  kDone,  kBad, kAgain, kBad}},
  {"UpdateReservation",      api::kUpdateReservation, {kDenied, kDenied, kDone,   kDone,   kDone,  kDone,  kBad, kAgain, kBad}},
  {"DeleteReservation",      api::kDeleteReservation, {kDenied, kDenied, kDone,   kDone,   kDone,  kDone,  kBad, kAgain, kBad}},
  {"ListReservations",       api::kListReservations,  {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  {"ListFairshare",          api::kListFairshare,     {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  // rota why of the owner's job: anyone may read it (no PrivateData here).
  {"ExplainJob",             api::kExplainJob,        {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  // scontrol token: one's own for anyone, another user's for root and SlurmUser.
  {"IssueToken",             api::kIssueToken,        {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  {"IssueToken(other)",      api::kIssueToken,        {kDenied, kDenied, kDenied, kDenied, kRead,  kRead,  kBad, kAgain, kBad}},
  // scontrol takeover to the controller in control: nothing to do, for root and SlurmUser.
  {"Takeover",               api::kTakeover,          {kDenied, kDenied, kDenied, kDenied, kRead,  kRead,  kBad, kAgain, kBad}},
  // Configless: the configuration files, for any user (slurm.conf is world-readable).
  {"FetchConfig",            api::kFetchConfig,       {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
};

const Row kDbdMatrix[] = {
  {"DbdPing",                api::kDbdPing,           {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  // The controller's records: root and SlurmUser only.
  {"DbdRecordJobs",          api::kDbdRecordJobs,     {kDenied, kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"DbdQueryJobs",           api::kDbdQueryJobs,      {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  // sacctmgr's changes: root and SlurmUser only (Slurm lets Operators and
  // Administrators make them too).
  {"DbdAddEntities",         api::kDbdAddEntities,    {kDenied, kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"DbdListEntities",        api::kDbdListEntities,   {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  {"DbdDeleteEntities",      api::kDbdDeleteEntities, {kDenied, kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"DbdModifyEntities",      api::kDbdModifyEntities, {kDenied, kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"DbdQueryNodeEvents",     api::kDbdQueryNodeEvents,{kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
  {"DbdQueryUsage",          api::kDbdQueryUsage,     {kRead,   kRead,   kRead,   kRead,   kRead,  kRead,  kBad, kAgain, kBad}},
};

// rotad knows no AdminLevel: operators and administrators are ordinary users there.
const Row kNodeMatrix[] = {
  {"NodePing",               api::kPing,              {kDenied, kDenied, kDenied, kDenied, kRead,  kRead,  kBad, kAgain, kBad}},
  {"RegisterNow",            api::kRegisterNow,       {kDenied, kDenied, kDenied, kDenied, kRead,  kRead,  kBad, kAgain, kBad}},
  {"LaunchJob",              api::kLaunchJob,         {kDenied, kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"SignalJob",              api::kSignalJob,         {kDenied, kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"PrepareJob",             api::kPrepareJob,        {kDenied, kDenied, kDenied, kDenied, kAdmitted, kAdmitted, kBad, kAgain, kBad}},
  // srun's: the job's owner (and root, SlurmUser) start and signal its tasks.
  {"LaunchTasks",            api::kLaunchTasks,       {kDone,   kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  {"SignalTasks",            api::kSignalTasks,       {kDone,   kDenied, kDenied, kDenied, kDone,  kDone,  kBad, kAgain, kBad}},
  // sstat's: the job's owner (and root, SlurmUser) read its steps' figures.
  {"StepStats",              api::kStepStats,         {kRead,   kDenied, kDenied, kDenied, kRead,  kRead,  kBad, kAgain, kBad}},
};
// clang-format on

// ---------------------------------------------------------------------------
// Cases: how to make a row's request and see its effect.

// What one cell's request is about, made fresh for it.
struct Target {
  uint32_t job = 0;
  uint32_t step = 0;
  std::string name;  // A unique name for what the request makes or changes.
  // How long a check waits for a change that happens after the answer: long
  // when the cell expects it, short when it expects none (a refusal comes
  // before anything is started).
  std::chrono::milliseconds patience{300};
};

struct Case {
  // Made before the request (as root or the owner, with a valid credential).
  std::function<Target(Cluster&, Who, const std::string& unique)> prepare;
  std::function<std::string(Cluster&, const Target&)> body;
  // Whether the change was made; null for reads.
  std::function<bool(Cluster&, const Target&)> done;
};

Target Named(Cluster&, Who, const std::string& unique) { return {.name = unique}; }

std::string Serialized(const google::protobuf::MessageLite& m) { return m.SerializeAsString(); }

class AuthzMatrixTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() != 0) return;
    cluster_ = new Cluster();
    start_error_ = cluster_->Start();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "this test makes users and signs for them with the key";
    ASSERT_EQ(start_error_, "") << cluster_->Logs();
  }
  void TearDown() override {
    if (HasFailure() && cluster_ != nullptr) std::cerr << cluster_->Logs();
  }

  // Runs every cell of `rows` against `port`, with `cases` by row name.
  void RunMatrix(const char* daemon, uint16_t port, const Row* rows, size_t count,
                 const std::map<std::string, Case>& cases) {
    std::set<std::string> names;
    int cell_number = 0;
    for (size_t i = 0; i < count; ++i) {
      const Row& row = rows[i];
      names.insert(row.name);
      auto it = cases.find(row.name);
      ASSERT_NE(it, cases.end()) << daemon << ": row " << row.name << " has no case";
      const Case& c = it->second;
      for (int w = 0; w < kCallers; ++w) {
        const Who who = static_cast<Who>(w);
        const Cell& cell = row.cells[w];
        const std::string unique =
            "authz" + std::to_string(getpid() % 1000) + "c" + std::to_string(++cell_number);
        SCOPED_TRACE(std::string(daemon) + " " + row.name + " as " + kCallerNames[w] + " (" +
                     unique + ")");
        Target target = c.prepare ? c.prepare(*cluster_, who, unique) : Target{.name = unique};
        const std::string body = c.body(*cluster_, target);
        rpc::Response answer = cluster_->Call(port, who, row.method, body);
        const StatusCode code = rpc::StatusCodeFromWire(answer.status);
        if (cell.admitted_only) {
          EXPECT_NE(code, StatusCode::kPermissionDenied) << answer.body;
          EXPECT_EQ(answer.body.find("permission denied"), std::string::npos) << answer.body;
        } else {
          EXPECT_EQ(code, cell.code) << (answer.ok() ? "OK" : answer.body);
        }
        if (who == kForged) {
          EXPECT_NE(answer.body.find("bad MAC"), std::string::npos);
        }
        if (who == kReplayed) {
          EXPECT_NE(answer.body.find("replayed"), std::string::npos);
        }
        if (who == kExpired) {
          EXPECT_TRUE(answer.body.find("expired") != std::string::npos ||
                      answer.body.find("time to live") != std::string::npos)
              << answer.body;
        }
        if (cell.code == StatusCode::kInvalidArgument) {
          EXPECT_NE(answer.body.find("unknown method"), std::string::npos) << answer.body;
        }
        // Reads have nothing to look for; a change has, whoever asks.
        // `done` also tidies up after its cell, so it runs after every one.
        if (cell.effect == Effect::kDone) target.patience = std::chrono::seconds(5);
        const bool made = c.done && c.done(*cluster_, target);
        if (!c.done) {
          ASSERT_NE(cell.effect, Effect::kDone) << row.name << ": its case must look for it";
        } else if (cell.effect != Effect::kUnchecked) {
          EXPECT_EQ(made, cell.effect == Effect::kDone)
              << (cell.effect == Effect::kDone ? "the change was not made" : "the change was made");
        }
        ++cells_run_;
      }
    }
    for (const auto& [name, c] : cases) {
      EXPECT_TRUE(names.count(name)) << daemon << ": case " << name << " has no row";
    }
    // Every method the daemon serves has a row: the ids without one must be unknown to it.
    std::set<uint16_t> methods;
    for (size_t i = 0; i < count; ++i) methods.insert(rows[i].method);
    for (uint16_t id = 0; id < 1024; ++id) {
      if (methods.count(id)) continue;
      rpc::Response answer = cluster_->Call(port, kRoot, id, "");
      EXPECT_NE(answer.body.find("unknown method"), std::string::npos)
          << daemon << " serves method " << id
          << ", which has no row in its matrix: " << (answer.ok() ? "OK" : answer.body);
    }
    std::cerr << daemon << ": " << count << " rows x " << kCallers << " callers = " << cells_run_
              << " cells\n";
  }

  static Cluster* cluster_;
  static std::string start_error_;
  int cells_run_ = 0;
};

Cluster* AuthzMatrixTest::cluster_ = nullptr;
std::string AuthzMatrixTest::start_error_;

// A held job of the owner's for each cell.
Target HeldJob(Cluster& c, Who, const std::string& unique) {
  return {.job = c.OwnersJob(unique, true), .name = unique};
}

std::string Submission(Cluster& c, const Target& t, int nice) {
  wire::SubmitJobRequest req;
  req.mutable_spec()->set_name(t.name);
  req.mutable_spec()->set_hold(true);
  req.mutable_spec()->set_nice(nice);
  req.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  req.mutable_spec()->set_work_dir(c.nodes().work_dir());
  return Serialized(req);
}

// A step of the owner's running job `job`, made by the owner.
uint32_t OwnersStep(Cluster& c, uint32_t job, const std::string& name) {
  wire::CreateStepRequest req;
  req.set_job_id(job);
  req.set_num_tasks(1);
  req.set_num_nodes(1);
  req.set_overlap(true);
  req.set_name(name);
  req.add_argv("/bin/true");
  rpc::Response r = c.Call(c.ctld_port(), kOwner, api::kCreateStep, Serialized(req));
  wire::CreateStepResponse out;
  if (!r.ok() || !out.ParseFromString(r.body)) {
    ADD_FAILURE() << "the owner's step failed: " << r.body;
    return 0;
  }
  return out.step().step_id();
}

std::optional<wire::JobStepRecord> Step(Cluster& c, uint32_t job, uint32_t step) {
  wire::ListStepsRequest req;
  req.add_job_ids(job);
  auto out = c.Read<wire::ListStepsResponse>(c.ctld_port(), api::kListSteps, req);
  for (const auto& s : out.steps()) {
    if (s.step_id() == step) return s;
  }
  return std::nullopt;
}

bool ReservationExists(Cluster& c, const std::string& name) {
  wire::ReservationNameRequest req;  // All of them: a missing one is an error.
  auto out = c.Read<wire::ListReservationsResponse>(c.ctld_port(), api::kListReservations, req);
  for (const auto& r : out.reservations()) {
    if (r.name() == name) return true;
  }
  return false;
}

std::string ReservationBody(Cluster& c, const std::string& name, int64_t duration_s) {
  wire::ReservationRequest req;
  req.set_name(name);
  req.set_start_time(0);
  req.add_given("starttime");
  req.add_given("duration");
  req.add_given("nodes");
  req.add_given("users");
  req.set_duration_s(duration_s);
  req.set_nodes(c.nodes().Node(2));
  req.add_users(c.owner().name());
  return Serialized(req);
}

// Reservations on one node may not overlap: each cell's goes after its check.
void DeleteReservation(Cluster& c, const std::string& name) {
  wire::ReservationNameRequest req;
  req.set_name(name);
  c.Call(c.ctld_port(), kRoot, api::kDeleteReservation, Serialized(req));
}

Target RootsReservation(Cluster& c, Who, const std::string& unique) {
  rpc::Response r =
      c.Call(c.ctld_port(), kRoot, api::kCreateReservation, ReservationBody(c, unique, 600));
  EXPECT_TRUE(r.ok()) << r.body;
  return {.name = unique};
}

int64_t ReservationEnd(Cluster& c, const std::string& name) {
  wire::ReservationNameRequest req;
  auto out = c.Read<wire::ListReservationsResponse>(c.ctld_port(), api::kListReservations, req);
  for (const auto& r : out.reservations()) {
    if (r.name() == name) return r.end_time() - r.start_time();
  }
  return -1;
}

TEST_F(AuthzMatrixTest, Controller) {
  Cluster& c = *cluster_;
  // The owner's long-running job, for steps and exits.
  const uint32_t running = c.OwnersJob("authz-running", false, "#!/bin/sh\nsleep 300\n");
  ASSERT_NE(running, 0u);
  const auto empty = [](Cluster&, const Target&) { return Serialized(wire::Empty()); };
  auto listing = [](const google::protobuf::MessageLite& m) {
    std::string body = Serialized(m);
    return [body](Cluster&, const Target&) { return body; };
  };
  int boot_time = 1000;

  std::map<std::string, Case> cases;
  cases["Ping"] = {nullptr, empty, nullptr};
  cases["SubmitJob"] = {Named, [](Cluster& c, const Target& t) { return Submission(c, t, 0); },
                        [](Cluster& c, const Target& t) { return c.JobNamed(t.name).has_value(); }};
  cases["SubmitJob(nice<0)"] = {
      Named, [](Cluster& c, const Target& t) { return Submission(c, t, -100); },
      [](Cluster& c, const Target& t) { return c.JobNamed(t.name).has_value(); }};
  cases["ListJobs"] = {nullptr, listing(wire::ListJobsRequest()), nullptr};
  cases["SignalJobs"] = {HeldJob,
                         [](Cluster&, const Target& t) {
                           wire::SignalJobsRequest req;
                           req.add_job_ids(std::to_string(t.job));
                           return Serialized(req);
                         },
                         [](Cluster& c, const Target& t) {
                           auto job = c.Job(t.job);
                           return job && job->state() == wire::JOB_STATE_CANCELLED;
                         }};
  cases["UpdateJob"] = {HeldJob,
                        [](Cluster&, const Target& t) {
                          wire::UpdateJobRequest req;
                          req.add_job_ids(std::to_string(t.job));
                          (*req.mutable_fields())["Comment"] = t.name;
                          return Serialized(req);
                        },
                        [](Cluster& c, const Target& t) {
                          auto job = c.Job(t.job);
                          return job && job->spec().comment() == t.name;
                        }};
  cases["UpdateNode"] = {Named,
                         [](Cluster& c, const Target& t) {
                           wire::UpdateNodeRequest req;
                           req.set_nodes(c.nodes().Node(2));
                           req.set_state("DRAIN");
                           req.set_reason(t.name);
                           return Serialized(req);
                         },
                         [](Cluster& c, const Target& t) {
                           return c.Node(c.nodes().Node(2)).record().reason() == t.name;
                         }};
  cases["ListNodes"] = {nullptr, empty, nullptr};
  cases["Reconfigure"] = {nullptr, empty, nullptr};
  cases["Takeover"] = {nullptr, empty, nullptr};
  cases["FetchConfig"] = {nullptr, empty, nullptr};
  cases["NodeRegister"] = {
      [&boot_time](Cluster&, Who, const std::string& unique) {
        return Target{.job = static_cast<uint32_t>(++boot_time), .name = unique};
      },
      [](Cluster& c, const Target& t) {
        wire::NodeRegisterRequest req;
        req.set_node(c.nodes().Node(2));
        req.set_boot_time(t.job);
        return Serialized(req);
      },
      [](Cluster& c, const Target& t) {
        return c.Node(c.nodes().Node(2)).boot_time() == static_cast<int64_t>(t.job);
      }};
  // A running job of the owner's for each cell; those that end it reported done.
  cases["JobExited"] = {[](Cluster& c, Who, const std::string& unique) {
                          return Target{.job = c.OwnersJob(unique, false, "#!/bin/sh\nsleep 300\n"),
                                        .name = unique};
                        },
                        [](Cluster& c, const Target& t) {
                          wire::JobExitedRequest req;
                          req.set_job_id(t.job);
                          req.set_wait_status(0);
                          req.set_node(c.nodes().Node(1));
                          return Serialized(req);
                        },
                        [](Cluster& c, const Target& t) {
                          auto job = c.Job(t.job);
                          // Whatever the node does next, the controller took the job for ended.
                          bool ended = job && job->state() != wire::JOB_STATE_RUNNING &&
                                       job->state() != wire::JOB_STATE_PENDING;
                          // Free node 1 for the next cell's job either way: the job still runs
                          // there when only its exit was reported.
                          wire::SignalJobsRequest cancel;
                          cancel.add_job_ids(std::to_string(t.job));
                          c.Call(c.ctld_port(), kRoot, api::kSignalJobs, Serialized(cancel));
                          wire::SignalJobRequest kill;
                          kill.set_job_id(t.job);
                          kill.set_signal(SIGKILL);
                          kill.set_terminate(true);
                          c.Call(c.node_port(), kRoot, api::kSignalJob, Serialized(kill));
                          WaitUntil([&] {
                            auto j = c.Job(t.job);
                            return j && j->state() != wire::JOB_STATE_RUNNING &&
                                   j->state() != wire::JOB_STATE_COMPLETING;
                          });
                          return ended;
                        }};
  cases["CreateStep"] = {Named,
                         [running](Cluster&, const Target& t) {
                           wire::CreateStepRequest req;
                           req.set_job_id(running);
                           req.set_num_tasks(1);
                           req.set_num_nodes(1);
                           req.set_overlap(true);
                           req.set_name(t.name);
                           req.add_argv("/bin/true");
                           return Serialized(req);
                         },
                         [running](Cluster& c, const Target& t) {
                           wire::ListStepsRequest req;
                           req.add_job_ids(running);
                           auto out =
                               c.Read<wire::ListStepsResponse>(c.ctld_port(), api::kListSteps, req);
                           for (const auto& s : out.steps()) {
                             if (s.name() == t.name) return true;
                           }
                           return false;
                         }};
  cases["StepEnded"] = {
      [running](Cluster& c, Who, const std::string& unique) {
        return Target{.job = running, .step = OwnersStep(c, running, unique), .name = unique};
      },
      [](Cluster&, const Target& t) {
        wire::StepEndedRequest req;
        req.set_job_id(t.job);
        req.set_step_id(t.step);
        req.set_wait_status(0);
        return Serialized(req);
      },
      [](Cluster& c, const Target& t) {
        auto step = Step(c, t.job, t.step);
        return !step || step->state() != wire::JOB_STATE_RUNNING;
      }};
  cases["ListSteps"] = {nullptr, listing(wire::ListStepsRequest()), nullptr};
  cases["JobGpuIdle"] = {nullptr, empty, nullptr};
  cases["SignalStep"] = {nullptr, empty, nullptr};
  cases["Diag"] = {nullptr, listing(wire::DiagRequest()), nullptr};
  wire::DiagRequest reset;
  reset.set_reset(true);
  cases["Diag(reset)"] = {nullptr, listing(reset), nullptr};
  cases["ListPriorities"] = {nullptr, listing(wire::PriorityRequest()), nullptr};
  cases["PolicyChanged"] = {nullptr, empty, nullptr};
  cases["CreateReservation"] = {
      Named, [](Cluster& c, const Target& t) { return ReservationBody(c, t.name, 600); },
      [](Cluster& c, const Target& t) {
        const bool made = ReservationExists(c, t.name);
        DeleteReservation(c, t.name);
        return made;
      }};
  cases["UpdateReservation"] = {RootsReservation,
                                [](Cluster&, const Target& t) {
                                  wire::ReservationRequest req;
                                  req.set_name(t.name);
                                  req.set_duration_s(1200);
                                  req.add_given("duration");
                                  return Serialized(req);
                                },
                                [](Cluster& c, const Target& t) {
                                  const bool changed = ReservationEnd(c, t.name) == 1200;
                                  DeleteReservation(c, t.name);
                                  return changed;
                                }};
  cases["DeleteReservation"] = {RootsReservation,
                                [](Cluster&, const Target& t) {
                                  wire::ReservationNameRequest req;
                                  req.set_name(t.name);
                                  return Serialized(req);
                                },
                                [](Cluster& c, const Target& t) {
                                  const bool gone = !ReservationExists(c, t.name);
                                  DeleteReservation(c, t.name);
                                  return gone;
                                }};
  cases["ListReservations"] = {nullptr, listing(wire::ReservationNameRequest()), nullptr};
  cases["ListFairshare"] = {nullptr, listing(wire::FairshareRequest()), nullptr};
  wire::WhyRequest why;
  why.set_job_id(running);
  cases["ExplainJob"] = {nullptr, listing(why), nullptr};
  cases["IssueToken"] = {nullptr, listing(wire::TokenRequest()), nullptr};
  wire::TokenRequest roots_token;
  roots_token.set_username("root");
  cases["IssueToken(other)"] = {nullptr, listing(roots_token), nullptr};

  RunMatrix("rotactld", c.ctld_port(), kControllerMatrix, std::size(kControllerMatrix), cases);
  wire::SignalJobsRequest cancel;
  cancel.add_job_ids(std::to_string(running));
  c.Call(c.ctld_port(), kRoot, api::kSignalJobs, Serialized(cancel));
}

TEST_F(AuthzMatrixTest, Dbd) {
  Cluster& c = *cluster_;
  auto listing = [](const google::protobuf::MessageLite& m) {
    std::string body = Serialized(m);
    return [body](Cluster&, const Target&) { return body; };
  };
  auto account_exists = [](Cluster& c, const std::string& name) {
    wire::ListEntitiesRequest req;
    req.set_kind("account");
    req.add_names(name);
    auto out = c.Read<wire::ListEntitiesResponse>(c.dbd_port(), api::kDbdListEntities, req);
    for (const auto& e : out.entities()) {
      if (e.name() == name) return true;
    }
    return false;
  };
  auto roots_account = [](Cluster& c, Who, const std::string& unique) {
    wire::AddEntitiesRequest req;
    wire::AcctEntity& e = *req.add_entities();
    e.set_kind("account");
    e.set_name(unique);
    rpc::Response r = c.Call(c.dbd_port(), kRoot, api::kDbdAddEntities, Serialized(req));
    EXPECT_TRUE(r.ok()) << r.body;
    return Target{.name = unique};
  };
  static uint32_t next_job = 900000;

  std::map<std::string, Case> cases;
  cases["DbdPing"] = {nullptr, listing(wire::Empty()), nullptr};
  cases["DbdRecordJobs"] = {[](Cluster&, Who, const std::string& unique) {
                              return Target{.job = ++next_job, .name = unique};
                            },
                            [](Cluster&, const Target& t) {
                              wire::RecordJobsRequest req;
                              wire::AccountingJob& j = *req.add_jobs();
                              j.set_job_id(t.job);
                              j.set_name(t.name);
                              j.set_cluster("ndtest");
                              j.set_user("root");
                              j.set_submit_time(1);
                              j.set_state(wire::JOB_STATE_COMPLETED);
                              j.set_ended(true);
                              return Serialized(req);
                            },
                            [](Cluster& c, const Target& t) {
                              wire::QueryJobsRequest req;
                              req.add_job_ids(t.job);
                              auto out = c.Read<wire::QueryJobsResponse>(c.dbd_port(),
                                                                         api::kDbdQueryJobs, req);
                              return out.jobs_size() > 0;
                            }};
  cases["DbdQueryJobs"] = {nullptr, listing(wire::QueryJobsRequest()), nullptr};
  cases["DbdAddEntities"] = {
      Named,
      [](Cluster&, const Target& t) {
        wire::AddEntitiesRequest req;
        wire::AcctEntity& e = *req.add_entities();
        e.set_kind("account");
        e.set_name(t.name);
        return Serialized(req);
      },
      [account_exists](Cluster& c, const Target& t) { return account_exists(c, t.name); }};
  wire::ListEntitiesRequest users;
  users.set_kind("user");
  cases["DbdListEntities"] = {nullptr, listing(users), nullptr};
  cases["DbdDeleteEntities"] = {
      roots_account,
      [](Cluster&, const Target& t) {
        wire::DeleteEntitiesRequest req;
        req.set_kind("account");
        req.add_names(t.name);
        return Serialized(req);
      },
      [account_exists](Cluster& c, const Target& t) { return !account_exists(c, t.name); }};
  cases["DbdModifyEntities"] = {roots_account,
                                [](Cluster&, const Target& t) {
                                  wire::ModifyEntitiesRequest req;
                                  req.set_kind("account");
                                  req.add_names(t.name);
                                  (*req.mutable_set())["Description"] = t.name + "-changed";
                                  return Serialized(req);
                                },
                                [](Cluster& c, const Target& t) {
                                  wire::ListEntitiesRequest req;
                                  req.set_kind("account");
                                  req.add_names(t.name);
                                  auto out = c.Read<wire::ListEntitiesResponse>(
                                      c.dbd_port(), api::kDbdListEntities, req);
                                  for (const auto& e : out.entities()) {
                                    for (const auto& [key, value] : e.fields()) {
                                      if (value == t.name + "-changed") return true;
                                    }
                                  }
                                  return false;
                                }};
  cases["DbdQueryNodeEvents"] = {nullptr, listing(wire::QueryNodeEventsRequest()), nullptr};
  cases["DbdQueryUsage"] = {nullptr, listing(wire::QueryJobsRequest()), nullptr};

  RunMatrix("rotadbd", c.dbd_port(), kDbdMatrix, std::size(kDbdMatrix), cases);
}

// How many lines `path` has (0 when it does not exist).
int LineCount(const std::string& path) {
  const std::string text = testing::ReadFileText(path);
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST_F(AuthzMatrixTest, Node) {
  Cluster& c = *cluster_;
  const std::string work = c.nodes().work_dir();
  // The owner's job on node 1 counts the SIGUSR1s it gets.
  const std::string usr1 = work + "/usr1-count";
  const uint32_t running = c.OwnersJob(
      "authz-node", false,
      "#!/bin/sh\ntrap 'echo usr1 >> " + usr1 + "' USR1\nwhile :; do sleep 0.1; done\n");
  ASSERT_NE(running, 0u);
  // Where srun would listen for the tasks' output: the kernel accepts for it.
  rpc::testing::RawListener io;

  std::map<std::string, Case> cases;
  cases["NodePing"] = {nullptr, [](Cluster&, const Target&) { return Serialized(wire::Empty()); },
                       nullptr};
  cases["RegisterNow"] = cases["NodePing"];
  static uint32_t next_job = 800000;
  cases["LaunchJob"] = {
      [](Cluster&, Who, const std::string& unique) {
        return Target{.job = ++next_job, .name = unique};
      },
      [work](Cluster& c, const Target& t) {
        wire::LaunchJobRequest req;
        wire::JobLaunch& job = *req.mutable_job();
        job.set_job_id(t.job);
        job.add_nodes(c.nodes().Node(1));
        job.set_cpus_per_node(1);
        job.add_mem_by_node_mb(100);
        wire::JobSpec& spec = *job.mutable_spec();
        spec.set_name(t.name);
        spec.set_partition("batch");
        spec.set_user("root");
        spec.set_work_dir(work);
        req.mutable_payload()->set_job_id(t.job);
        req.mutable_payload()->set_script("#!/bin/sh\ntouch " + work + "/" + t.name + "\n");
        req.mutable_payload()->add_environment("PATH=/usr/local/bin:/usr/bin:/bin");
        req.set_cluster_name("ndtest");
        return Serialized(req);
      },
      [work](Cluster&, const Target& t) {
        const std::string marker = work + "/" + t.name;
        WaitUntil([&] { return std::filesystem::exists(marker); }, t.patience);
        return std::filesystem::exists(marker);
      }};
  cases["SignalJob"] = {[running, usr1](Cluster&, Who, const std::string& unique) {
                          // The job's trap may still be writing the line of the
                          // cell before: count once the file stops growing.
                          int lines = LineCount(usr1);
                          for (int i = 0; i < 15; ++i) {
                            std::this_thread::sleep_for(std::chrono::milliseconds(200));
                            const int now = LineCount(usr1);
                            if (now == lines) break;
                            lines = now;
                          }
                          return Target{
                              .job = running, .step = static_cast<uint32_t>(lines), .name = unique};
                        },
                        [](Cluster&, const Target& t) {
                          wire::SignalJobRequest req;
                          req.set_job_id(t.job);
                          req.set_signal(SIGUSR1);
                          return Serialized(req);
                        },
                        [usr1](Cluster&, const Target& t) {
                          const int before = static_cast<int>(t.step);
                          WaitUntil([&] { return LineCount(usr1) > before; }, t.patience);
                          return LineCount(usr1) > before;
                        }};
  cases["PrepareJob"] = {Named,
                         [work](Cluster& c, const Target& t) {
                           wire::PrepareJobRequest req;
                           wire::JobLaunch& job = *req.mutable_job();
                           job.set_job_id(++next_job);
                           job.add_nodes(c.nodes().Node(2));
                           job.add_nodes(c.nodes().Node(1));
                           job.set_cpus_per_node(1);
                           job.add_mem_by_node_mb(100);
                           job.add_mem_by_node_mb(100);
                           job.mutable_spec()->set_name(t.name);
                           job.mutable_spec()->set_work_dir(work);
                           req.set_cluster_name("ndtest");
                           return Serialized(req);
                         },
                         nullptr};
  const uint16_t io_port = io.port();
  cases["LaunchTasks"] = {
      [running](Cluster& c, Who, const std::string& unique) {
        return Target{.job = running, .step = OwnersStep(c, running, unique), .name = unique};
      },
      [work, io_port](Cluster&, const Target& t) {
        wire::LaunchTasksRequest req;
        req.set_job_id(t.job);
        req.set_step_id(t.step);
        req.set_node_index(0);
        req.add_argv("/bin/sh");
        req.add_argv("-c");
        req.add_argv("touch " + work + "/" + t.name);
        req.add_environment("PATH=/usr/local/bin:/usr/bin:/bin");
        req.set_work_dir(work);
        req.set_io_host("127.0.0.1");
        req.set_io_port(io_port);
        return Serialized(req);
      },
      [work](Cluster&, const Target& t) {
        const std::string marker = work + "/" + t.name;
        WaitUntil([&] { return std::filesystem::exists(marker); }, t.patience);
        return std::filesystem::exists(marker);
      }};
  // Each cell signals tasks of a step of the owner's, started for it (as
  // LaunchTasks above) and counting its SIGUSR1s.
  cases["SignalTasks"] = {
      [running, work, io_port](Cluster& c, Who, const std::string& unique) {
        Target t{.job = running, .step = OwnersStep(c, running, unique), .name = unique};
        wire::LaunchTasksRequest req;
        req.set_job_id(t.job);
        req.set_step_id(t.step);
        req.add_argv("/bin/sh");
        req.add_argv("-c");
        req.add_argv("trap 'echo usr1 >> " + work + "/" + unique + "' USR1; touch " + work + "/" +
                     unique + ".up; while :; do sleep 0.1; done");
        req.add_environment("PATH=/usr/local/bin:/usr/bin:/bin");
        req.set_work_dir(work);
        req.set_io_host("127.0.0.1");
        req.set_io_port(io_port);
        rpc::Response r = c.Call(c.node_port(), kRoot, api::kLaunchTasks, Serialized(req));
        EXPECT_TRUE(r.ok()) << r.body;
        EXPECT_TRUE(WaitUntil([&] { return std::filesystem::exists(work + "/" + unique + ".up"); },
                              std::chrono::seconds(5)));
        return t;
      },
      [](Cluster&, const Target& t) {
        wire::SignalTasksRequest req;
        req.set_job_id(t.job);
        req.set_step_id(t.step);
        req.set_signal(SIGUSR1);
        return Serialized(req);
      },
      [work](Cluster& c, const Target& t) {
        const std::string count = work + "/" + t.name;
        WaitUntil([&] { return LineCount(count) > 0; }, t.patience);
        const bool got = LineCount(count) > 0;
        // The step's tasks go: they would hold the job's node otherwise.
        wire::SignalTasksRequest kill;
        kill.set_job_id(t.job);
        kill.set_step_id(t.step);
        kill.set_signal(SIGKILL);
        c.Call(c.node_port(), kRoot, api::kSignalTasks, Serialized(kill));
        return got;
      }};

  cases["StepStats"] = {nullptr,
                        [running](Cluster&, const Target&) {
                          wire::StepStatsRequest req;
                          req.set_job_id(running);
                          req.set_all_steps(true);
                          return Serialized(req);
                        },
                        nullptr};

  RunMatrix("rotad", c.node_port(), kNodeMatrix, std::size(kNodeMatrix), cases);
}

}  // namespace
}  // namespace rota
