// The credential socket: its server signs for the peer the kernel names, and
// MakeIssuer falls back to it when the key is not readable.
#include "auth/credential_socket.h"

#include <gmock/gmock.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "auth/credential_socket_server.h"
#include "auth/sha256.h"
#include "auth/slurm_key_auth.h"
#include "testing/temp_dir.h"

namespace rota::auth {
namespace {

using ::testing::HasSubstr;

constexpr uint32_t kNobody = 65534;

std::shared_ptr<const SlurmKey> TestKey() {
  return std::make_shared<const SlurmKey>(std::string(64, 'k'));
}

// A connected Unix socket to `path` that sends nothing until told; -1 if none.
int ConnectSilently(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Runs `child` in a forked process that has become uid/gid nobody and sends
// back what it returns through a pipe. Empty when the fork failed.
template <typename F>
std::string AsNobody(F child) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "";
  pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fds[0]);
    std::string out = "cannot become nobody";
    if (setgroups(0, nullptr) == 0 && setresgid(kNobody, kNobody, kNobody) == 0 &&
        setresuid(kNobody, kNobody, kNobody) == 0) {
      out = child();
    }
    (void)!write(pipe_fds[1], out.data(), out.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string out;
  char buffer[1024];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  close(pipe_fds[0]);
  waitpid(pid, nullptr, 0);
  return out;
}

class CredentialSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chmod(dir_.path().c_str(), 0755);  // nobody must reach the socket
    options_.path = (dir_.path() / "run" / "auth.socket").string();
  }
  void StartServer() {
    auto server = CredentialSocketServer::Start(key_, options_);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }
  Result<Identity> VerifyFresh(const std::string& credential, const std::string& bound) {
    SlurmKeyVerifier verifier(key_);
    return verifier.Verify(credential, bound, SystemUnixNow());
  }

  rota::testing::TempDir dir_;
  std::shared_ptr<const SlurmKey> key_ = TestKey();
  CredentialSocketServer::Options options_;
  std::unique_ptr<CredentialSocketServer> server_;
  const std::string bound_ = RpcBindingBytes(5, "a request");
};

TEST_F(CredentialSocketTest, SignsForTheConnectingProcess) {
  StartServer();
  struct stat st {};
  ASSERT_EQ(stat(options_.path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0666u);
  ASSERT_EQ(stat((dir_.path() / "run").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);

  CredentialSocketIssuer issuer(options_.path);
  auto credential = issuer.Issue(bound_);
  ASSERT_TRUE(credential.ok()) << credential.status().ToString();
  auto identity = VerifyFresh(*credential, bound_);
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->uid, geteuid());
  EXPECT_EQ(identity->gid, getegid());
  // Bound to the request it was asked for, like any other credential.
  EXPECT_FALSE(VerifyFresh(*credential, RpcBindingBytes(5, "another")).ok());
}

TEST_F(CredentialSocketTest, AnotherUserGetsTheirOwnIdentityNotTheServers) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  StartServer();
  std::string credential = AsNobody([&] {
    CredentialSocketIssuer issuer(options_.path);
    auto c = issuer.Issue(bound_);
    return c.ok() ? *c : c.status().ToString();
  });
  auto identity = VerifyFresh(credential, bound_);
  ASSERT_TRUE(identity.ok()) << credential;
  EXPECT_EQ(identity->uid, kNobody);
  EXPECT_EQ(identity->gid, kNobody);
}

TEST_F(CredentialSocketTest, MakeIssuerUsesTheSocketWhenTheKeyIsUnreadable) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  StartServer();
  std::string key_path = dir_.Write("slurm.key", std::string(64, 'k'));
  ASSERT_EQ(chmod(key_path.c_str(), 0600), 0);
  AuthSettings settings;
  settings.auth_type = "auth/slurm";
  settings.key_path = key_path;
  settings.credential_socket = options_.path;
  std::string credential = AsNobody([&] {
    auto issuer = MakeIssuer(settings);
    if (!issuer.ok()) return issuer.status().ToString();
    auto c = (*issuer)->Issue(bound_);
    return c.ok() ? *c : c.status().ToString();
  });
  auto identity = VerifyFresh(credential, bound_);
  ASSERT_TRUE(identity.ok()) << credential;
  EXPECT_EQ(identity->uid, kNobody);

  // Without a server the error names both the key and the socket.
  server_.reset();
  std::string error = AsNobody([&] {
    auto issuer = MakeIssuer(settings);
    if (!issuer.ok()) return issuer.status().ToString();
    auto c = (*issuer)->Issue(bound_);
    return c.ok() ? std::string("issued") : c.status().ToString();
  });
  EXPECT_THAT(error, HasSubstr("UNAVAILABLE"));
  EXPECT_THAT(error, HasSubstr(options_.path));
  EXPECT_THAT(error, HasSubstr("Permission denied"));
  EXPECT_THAT(error, HasSubstr("rota-authd"));
}

