// Authentication as ordinary users see it, with real daemons and real users
// (made with useradd for each test, removed after):
//   - auth/slurm: the key is root's; users' commands get their credentials
//     from the credential socket, served by rota-authd (login hosts) or rotad
//     (nodes), which signs for the uid the kernel names, whatever the client
//     claims;
//   - auth/munge with a private munged, where munge is installed;
//   - a credential captured before a daemon restarts is refused after it
//     (rotactld and rotad), while commands sent around the restart succeed.
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "api/auth_settings.h"
#include "api/methods.h"
#include "auth/credential.h"
#include "auth/credential_socket.h"
#include "auth/munged_process.h"
#include "auth/sha256.h"
#include "auth/signed_send.h"
#include "auth/slurm_key_auth.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "rota.pb.h"
#include "rpc/client.h"
#include "rpc/frame.h"
#include "rpc/raw_peer_for_test.h"
#include "tests/integration/controller_process.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/test_user.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::BinDir;
using testing::CommandResult;
using testing::ControllerProcess;
using testing::DaemonProcess;
using testing::TestUser;
using testing::WaitUntil;

// "UserId=NAME(UID)" as scontrol show job prints it.
std::string UserIdField(const TestUser& user) {
  return "UserId=" + user.name() + "(" + std::to_string(user.uid()) + ")";
}

// A directory for a socket that every user reaches; removed on destruction.
class SocketDir {
 public:
  SocketDir() : path_("/tmp/rota-auth-" + std::to_string(getpid())) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
    chmod(path_.c_str(), 0755);
  }
  ~SocketDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string Socket() const { return path_ + "/auth.socket"; }

 private:
  std::string path_;
};

// ---------------------------------------------------------------------------
// auth/slurm on a login host: rota-authd serves the socket.

class AuthdUsersTest : public ::testing::Test {
 protected:
  AuthdUsersTest() : ctld_("AuthInfo=socket=" + sockets_.Socket() + "\n") {}

  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "this test makes users and runs commands as them";
    ASSERT_TRUE(alice_.ok() && bob_.ok()) << "useradd failed";
    // The users read slurm.conf; the key beside it stays root's (0600).
    ASSERT_EQ(chmod(ctld_.dir().path().c_str(), 0755), 0);
    ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
    StartAuthd();
  }
  void TearDown() override {
    if (HasFailure()) {
      std::cerr << "rotactld:\n" << ctld_.Log() << "rota-authd:\n" << ReadAuthdLog();
    }
    authd_.reset();
    ctld_.Kill(SIGTERM);
  }

  void StartAuthd() {
    authd_ = std::make_unique<DaemonProcess>(
        std::vector<std::string>{BinDir() + "/rota-authd", "-f", ctld_.conf()}, AuthdLogPath());
    ASSERT_TRUE(WaitUntil([&] {
      return authd_->Running() && std::filesystem::exists(sockets_.Socket());
    })) << ReadAuthdLog();
  }
  std::string AuthdLogPath() const { return (ctld_.dir().path() / "rota-authd.log").string(); }
  std::string ReadAuthdLog() const { return testing::ReadFileText(AuthdLogPath()); }

  CommandResult As(const TestUser& user, const std::string& command_line) const {
    return ctld_.Run(user.Line(ctld_.conf(), command_line));
  }

  SocketDir sockets_;
  ControllerProcess ctld_;
  TestUser alice_{"rota", "a"};
  TestUser bob_{"rota", "b"};
  std::unique_ptr<DaemonProcess> authd_;
};

