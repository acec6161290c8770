#pragma once
// The cluster the authorisation matrix (authz_matrix_test.cc) runs against:
// rotadbd, rotactld and one rotad on auth/slurm, the users it makes for the
// callers, and the credentials it signs for them with the cluster's key.

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "api/methods.h"
#include "auth/credential.h"
#include "auth/sha256.h"
#include "auth/slurm_key_auth.h"
#include "auth/slurm_key_file.h"
#include "common/status.h"
#include "rota.pb.h"
#include "rpc/client.h"
#include "rpc/frame.h"
#include "tests/integration/dbd_process.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/test_user.h"

namespace rota::testing::authz {

// The callers: the matrix's columns.
enum Who : int {
  kOwner,      // owns the job (or the step) the request is about
  kOther,      // another ordinary user
  kOperator,   // AdminLevel=Operator in rotadbd
  kAdmin,      // AdminLevel=Administrator in rotadbd
  kRoot,       // uid 0
  kSlurmUser,  // slurm.conf's SlurmUser
  kForged,     // the owner's uid, signed with a key that is not the cluster's
  kReplayed,   // the owner's request, sent once more with the same credential
  kExpired,    // root's, signed an hour ago (the time to live is 300 s)
  kCallers,
};
inline constexpr std::array<const char*, kCallers> kCallerNames = {
    "owner", "other", "operator", "admin", "root", "SlurmUser", "forged", "replayed", "expired"};

// ---------------------------------------------------------------------------
// Users.

using testing::TestUser;

// The identity a credential of `user` carries.
inline auth::Identity IdentityOf(const TestUser& user) {
  return {.uid = user.uid(), .gid = user.gid()};
}

// ---------------------------------------------------------------------------
// The cluster: rotadbd, rotactld and one rotad, shared by the whole suite.

class Cluster {
 public:
  Cluster()
      : dbd_port_(testing::FreeLoopbackPort()),
        ctld_port_(testing::FreeLoopbackPort()),
        nodes_(ctld_port_, "SlurmUser=" + slurm_user_.name() + "\n" +
                               // rotad's credential socket, away from the system's.
                               "AuthInfo=socket=" + SocketDir() + "/auth.socket\n" +
                               // scontrol token's method needs a jwt_key.
                               "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=" + SocketDir() +
                               "/jwt.key\n" + testing::AccountingConf(dbd_port_) +
                               // rotactld reads AdminLevel only when it enforces
                               // something of accounting's.
                               "AccountingStorageEnforce=associations\n"
                               // kFetchConfig is served: its row is read by all.
                               "SlurmctldParameters=enable_configless\n") {}

