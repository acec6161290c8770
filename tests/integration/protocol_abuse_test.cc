// Hostile protocol traffic against live daemons: a real rotactld, two rotad and
// rotadbd receive, with valid credentials, frames for every method id they
// serve with random and mutated bodies; frames that announce huge lengths; and
// a sender that dribbles a frame one byte per 100 ms. After each burst every
// daemon is alive, answers a normal request, and its log grew by a bounded
// amount (no line per bad message). The decoders behind this are fuzzed
// offline too (tests/fuzz/, `make fuzz`).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "api/dbd_methods.h"
#include "api/methods.h"
#include "auth/credential.h"
#include "auth/sha256.h"
#include "auth/slurm_key_auth.h"
#include "auth/slurm_key_file.h"
#include "rpc/frame.h"
#include "tests/fuzz/protocol_fuzz_targets.h"
#include "tests/integration/dbd_process.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using Clock = std::chrono::steady_clock;
using testing::DaemonProcess;
using testing::WaitUntil;

// Bodies per method and burst: random bytes, mutated valid bodies, cut ones.
constexpr int kBodiesPerMethod = 12;
// What a burst may add to a daemon's log. The daemons log refusals and
// malformed strings rate-limited, not one line per message: a burst sends
// ~150-250 frames to each daemon.
constexpr size_t kMaxLogGrowthBytes = 32 << 10;

// A TCP connection to 127.0.0.1:port that sends request frames and reads
// response frames; closed by the destructor.
class Peer {
 public:
  explicit Peer(uint16_t port) : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // A daemon that neither reads nor closes must fail the test, not hang it.
    timeval send_timeout{.tv_sec = 5, .tv_usec = 0};
    if (fd_ >= 0) setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
    if (fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~Peer() {
    if (fd_ >= 0) close(fd_);
  }
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  bool connected() const { return fd_ >= 0; }

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  enum class Outcome { kAnswered, kClosed, kTimedOut };
  // Waits for the next response frame (into *status) or the peer's close.
  Outcome Next(std::chrono::milliseconds timeout, uint16_t* status = nullptr) {
    const auto deadline = Clock::now() + timeout;
    while (frames_.empty()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return Outcome::kTimedOut;
      pollfd pfd{.fd = fd_, .events = POLLIN, .revents = 0};
      if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[16384];
      ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) return Outcome::kClosed;
      if (!decoder_.Feed(std::string_view(buffer, static_cast<size_t>(n)), &frames_).ok()) {
        return Outcome::kClosed;
      }
    }
    if (status != nullptr) *status = frames_.front().status;
    frames_.erase(frames_.begin());
    return Outcome::kAnswered;
  }

  // Whether the peer closes the connection within `timeout` (bytes it sends
  // first are read and dropped).
  bool ClosedWithin(std::chrono::milliseconds timeout) {
    for (;;) {
      Outcome o = Next(timeout);
      if (o == Outcome::kClosed) return true;
      if (o == Outcome::kTimedOut) return false;
    }
  }

 private:
  int fd_;
  rpc::ResponseDecoder decoder_{rpc::FrameLimits{}};
  std::vector<rpc::ResponseFrame> frames_;
};

uint64_t FileSize(const std::filesystem::path& path) {
  std::error_code error;
  uint64_t size = std::filesystem::file_size(path, error);
  return error ? 0 : size;
}

// Resident memory of `pid` in KiB (0 when unknown).
uint64_t RssKiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
  }
  return 0;
}

uint16_t PingOf(std::string_view daemon) {
  return daemon == "rotadbd" ? uint16_t{api::kDbdPing} : uint16_t{api::kPing};
}

// Byte edits of a valid body, as the suite's fuzz test makes them.
std::string Mutate(std::string body, std::mt19937& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = body.empty() ? 0 : rng() % body.size();
    switch (rng() % 4) {
      case 0:
        if (!body.empty()) body[at] = static_cast<char>(body[at] ^ (1 << (rng() % 8)));
        break;
      case 1:
        if (!body.empty()) body[at] = static_cast<char>(rng());
        break;
      case 2:
        body.erase(at, 1 + rng() % 8);
        break;
      default: {
        std::string bytes(1 + rng() % 8, '\0');
        for (char& c : bytes) c = static_cast<char>(rng());
        body.insert(std::min(at, body.size()), bytes);
      }
    }
  }
  return body;
}