TEST_F(AuthdUsersTest, UsersSubmitListAndCancelTheirOwnJobsThroughTheSocket) {
  // The key is not theirs to read...
  const std::string key = (ctld_.dir().path() / "slurm.key").string();
  CommandResult peek = ctld_.Run("su -s /bin/sh " + alice_.name() + " -c 'cat " + key + "'");
  EXPECT_NE(peek.exit_code, 0);
  EXPECT_NE(peek.out.find("Permission denied"), std::string::npos) << peek.out;
  struct stat st {};
  ASSERT_EQ(stat(sockets_.Socket().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u);

  // ...yet their commands work, each as themself.
  CommandResult a = As(alice_, "sbatch --parsable --hold -J mine --wrap=true");
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(a.out, "1\n");
  CommandResult b = As(bob_, "sbatch --parsable --hold -J his --wrap=true");
  ASSERT_EQ(b.out, "2\n") << b.out;
  EXPECT_EQ(As(alice_, "squeue -h -o %i/%u").out,
            "1/" + alice_.name() + "\n2/" + bob_.name() + "\n");
  EXPECT_NE(As(alice_, "scontrol show job 1").out.find(UserIdField(alice_)), std::string::npos);
  EXPECT_NE(As(bob_, "scontrol show job 2").out.find(UserIdField(bob_)), std::string::npos);

  // Each may cancel only their own.
  CommandResult refused = As(alice_, "scancel 2");
  EXPECT_NE(refused.out.find("error"), std::string::npos) << refused.out;
  EXPECT_EQ(ctld_.Run("squeue -h -t all -j 2 -o %T").out, "PENDING\n");
  EXPECT_EQ(As(alice_, "scancel 1").exit_code, 0);
  EXPECT_EQ(As(bob_, "scancel 2").exit_code, 0);
  EXPECT_EQ(ctld_.Run("squeue -h -t all -o '%i|%T'").out, "1|CANCELLED\n2|CANCELLED\n");
}

// A client that sends, after its request, the uid and gid it would like (0:
// root) still gets a credential naming its own.
TEST_F(AuthdUsersTest, AClientClaimingRootIsSignedForItsOwnUid) {
  wire::SubmitJobRequest req;
  req.mutable_spec()->set_name("claims-root");
  req.mutable_spec()->set_hold(true);
  req.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  const std::string body = req.SerializeAsString();
  const std::string socket_path = sockets_.Socket();
  const uint16_t port = ctld_.port();

  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, nullptr) != 0 || setresgid(alice_.gid(), alice_.gid(), alice_.gid()) != 0 ||
        setresuid(alice_.uid(), alice_.uid(), alice_.uid()) != 0) {
      _exit(10);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, socket_path.data(), socket_path.size());
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) _exit(11);
    std::string request(auth::kCredentialSocketMagic);
    const auth::Sha256Digest digest = auth::Sha256(auth::RpcBindingBytes(api::kSubmitJob, body));
    request.append(reinterpret_cast<const char*>(digest.data()), digest.size());
    request.append(std::string("uid=0 gid=0\0\0\0\0\0\0\0\0", 20));
    if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
      _exit(12);
    }
    std::string answer;
    char buffer[256];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, n);
    close(fd);
    if (answer.size() < 3 || answer[0] != auth::kCredentialSocketAnswerCredential) _exit(13);
    rpc::RpcClient client;
    if (!client.Connect("127.0.0.1", port, std::chrono::seconds(5)).ok()) _exit(14);
    auto reply = client.Call(api::kSubmitJob, answer.substr(3), body, std::chrono::seconds(10));
    _exit(reply.ok() && reply->ok() ? 0 : 15);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "the child's step that failed: exit code";
  const std::string show = ctld_.Run("scontrol show job 1").out;
  EXPECT_NE(show.find("JobName=claims-root"), std::string::npos) << show;
  EXPECT_NE(show.find(UserIdField(alice_)), std::string::npos) << show;
  EXPECT_EQ(show.find("UserId=root"), std::string::npos) << show;
  // Alice may cancel it: it is hers.
  EXPECT_EQ(As(alice_, "scancel 1").exit_code, 0);
}

TEST_F(AuthdUsersTest, WithoutTheSocketUsersAreToldWhy) {
  authd_.reset();
  EXPECT_FALSE(std::filesystem::exists(sockets_.Socket()));  // rota-authd removed it
  CommandResult r = As(alice_, "sbatch --hold --wrap=true");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find(sockets_.Socket()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rota-authd"), std::string::npos) << r.out;
  // Root reads the key and needs no socket.
  EXPECT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "1\n");
}

// ---------------------------------------------------------------------------
// auth/slurm on compute nodes: rotad serves the socket; jobs run as the user.