  // Starts the daemons and gives the operator and administrator their levels.
  // Empty, or what went wrong.
  std::string Start() {
    for (const TestUser* u : {&owner_, &other_, &operator_, &admin_, &slurm_user_}) {
      if (!u->ok()) return "useradd failed";
    }
    auto key = auth::LoadSlurmKey((nodes_.dir().path() / "slurm.key").string());
    if (!key.ok()) return key.status().ToString();
    key_ = *key;
    std::string wrong(64, '\0');
    std::mt19937_64 rng(std::random_device{}());
    for (char& c : wrong) c = static_cast<char>(rng() & 0xff);
    wrong_key_ = std::make_shared<auth::SlurmKey>(wrong);

    std::filesystem::create_directories(SocketDir());
    {
      std::ofstream(SocketDir() + "/jwt.key") << "the authorisation matrix's token key";
      chmod((SocketDir() + "/jwt.key").c_str(), 0600);
    }
    dbd_ = std::make_unique<DaemonProcess>(
        std::vector<std::string>{BinDir() + "/rotadbd", "-f", nodes_.conf(), "-s",
                                 (nodes_.dir().path() / "dbd").string()},
        (nodes_.dir().path() / "rotadbd.log").string());
    if (!WaitUntil([&] { return testing::LoopbackAccepting(dbd_port_); })) return "rotadbd";
    ctld_ = std::make_unique<DaemonProcess>(
        std::vector<std::string>{BinDir() + "/rotactld", "-f", nodes_.conf()},
        (nodes_.dir().path() / "rotactld.log").string());
    if (!WaitUntil([&] { return testing::LoopbackAccepting(ctld_port_); })) return "rotactld";
    if (!nodes_.StartNode(1)) return "rotad";
    for (const std::string& line : std::vector<std::string>{
             "add account authz", "add user " + owner_.name() + " account=authz",
             "add user " + other_.name() + " account=authz",
             "add user " + slurm_user_.name() + " account=authz",
             "add user " + operator_.name() + " account=authz AdminLevel=Operator",
             "add user " + admin_.name() + " account=authz AdminLevel=Administrator"}) {
      testing::CommandResult r = nodes_.Run("sacctmgr -i " + line);
      if (r.exit_code != 0) return "sacctmgr " + line + ": " + r.out;
    }
    // The controller holds the levels once the operator may drain a node.
    std::string last;
    bool levels = WaitUntil([&] {
      wire::UpdateNodeRequest req;
      req.set_nodes(nodes_.Node(2));
      req.set_state("DRAIN");
      req.set_reason("levels known");
      rpc::Response r = Call(ctld_port_, kOperator, api::kUpdateNode, req.SerializeAsString());
      last = r.body;
      return r.ok();
    });
    if (!levels) return "the controller never learnt the admin levels: " + last;
    return "";
  }

  std::string Logs() const {
    return "rotactld:\n" + ctld_->Log() + "rotadbd:\n" + dbd_->Log() + "rotad:\n" +
           nodes_.NodeLogs();
  }

  uint16_t ctld_port() const { return ctld_port_; }
  uint16_t dbd_port() const { return dbd_port_; }
  uint16_t node_port() const { return nodes_.NodePort(1); }
  NodedCluster& nodes() { return nodes_; }
  const TestUser& owner() const { return owner_; }
  std::string UserName(Who who) const {
    switch (who) {
      case kOther:
        return other_.name();
      case kOperator:
        return operator_.name();
      case kAdmin:
        return admin_.name();
      case kRoot:
      case kExpired:
        return "root";
      case kSlurmUser:
        return slurm_user_.name();
      default:
        return owner_.name();
    }
  }
  auth::Identity IdOf(Who who) const {
    switch (who) {
      case kOther:
        return IdentityOf(other_);
      case kOperator:
        return IdentityOf(operator_);
      case kAdmin:
        return IdentityOf(admin_);
      case kRoot:
      case kExpired:
        return {};
      case kSlurmUser:
        return IdentityOf(slurm_user_);
      default:
        return IdentityOf(owner_);
    }
  }

  // A credential for `who` bound to this request.
  std::string Credential(Who who, uint16_t method, const std::string& body) const {
    int64_t issued = auth::SystemUnixMillis();
    if (who == kExpired) issued -= 3600 * 1000;
    auto credential =
        auth::SignSlurmCredential(who == kForged ? *wrong_key_ : *key_, IdOf(who), issued,
                                  auth::Sha256(auth::RpcBindingBytes(method, body)));
    return credential.ok() ? *credential : std::string();
  }

  // Sends one request as `who` and returns the answer (for kReplayed: the
  // answer to the second sending). A transport failure reads as its status.
  rpc::Response Call(uint16_t port, Who who, uint16_t method, const std::string& body) const {
    const std::string credential = Credential(who, method, body);
    auto once = [&]() -> rpc::Response {
      rpc::RpcClient client;
      if (Status s = client.Connect("127.0.0.1", port, std::chrono::seconds(5)); !s.ok()) {
        return {rpc::WireStatus(s.code()), "connect: " + s.message()};
      }
      auto answer = client.Call(method, credential, body, std::chrono::seconds(20));
      if (!answer.ok()) {
        return {rpc::WireStatus(answer.status().code()), "call: " + answer.status().message()};
      }
      return *answer;
    };
    rpc::Response first = once();
    return who == kReplayed ? once() : first;
  }