class ProtocolAbuseTest : public testing::TwoNodeClusterTest {
 protected:
  std::string Settings() const override { return testing::AccountingConf(dbd_port_); }

  void SetUp() override {
    TwoNodeClusterTest::SetUp();
    if (HasFatalFailure()) return;
    dbd_ = std::make_unique<DaemonProcess>(
        std::vector<std::string>{testing::BinDir() + "/rotadbd", "-f", cluster_->conf(), "-s",
                                 (cluster_->dir().path() / "dbd").string()},
        DbdLog().string());
    ASSERT_TRUE(WaitUntil([&] { return testing::LoopbackAccepting(dbd_port_); })) << dbd_->Log();
    std::ifstream conf(cluster_->conf());
    for (std::string line; std::getline(conf, line);) {
      if (line.rfind("SlurmctldPort=", 0) == 0) ctld_port_ = std::stoi(line.substr(14));
    }
    ASSERT_NE(ctld_port_, 0);
    auto key = auth::LoadSlurmKey((cluster_->dir().path() / "slurm.key").string());
    ASSERT_TRUE(key.ok()) << key.status().message();
    key_ = *key;
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "rotadbd log:\n" << dbd_->Log();
    TwoNodeClusterTest::TearDown();
    dbd_.reset();
  }

  struct Target {
    const char* daemon;
    uint16_t port;
    std::filesystem::path log;
  };
  std::vector<Target> Targets() const {
    const auto dir = cluster_->dir().path();
    return {{"rotactld", ctld_port_, dir / "rotactld.log"},
            {"rotad", cluster_->NodePort(1), dir / "rotad-1.log"},
            {"rotadbd", dbd_port_, DbdLog()}};
  }
  std::filesystem::path DbdLog() const { return cluster_->dir().path() / "rotadbd.log"; }

  // A request frame for `method` with a fresh credential of `uid` bound to it.
  std::string Frame(uint16_t method, const std::string& body, uint32_t uid = 0) {
    Result<std::string> credential =
        auth::SignSlurmCredential(*key_, auth::Identity{uid, uid}, auth::SystemUnixMillis(),
                                  auth::Sha256(auth::RpcBindingBytes(method, body)));
    EXPECT_TRUE(credential.ok());
    return rpc::EncodeRequestFrame(
        rpc::RequestFrame{method, ++request_id_, credential.ok() ? *credential : "", body});
  }

  // The daemon on `port` answers a ping (its own method id) with OK.
  bool AnswersPing(const Target& t) {
    const uint16_t ping = PingOf(t.daemon);
    Peer peer(t.port);
    uint16_t status = 1;
    return peer.connected() && peer.Send(Frame(ping, "")) &&
           peer.Next(std::chrono::seconds(10), &status) == Peer::Outcome::kAnswered && status == 0;
  }

  // Every daemon alive, answering, the cluster's commands working, and each
  // log grown by at most kMaxLogGrowthBytes since `sizes` were taken.
  void ExpectHealthy(const std::vector<uint64_t>& sizes, const char* after) {
    SCOPED_TRACE(after);
    const std::vector<Target> targets = Targets();
    for (size_t i = 0; i < targets.size(); ++i) {
      EXPECT_TRUE(AnswersPing(targets[i])) << targets[i].daemon;
      const uint64_t grown = FileSize(targets[i].log) - sizes[i];
      EXPECT_LE(grown, kMaxLogGrowthBytes) << targets[i].daemon << " log grew by " << grown;
      std::cerr << after << ": " << targets[i].daemon << " log +" << grown << " bytes\n";
    }
    EXPECT_TRUE(ctld_->Running());
    EXPECT_TRUE(dbd_->Running());
    EXPECT_EQ(cluster_->Run("sinfo -h -o %t").exit_code, 0);
    EXPECT_EQ(cluster_->Run("squeue -h").exit_code, 0);
  }
  std::vector<uint64_t> LogSizes() const {
    std::vector<uint64_t> sizes;
    for (const Target& t : Targets()) sizes.push_back(FileSize(t.log));
    return sizes;
  }