class NodeSocketUsersTest : public testing::TwoNodeClusterTest {
 protected:
  std::string Settings() const override { return "AuthInfo=socket=" + sockets_.Socket() + "\n"; }

  SocketDir sockets_;
  TestUser alice_{"rota", "n"};
};

TEST_F(NodeSocketUsersTest, AUsersJobSignedByRotadRunsAsThatUser) {
  ASSERT_TRUE(alice_.ok());
  ASSERT_TRUE(std::filesystem::exists(sockets_.Socket())) << cluster_->NodeLogs();
  CommandResult r = cluster_->Run(alice_.Line(
      cluster_->conf(), "sbatch --parsable --chdir=" + cluster_->work_dir() + " --wrap=\"id -u\""));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string id(Trim(r.out));
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << cluster_->Run("squeue -t all").out;
  EXPECT_EQ(Output(id), std::to_string(alice_.uid()) + "\n");
  struct stat st {};
  ASSERT_EQ(stat((cluster_->work_dir() + "/slurm-" + id + ".out").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, alice_.uid());
  EXPECT_EQ(cluster_->Run(alice_.Line(cluster_->conf(), "squeue -h -t all -o %u -j " + id)).out,
            alice_.name() + "\n");
}

// rotad's replay cache is lost when it restarts too: a request signed before
// the restart is refused after it.
TEST_F(NodeSocketUsersTest, RotadRefusesARequestSignedBeforeItsRestart) {
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(cluster_->conf(), diags, conf::ConfigScope::kSlurmConfOnly);
  ASSERT_TRUE(config.ok()) << diags.ToString();
  auto issuer = auth::MakeIssuer(api::AuthSettingsFor(**config));
  ASSERT_TRUE(issuer.ok());
  wire::SignalJobRequest req;
  req.set_job_id(999999);
  req.set_signal(SIGTERM);
  const std::string body = req.SerializeAsString();
  auto credential = (*issuer)->Issue(auth::RpcBindingBytes(api::kSignalJob, body));
  ASSERT_TRUE(credential.ok());
  rpc::RequestFrame frame;
  frame.method = api::kSignalJob;
  frame.request_id = 1;
  frame.credential = *credential;
  frame.body = body;
  const std::string captured = rpc::EncodeRequestFrame(frame);
  auto send = [&]() -> std::string {
    rpc::testing::RawConnection peer(cluster_->NodePort(1));
    EXPECT_TRUE(peer.Send(captured));
    return peer.ReadUntilClosed(std::chrono::seconds(2)).bytes;
  };
  // First sighting: not refused for its credential.
  EXPECT_EQ(send().find("credential"), std::string::npos);
  EXPECT_NE(send().find("replayed credential"), std::string::npos);
  cluster_->StopNode(1);
  ASSERT_TRUE(cluster_->StartNode(1)) << cluster_->NodeLogs();
  EXPECT_NE(send().find("stale credential"), std::string::npos) << cluster_->NodeLogs();
}

// ---------------------------------------------------------------------------
// auth/munge: munged vouches for each user.

class MungeUsersTest : public ::testing::Test {
 protected:
  static std::string MungeSocket() {
    return "/tmp/rota-munge-" + std::to_string(getpid()) + "/munge.socket";
  }
  MungeUsersTest() : ctld_("AuthType=auth/munge\nAuthInfo=socket=" + MungeSocket() + "\n") {}

  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "this test makes users and runs commands as them";
    if (access("/usr/sbin/munged", X_OK) != 0) {
      GTEST_SKIP() << "munge is not installed (scripts/install-deps.sh installs it)";
    }
    ASSERT_TRUE(alice_.ok() && bob_.ok()) << "useradd failed";
    const std::filesystem::path dir = std::filesystem::path(MungeSocket()).parent_path();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    chmod(dir.c_str(), 0755);
    auto munged = auth::testing::MungedProcess::Start(dir);
    ASSERT_TRUE(munged.ok()) << munged.status().ToString();
    munged_ = std::move(munged).value();
    ASSERT_EQ(chmod(ctld_.dir().path().c_str(), 0755), 0);
    ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "rotactld:\n" << ctld_.Log();
    ctld_.Kill(SIGTERM);
    munged_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(std::filesystem::path(MungeSocket()).parent_path(), ignored);
  }
  CommandResult As(const TestUser& user, const std::string& command_line) const {
    return ctld_.Run(user.Line(ctld_.conf(), command_line));
  }

  ControllerProcess ctld_;
  TestUser alice_{"rota", "ma"};
  TestUser bob_{"rota", "mb"};
  std::unique_ptr<auth::testing::MungedProcess> munged_;
};