  // Root's reads, for the effect checks.
  template <typename Resp>
  Resp Read(uint16_t port, uint16_t method, const google::protobuf::MessageLite& req) const {
    Resp out;
    rpc::Response r = Call(port, kRoot, method, req.SerializeAsString());
    EXPECT_TRUE(r.ok()) << r.body;
    out.ParseFromString(r.body);
    return out;
  }
  std::optional<wire::JobRecord> Job(uint32_t id) const {
    wire::ListJobsRequest req;
    req.add_job_ids(std::to_string(id));
    req.set_include_finished(true);
    auto out = Read<wire::ListJobsResponse>(ctld_port_, api::kListJobs, req);
    if (out.jobs_size() == 0) return std::nullopt;
    return out.jobs(0);
  }
  std::optional<wire::JobRecord> JobNamed(const std::string& name) const {
    wire::ListJobsRequest req;
    req.add_names(name);
    req.set_include_finished(true);
    auto out = Read<wire::ListJobsResponse>(ctld_port_, api::kListJobs, req);
    if (out.jobs_size() == 0) return std::nullopt;
    return out.jobs(0);
  }
  wire::NodeInfo Node(const std::string& name) const {
    const auto out = Read<wire::ListNodesResponse>(ctld_port_, api::kListNodes, wire::Empty());
    for (const auto& n : out.nodes()) {
      if (n.record().name() == name) return n;
    }
    return {};
  }

  // A job of the owner's: held, or running `script` on node 1. 0 on failure.
  uint32_t OwnersJob(const std::string& name, bool hold,
                     const std::string& script = "#!/bin/sh\ntrue\n") const {
    wire::SubmitJobRequest req;
    wire::JobSpec& spec = *req.mutable_spec();
    spec.set_name(name);
    spec.set_hold(hold);
    spec.set_script(script);
    spec.set_work_dir(nodes_.work_dir());
    spec.add_environment("PATH=/usr/local/bin:/usr/bin:/bin");
    rpc::Response r = Call(ctld_port_, kOwner, api::kSubmitJob, req.SerializeAsString());
    wire::SubmitJobResponse out;
    if (!r.ok() || !out.ParseFromString(r.body)) {
      ADD_FAILURE() << "the owner's submission failed: " << r.body;
      return 0;
    }
    if (!hold && !WaitUntil([&] {
          auto job = Job(out.job_id());
          return job && job->state() == wire::JOB_STATE_RUNNING;
        })) {
      auto job = Job(out.job_id());
      ADD_FAILURE() << "job " << out.job_id()
                    << " never ran: " << (job ? job->reason() : std::string("(gone)")) << "\n"
                    << nodes_.Run("squeue -t all -o '%i %T %u %N %r'").out
                    << nodes_.Run("scontrol show node").out;
    }
    return out.job_id();
  }

 private:
  TestUser owner_{"rotaz", "o"};
  TestUser other_{"rotaz", "x"};
  TestUser operator_{"rotaz", "p"};
  TestUser admin_{"rotaz", "a"};
  TestUser slurm_user_{"rotaz", "s"};
  uint16_t dbd_port_;
  uint16_t ctld_port_;
  NodedCluster nodes_;
  std::shared_ptr<const auth::SlurmKey> key_;
  std::shared_ptr<const auth::SlurmKey> wrong_key_;
  // Stopped before nodes_ goes (rotad first, then these, in reverse order).
  std::unique_ptr<DaemonProcess> dbd_;
  std::unique_ptr<DaemonProcess> ctld_;

 public:
  ~Cluster() {
    nodes_.StopNode(1);
    ctld_.reset();
    dbd_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(SocketDir(), ignored);
  }
  static std::string SocketDir() { return "/tmp/rota-authz-" + std::to_string(getpid()); }
};

}  // namespace rota::testing::authz