  uint16_t dbd_port_ = testing::FreeLoopbackPort();
  uint16_t ctld_port_ = 0;
  std::shared_ptr<const auth::SlurmKey> key_;
  std::unique_ptr<DaemonProcess> dbd_;
  uint64_t request_id_ = 0;
};

TEST_F(ProtocolAbuseTest, RandomAndMutatedBodiesForEveryMethod) {
  const std::vector<uint64_t> sizes = LogSizes();
  std::mt19937 rng(28);
  int answered = 0, closed = 0;
  std::map<uint16_t, int> statuses;  // Wire status -> answers
  for (const Target& t : Targets()) {
    // Unknown method ids too: one below, between and above the known ones.
    std::vector<uint16_t> methods = {0, 9, 99, 0xffff};
    for (const fuzz::MethodMessage& m : fuzz::AllMethods()) {
      if (std::string_view(m.daemon) == t.daemon) methods.push_back(m.method);
    }
    for (uint16_t method : methods) {
      SCOPED_TRACE(std::string(t.daemon) + " method " + std::to_string(method));
      const std::string example = fuzz::ExampleRequestBody(method);
      auto peer = std::make_unique<Peer>(t.port);
      for (int i = 0; i < kBodiesPerMethod; ++i) {
        std::string body;
        if (i % 3 == 0) {
          body.resize(rng() % 200);
          for (char& c : body) c = static_cast<char>(rng());
        } else if (i % 3 == 1 || example.empty()) {
          body = Mutate(example, rng);
        } else {
          body = example.substr(0, rng() % example.size());
        }
        // Jobs submitted here may run: as nobody, never as root.
        const uint32_t uid = method == api::kSubmitJob ? 65534 : 0;
        if (!peer->connected()) peer = std::make_unique<Peer>(t.port);
        ASSERT_TRUE(peer->connected());
        ASSERT_TRUE(peer->Send(Frame(method, body, uid)));
        uint16_t status = 0;
        Peer::Outcome o = peer->Next(std::chrono::seconds(10), &status);
        ASSERT_NE(o, Peer::Outcome::kTimedOut) << "no answer to request " << i;
        if (o == Peer::Outcome::kAnswered) {
          ++answered;
          ++statuses[status];
        } else {
          ++closed;
          peer = std::make_unique<Peer>(t.port);
        }
      }
    }
  }
  std::cerr << "answered " << answered << ", connection closed " << closed << "; statuses:";
  for (const auto& [status, count] : statuses) std::cerr << " " << status << "x" << count;
  std::cerr << "\n";
  EXPECT_GT(answered, 0);
  ExpectHealthy(sizes, "random and mutated bodies");
}