TEST_F(MungeUsersTest, UsersSubmitListAndCancelTheirOwnJobs) {
  // munged's key is not theirs either.
  CommandResult peek =
      ctld_.Run("su -s /bin/sh " + alice_.name() + " -c 'cat " +
                std::filesystem::path(MungeSocket()).parent_path().string() + "/munge.key'");
  EXPECT_NE(peek.exit_code, 0);
  ASSERT_EQ(As(alice_, "sbatch --parsable --hold --wrap=true").out, "1\n");
  ASSERT_EQ(As(bob_, "sbatch --parsable --hold --wrap=true").out, "2\n");
  EXPECT_NE(As(bob_, "scontrol show job 1").out.find(UserIdField(alice_)), std::string::npos);
  EXPECT_NE(As(alice_, "scontrol show job 2").out.find(UserIdField(bob_)), std::string::npos);
  As(bob_, "scancel 1");
  EXPECT_EQ(ctld_.Run("squeue -h -t all -j 1 -o %T").out, "PENDING\n");
  EXPECT_EQ(As(alice_, "scancel 1").exit_code, 0);
  EXPECT_EQ(As(bob_, "scancel 2").exit_code, 0);
  EXPECT_EQ(ctld_.Run("squeue -h -t all -o '%i|%T'").out, "1|CANCELLED\n2|CANCELLED\n");
}

// ---------------------------------------------------------------------------
// A request captured before the controller restarts cannot be replayed after.

class ReplayAfterRestartTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(ctld_.Start()) << ctld_.Log(); }
  void TearDown() override {
    if (HasFailure()) std::cerr << "rotactld:\n" << ctld_.Log();
  }

  // What a real `sbatch --hold` sends: it is pointed at a listener of ours
  // (a copy of slurm.conf beside the same key, another port), which keeps
  // the request frame and answers nothing.
  std::string CaptureSbatchFrame() {
    rpc::testing::RawListener listener;
    std::string conf = testing::ReadFileText(ctld_.conf());
    const std::string port_line = "SlurmctldPort=" + std::to_string(ctld_.port()) + "\n";
    const size_t at = conf.find(port_line);
    EXPECT_NE(at, std::string::npos);
    conf.replace(at, port_line.size(), "SlurmctldPort=" + std::to_string(listener.port()) + "\n");
    const std::string capture_conf = ctld_.dir().Write("capture.conf", conf);
    std::thread sbatch([&] {
      std::system(("SLURM_CONF=" + capture_conf + " SLURM_CLIENT_TIMEOUT=2 " + BinDir() +
                   "/sbatch --hold -J captured --wrap=true >/dev/null 2>&1")
                      .c_str());
    });
    rpc::testing::RawConnection connection(listener.Accept());
    std::string frame;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    // Header: magic, version, method, request id, credential length, body length.
    auto length_at = [&](size_t offset) {
      uint32_t v = 0;
      for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<uint8_t>(frame[offset + i])} << (8 * i);
      return v;
    };
    while (std::chrono::steady_clock::now() < deadline) {
      if (frame.size() >= rpc::kRequestHeaderSize &&
          frame.size() >= rpc::kRequestHeaderSize + length_at(16) + length_at(20)) {
        break;
      }
      // Reads what came within a short while (the client waits for an answer).
      frame += connection.ReadUntilClosed(std::chrono::milliseconds(100)).bytes;
    }
    sbatch.join();  // It gives up after its 2 s timeout.
    return frame;
  }

  // The controller's answer to `frame`: its wire status and its body.
  std::pair<uint16_t, std::string> Send(const std::string& frame) {
    rpc::testing::RawConnection peer(ctld_.port());
    EXPECT_TRUE(peer.Send(frame));
    std::string answer = peer.ReadUntilClosed(std::chrono::seconds(1)).bytes;
    if (answer.size() < rpc::kResponseHeaderSize) return {0xffff, answer};
    const uint16_t status =
        static_cast<uint8_t>(answer[6]) | (uint16_t{static_cast<uint8_t>(answer[7])} << 8);
    return {status, answer.substr(rpc::kResponseHeaderSize)};
  }

  ControllerProcess ctld_;
};