TEST_F(CredentialSocketTest, ARequestClaimingAnotherIdentityIsSignedForThePeer) {
  StartServer();
  // Whatever follows the request (a uid, a gid) is never read.
  int fd = ConnectSilently(options_.path);
  ASSERT_GE(fd, 0);
  std::string request(kCredentialSocketMagic);
  const Sha256Digest digest = Sha256(bound_);
  request.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  request += std::string("\0\0\0\0\0\0\0\0", 8);
  ASSERT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  std::string answer;
  char buffer[256];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, n);
  close(fd);
  ASSERT_EQ(answer.size(), 3 + kSlurmCredentialSize);
  ASSERT_EQ(answer[0], kCredentialSocketAnswerCredential);
  auto identity = VerifyFresh(answer.substr(3), bound_);
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->uid, geteuid());
}

TEST_F(CredentialSocketTest, SilentConnectionsAreBoundedPerUserAndTimedOut) {
  options_.max_connections_per_uid = 3;
  options_.request_timeout = std::chrono::milliseconds(300);
  StartServer();
  std::vector<int> silent;
  for (int i = 0; i < 3; ++i) silent.push_back(ConnectSilently(options_.path));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // accepted by now
  CredentialSocketIssuer issuer(options_.path);
  auto refused = issuer.Issue(bound_);
  ASSERT_FALSE(refused.ok());
  // The refusal is sent at once, possibly before the request arrives: the
  // kernel may then reset the connection before the answer is read.
  if (refused.status().code() == StatusCode::kPermissionDenied) {
    EXPECT_THAT(refused.status().message(), HasSubstr("too many connections"));
  }
  if (geteuid() == 0) {
    // Another user is not held up by them.
    std::string credential = AsNobody([&] {
      auto c = CredentialSocketIssuer(options_.path).Issue(bound_);
      return c.ok() ? *c : c.status().ToString();
    });
    auto identity = VerifyFresh(credential, bound_);
    ASSERT_TRUE(identity.ok()) << credential;
    EXPECT_EQ(identity->uid, kNobody);
  }
  // Once their time is up they are closed, and the user is served again.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_TRUE(issuer.Issue(bound_).ok());
  for (int fd : silent) close(fd);
}

TEST_F(CredentialSocketTest, LeavesALiveSocketAloneAndReplacesADeadOne) {
  StartServer();
  auto second = CredentialSocketServer::Start(key_, options_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(CredentialSocketIssuer(options_.path).Issue(bound_).ok());

  // A server killed without Stop leaves its socket file: a dead socket.
  {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string dead = (dir_.path() / "dead.socket").string();
    std::memcpy(address.sun_path, dead.data(), dead.size());
    ASSERT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    close(fd);
    options_.path = dead;
  }
  auto replacing = CredentialSocketServer::Start(key_, options_);
  ASSERT_TRUE(replacing.ok()) << replacing.status().ToString();
  EXPECT_TRUE(CredentialSocketIssuer(options_.path).Issue(bound_).ok());

  // Stop removes the socket file.
  (*replacing)->Stop();
  EXPECT_FALSE(std::filesystem::exists(options_.path));
}

TEST_F(CredentialSocketTest, RefusesToReplaceAFileThatIsNoSocket) {
  dir_.Write("run/auth.socket", "precious");
  auto server = CredentialSocketServer::Start(key_, options_);
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(server.status().message(), HasSubstr("not a socket"));
}

}  // namespace
}  // namespace rota::auth