TEST_F(ProtocolAbuseTest, HugeAnnouncedLengthsAreRefusedUnread) {
  const std::vector<uint64_t> sizes = LogSizes();
  std::vector<uint64_t> rss_before = {RssKiB(ctld_->pid()), RssKiB(dbd_->pid())};
  for (const Target& t : Targets()) {
    SCOPED_TRACE(t.daemon);
    const std::string_view daemon = t.daemon;
    const uint16_t method = daemon == "rotadbd" ? uint16_t{api::kDbdQueryJobs}
                            : daemon == "rotad" ? uint16_t{api::kSignalJob}
                                                : uint16_t{api::kListJobs};
    const std::string frame = Frame(method, fuzz::ExampleRequestBody(method));
    // Header fields (frame.h): credential length at 16, body length at 20.
    auto announce = [&](uint32_t credential_length, uint32_t body_length) {
      std::string header = frame.substr(0, rpc::kRequestHeaderSize);
      for (int b = 0; b < 4; ++b) {
        header[16 + b] = static_cast<char>(credential_length >> (8 * b));
        header[20 + b] = static_cast<char>(body_length >> (8 * b));
      }
      return header;
    };
    const uint32_t real_credential = static_cast<uint32_t>(frame.size() - rpc::kRequestHeaderSize -
                                                           fuzz::ExampleRequestBody(method).size());
    for (auto [credential_length, body_length] :
         std::vector<std::pair<uint32_t, uint32_t>>{{0xffffffff, 0xffffffff},
                                                    {real_credential, 0xffffffff},
                                                    {real_credential, (64u << 20) - 1},
                                                    {0xffffffff, 0}}) {
      for (int copy = 0; copy < 8; ++copy) {
        Peer peer(t.port);
        ASSERT_TRUE(peer.connected());
        std::string bytes = announce(credential_length, body_length);
        if (credential_length == real_credential) {
          bytes += frame.substr(rpc::kRequestHeaderSize, real_credential);
        }
        // A megabyte of the body it announced, then silence.
        bytes += std::string(1 << 20, 'x');
        peer.Send(bytes);
        // Refused at the header or the credential: closed long before any
        // deadline, without waiting for the rest.
        EXPECT_TRUE(peer.ClosedWithin(std::chrono::seconds(5)))
            << credential_length << "/" << body_length;
      }
    }
  }
  ExpectHealthy(sizes, "huge lengths");
  // 96 refused frames cost the daemons no lasting memory.
  EXPECT_LT(RssKiB(ctld_->pid()), rss_before[0] + 64 * 1024);
  EXPECT_LT(RssKiB(dbd_->pid()), rss_before[1] + 64 * 1024);
  std::cerr << "rss KiB rotactld " << rss_before[0] << " -> " << RssKiB(ctld_->pid())
            << ", rotadbd " << rss_before[1] << " -> " << RssKiB(dbd_->pid()) << "\n";
}

TEST_F(ProtocolAbuseTest, SlowSendersAreCutOffAndOthersServed) {
  const std::vector<uint64_t> sizes = LogSizes();
  const std::vector<Target> targets = Targets();
  std::vector<std::thread> senders;
  std::vector<int> sent(targets.size(), 0);
  std::vector<int> total(targets.size(), 0);
  std::vector<char> cut(targets.size(), 0);
  std::vector<double> cut_after(targets.size(), 0);
  const auto start = Clock::now();
  for (size_t i = 0; i < targets.size(); ++i) {
    const uint16_t ping = PingOf(targets[i].daemon);
    const std::string frame = Frame(ping, "");
    total[i] = static_cast<int>(frame.size());
    senders.emplace_back([&, i, frame] {
      Peer peer(targets[i].port);
      // One byte per 100 ms: a 121-byte ping takes 12 s, past the servers'
      // 10 s frame deadline, so the daemon closes the connection first.
      for (char c : frame) {
        if (!peer.Send(std::string_view(&c, 1))) break;
        ++sent[i];
        if (peer.Next(std::chrono::milliseconds(100)) == Peer::Outcome::kClosed) break;
      }
      cut[i] = sent[i] < total[i] || peer.ClosedWithin(std::chrono::seconds(1));
      cut_after[i] = std::chrono::duration<double>(Clock::now() - start).count();
    });
  }
  // Meanwhile everything else is served as usual.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (const Target& t : targets) EXPECT_TRUE(AnswersPing(t)) << t.daemon << " while slow";
  EXPECT_EQ(cluster_->Run("sinfo -h -o %t").exit_code, 0);
  for (std::thread& s : senders) s.join();
  for (size_t i = 0; i < targets.size(); ++i) {
    EXPECT_TRUE(cut[i]) << targets[i].daemon;
    EXPECT_LT(sent[i], total[i]) << targets[i].daemon << " read the whole slow frame";
    std::cerr << targets[i].daemon << ": slow sender cut after " << sent[i] << " of " << total[i]
              << " bytes, " << cut_after[i] << " s\n";
  }
  ExpectHealthy(sizes, "slow senders");
}

}  // namespace
}  // namespace rota