TEST_F(ReplayAfterRestartTest, ACapturedSubmissionIsRefusedByTheRestartedController) {
  const std::string frame = CaptureSbatchFrame();
  ASSERT_GT(frame.size(), rpc::kRequestHeaderSize);
  // Delivered once, it makes a job; replayed at once, the replay cache refuses it.
  auto first = Send(frame);
  ASSERT_EQ(first.first, 0) << first.second;
  EXPECT_EQ(ctld_.Run("squeue -h -t all -o '%i|%j'").out, "1|captured\n");
  auto again = Send(frame);
  EXPECT_EQ(rpc::StatusCodeFromWire(again.first), StatusCode::kPermissionDenied);

  for (int signal : {SIGTERM, SIGKILL}) {
    ctld_.Kill(signal);
    ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
    auto replayed = Send(frame);
    EXPECT_EQ(rpc::StatusCodeFromWire(replayed.first), StatusCode::kPermissionDenied)
        << replayed.second;
    EXPECT_NE(replayed.second.find("stale credential"), std::string::npos) << replayed.second;
    EXPECT_EQ(ctld_.Run("squeue -h -t all -o '%i|%j'").out, "1|captured\n");
  }
  // A command right after a restart works.
  ctld_.Kill(SIGTERM);
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  EXPECT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "2\n");
}

// A request signed just before the restart and answered just after: the
// client signs it again and it goes through, once.
TEST_F(ReplayAfterRestartTest, ARequestSignedBeforeTheRestartIsSignedAgainAndSucceeds) {
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(ctld_.conf(), diags, conf::ConfigScope::kSlurmConfOnly);
  ASSERT_TRUE(config.ok()) << diags.ToString();
  auto issuer = auth::MakeIssuer(api::AuthSettingsFor(**config));
  ASSERT_TRUE(issuer.ok());
  wire::SubmitJobRequest req;
  req.mutable_spec()->set_name("around-restart");
  req.mutable_spec()->set_hold(true);
  req.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  const std::string body = req.SerializeAsString();
  const std::string bound = auth::RpcBindingBytes(api::kSubmitJob, body);

  // Its first credential is made before the restart, the second after.
  class FirstOldThenFresh final : public auth::CredentialIssuer {
   public:
    FirstOldThenFresh(auth::CredentialIssuer& real, std::string old)
        : real_(real), old_(std::move(old)) {}
    Result<std::string> Issue(std::string_view bound_bytes) override {
      ++issued;
      if (issued == 1) return old_;
      return real_.Issue(bound_bytes);
    }
    int issued = 0;

   private:
    auth::CredentialIssuer& real_;
    std::string old_;
  };
  auto old = (*issuer)->Issue(bound);
  ASSERT_TRUE(old.ok());
  FirstOldThenFresh signer(**issuer, *old);
  ctld_.Kill(SIGTERM);
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();

  rpc::RpcClient client;
  ASSERT_TRUE(client.Connect("127.0.0.1", ctld_.port(), std::chrono::seconds(5)).ok());
  Status sent = auth::SendSigned(signer, bound, [&](const std::string& credential) {
    auto reply = client.Call(api::kSubmitJob, credential, body, std::chrono::seconds(10));
    return reply.ok() ? reply->ToStatus() : reply.status();
  });
  EXPECT_TRUE(sent.ok()) << sent.ToString();
  EXPECT_EQ(signer.issued, 2);
  EXPECT_EQ(ctld_.Run("squeue -h -t all -o '%i|%j'").out, "1|around-restart\n");
}

}  // namespace
}  // namespace rota
