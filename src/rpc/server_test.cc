// RpcServer with RpcClient (and raw sockets that misbehave), over 127.0.0.1.

#include "rpc/server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "rpc/client.h"
#include "rpc/raw_peer_for_test.h"

namespace rota::rpc {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::RawConnection;

constexpr auto kGenerous = 10s;  // For answers that should come: sanitizers on two busy cores.

// Answers "<method>:<credential>:<body>" at once.
void EchoHandler(const RequestContext& context, std::string body, Responder respond) {
  respond(0, std::to_string(context.method) + ":" + context.credential + ":" + body);
}

std::unique_ptr<RpcServer> StartServer(RequestHandler handler, ServerOptions options = {}) {
  auto server = RpcServer::Start(std::move(options), std::move(handler));
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  if (!server.ok()) return nullptr;
  EXPECT_NE((*server)->port(), 0);
  return std::move(server).value();
}

std::unique_ptr<RpcClient> ConnectTo(const RpcServer& server) {
  auto client = std::make_unique<RpcClient>();
  Status status = client->Connect("127.0.0.1", server.port(), kGenerous);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return client;
}

// Keeps Responders so that tests decide when (or whether) requests are answered.
class HeldRequests {
 public:
  RequestHandler Handler() {
    return [this](const RequestContext& context, std::string body, Responder respond) {
      std::lock_guard lock(mutex_);
      held_.push_back({context.request_id, std::move(body), std::move(respond)});
      changed_.notify_all();
    };
  }

  // Waits until at least `n` requests are held; false on timeout.
  bool WaitFor(size_t n, std::chrono::milliseconds timeout = kGenerous) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return held_.size() >= n; });
  }

  size_t size() {
    std::lock_guard lock(mutex_);
    return held_.size();
  }

  struct Held {
    uint64_t request_id;
    std::string body;
    Responder respond;
  };
  Held Take(size_t index) {
    std::lock_guard lock(mutex_);
    return held_.at(index);
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Held> held_;
};

TEST(RpcServerTest, RoundTrip) {
  auto server = StartServer(EchoHandler);
  auto client = ConnectTo(*server);
  auto response = client->Call(42, "cred", "hello", kGenerous);
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 0);
  EXPECT_EQ(response->body, "42:cred:hello");
}

TEST(RpcServerTest, ErrorAnswersCarryCodeAndMessage) {
  auto server = StartServer([](const RequestContext&, std::string, Responder respond) {
    respond.Fail(Status(StatusCode::kPermissionDenied, "job 7 belongs to someone else"));
  });
  auto client = ConnectTo(*server);
  auto response = client->Call(1, "", "", kGenerous);
  ASSERT_TRUE(response.ok());
  EXPECT_FALSE(response->ok());
  EXPECT_EQ(response->ToStatus(),
            Status(StatusCode::kPermissionDenied, "job 7 belongs to someone else"));
  // The connection stays usable after an error answer.
  EXPECT_TRUE(client->Call(1, "", "", kGenerous).ok());
}

TEST(RpcServerTest, ContextNamesThePeer) {
  std::string peer;
  auto server = StartServer([&](const RequestContext& context, std::string, Responder respond) {
    peer = context.peer;
    respond(0, "");
  });
  auto client = ConnectTo(*server);
  ASSERT_TRUE(client->Call(1, "", "", kGenerous).ok());
  EXPECT_THAT(peer, HasSubstr("127.0.0.1:"));
}

TEST(RpcServerTest, ThousandSequentialCallsOnOneConnection) {
  auto server = StartServer(EchoHandler);
  auto client = ConnectTo(*server);
  for (int i = 0; i < 1000; ++i) {
    const std::string body = "call " + std::to_string(i);
    auto response = client->Call(static_cast<uint16_t>(i % 7), "c", body, kGenerous);
    ASSERT_TRUE(response.ok()) << i << ": " << response.status().ToString();
    ASSERT_EQ(response->body, std::to_string(i % 7) + ":c:" + body);
  }
}

TEST(RpcServerTest, LargeBodiesRoundTrip) {
  auto server = StartServer(EchoHandler);
  auto client = ConnectTo(*server);
  std::string body(3 << 20, 'x');
  for (size_t i = 0; i < body.size(); i += 4093) body[i] = static_cast<char>(i);
  auto response = client->Call(5, "", body, kGenerous);
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->body, "5::" + body);
}

TEST(RpcServerTest, EightConcurrentClients) {
  ServerOptions options;
  options.io_threads = 4;
  auto server = StartServer(EchoHandler, options);
  std::atomic<int> good{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      RpcClient client;
      if (!client.Connect("127.0.0.1", server->port(), kGenerous).ok()) return;
      for (int i = 0; i < 200; ++i) {
        const std::string body = std::to_string(c) + "/" + std::to_string(i);
        auto response = client.Call(3, "", body, kGenerous);
        if (response.ok() && response->body == "3::" + body) ++good;
      }
    });
  }
  for (auto& thread : clients) thread.join();
  EXPECT_EQ(good.load(), 8 * 200);
}

TEST(RpcServerTest, HandlerAnswersLaterFromAnotherThread) {
  // Like the controller: handlers enqueue, a state-loop thread answers.
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::pair<std::string, Responder>> queue;
  bool done = false;
  std::thread state_loop([&] {
    std::unique_lock lock(mutex);
    while (true) {
      ready.wait(lock, [&] { return done || !queue.empty(); });
      if (queue.empty()) return;
      auto [body, respond] = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      std::this_thread::sleep_for(20ms);  // "Group commit".
      respond(0, "committed " + body);
      lock.lock();
    }
  });
  auto server = StartServer([&](const RequestContext&, std::string body, Responder respond) {
    std::lock_guard lock(mutex);
    queue.emplace_back(std::move(body), std::move(respond));
    ready.notify_one();
  });
  auto client = ConnectTo(*server);
  for (int i = 0; i < 5; ++i) {
    auto response = client->Call(1, "", "job" + std::to_string(i), kGenerous);
    ASSERT_TRUE(response.ok()) << response.status().ToString();
    EXPECT_EQ(response->body, "committed job" + std::to_string(i));
  }
  {
    std::lock_guard lock(mutex);
    done = true;
    ready.notify_one();
  }
  state_loop.join();
}

TEST(RpcServerTest, PipelinedRequestsMayBeAnsweredOutOfOrder) {
  HeldRequests held;
  auto server = StartServer(held.Handler());
  auto client = ConnectTo(*server);
  auto first = client->Send(1, "", "first", kGenerous);
  auto second = client->Send(1, "", "second", kGenerous);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_TRUE(held.WaitFor(2));
  held.Take(1).respond(0, "answer to second");
  held.Take(0).respond(0, "answer to first");
  auto a = client->Receive(kGenerous);
  auto b = client->Receive(kGenerous);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->request_id, *second);
  EXPECT_EQ(a->body, "answer to second");
  EXPECT_EQ(b->request_id, *first);
  EXPECT_EQ(b->body, "answer to first");
}

TEST(RpcServerTest, OnlyTheFirstAnswerCounts) {
  auto server = StartServer([](const RequestContext&, std::string, Responder respond) {
    Responder copy = respond;
    respond(0, "one");
    copy(0, "two");
  });
  auto client = ConnectTo(*server);
  auto response = client->Call(1, "", "", kGenerous);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->body, "one");
  // No stray second frame: the next call gets its own answer.
  response = client->Call(1, "", "", kGenerous);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->body, "one");
}

TEST(RpcServerTest, DroppedResponderAnswersInternalError) {
  auto server = StartServer([](const RequestContext&, std::string, Responder) {});
  auto client = ConnectTo(*server);
  auto response = client->Call(9, "", "", kGenerous);
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->ToStatus().code(), StatusCode::kInternal);
  EXPECT_THAT(response->body, HasSubstr("without answering"));
}

TEST(RpcServerTest, ThrowingHandlerAnswersInternalErrorAndKeepsServing) {
  auto server = StartServer([](const RequestContext& context, std::string, Responder respond) {
    if (context.method == 13) throw std::runtime_error("unlucky");
    respond(0, "fine");
  });
  auto client = ConnectTo(*server);
  auto response = client->Call(13, "", "", kGenerous);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->ToStatus().code(), StatusCode::kInternal);
  response = client->Call(1, "", "", kGenerous);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->body, "fine");
}

TEST(RpcServerTest, HalfFrameDeadlineClosesOnlyTheStalledClient) {
  ServerOptions options;
  options.frame_deadline = 300ms;
  auto server = StartServer(EchoHandler, options);
  RawConnection stalled(server->port());
  const std::string frame =
      EncodeRequestFrame({.method = 1, .request_id = 1, .credential = "", .body = "abcdef"});
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(stalled.Send(std::string_view(frame).substr(0, 10)));

  // Others are served meanwhile.
  auto client = ConnectTo(*server);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(client->Call(1, "", "x", kGenerous).ok());

  auto result = stalled.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 250ms);
  // And still are afterwards, on the old connection and on new ones.
  EXPECT_TRUE(client->Call(1, "", "x", kGenerous).ok());
  EXPECT_TRUE(ConnectTo(*server)->Call(1, "", "x", kGenerous).ok());
}

TEST(RpcServerTest, DeadlineCoversTheWholeFrameNotEachRead) {
  // A client trickling one byte every 100 ms never completes its frame in time.
  ServerOptions options;
  options.frame_deadline = 400ms;
  auto server = StartServer(EchoHandler, options);
  RawConnection trickler(server->port());
  const std::string frame = EncodeRequestFrame(
      {.method = 1, .request_id = 1, .credential = "", .body = std::string(100, 'b')});
  const auto start = std::chrono::steady_clock::now();
  bool closed = false;
  for (char c : frame) {
    if (!trickler.Send(std::string_view(&c, 1))) {
      closed = true;
      break;
    }
    auto result = trickler.ReadUntilClosed(100ms);
    if (result.closed_by_peer) {
      closed = true;
      break;
    }
    if (std::chrono::steady_clock::now() - start > kGenerous) break;
  }
  EXPECT_TRUE(closed);
}

TEST(RpcServerTest, IdleConnectionsAreNotSubjectToTheFrameDeadline) {
  ServerOptions options;
  options.frame_deadline = 200ms;
  auto server = StartServer(EchoHandler, options);
  auto client = ConnectTo(*server);
  ASSERT_TRUE(client->Call(1, "", "x", kGenerous).ok());
  std::this_thread::sleep_for(600ms);
  auto response = client->Call(1, "", "y", kGenerous);
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->body, "1::y");
}

TEST(RpcServerTest, OversizedRequestIsAnsweredWithItsIdThenClosed) {
  ServerOptions options;
  options.limits.max_body_bytes = 1024;
  auto server = StartServer(EchoHandler, options);
  RawConnection raw(server->port());
  ASSERT_TRUE(raw.Send(EncodeRequestFrame(
      {.method = 1, .request_id = 77, .credential = "", .body = std::string(2048, 'b')})));
  auto result = raw.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  ResponseDecoder decoder;
  std::vector<ResponseFrame> frames;
  ASSERT_TRUE(decoder.Feed(result.bytes, &frames).ok());
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].request_id, 77u);
  EXPECT_EQ(StatusCodeFromWire(frames[0].status), StatusCode::kOutOfRange);
  EXPECT_THAT(frames[0].body, HasSubstr("2048"));
  // The server keeps serving others.
  EXPECT_TRUE(ConnectTo(*server)->Call(1, "", "x", kGenerous).ok());
}

TEST(RpcServerTest, ClientSeesOversizeRefusalAsAnAnswer) {
  ServerOptions options;
  options.limits.max_body_bytes = 1024;
  auto server = StartServer(EchoHandler, options);
  auto client = ConnectTo(*server);
  auto response = client->Call(1, "", std::string(2048, 'b'), kGenerous);
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->ToStatus().code(), StatusCode::kOutOfRange);
}

TEST(RpcServerTest, BadMagicIsAnsweredThenClosed) {
  auto server = StartServer(EchoHandler);
  RawConnection raw(server->port());
  ASSERT_TRUE(raw.Send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  auto result = raw.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  ResponseDecoder decoder;
  std::vector<ResponseFrame> frames;
  ASSERT_TRUE(decoder.Feed(result.bytes, &frames).ok());
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].request_id, 0u);
  EXPECT_THAT(frames[0].body, HasSubstr("magic"));
}

TEST(RpcServerTest, FutureProtocolVersionIsToldWhyThenClosed) {
  auto server = StartServer(EchoHandler);
  std::string frame =
      EncodeRequestFrame({.method = 1, .request_id = 5, .credential = "", .body = ""});
  frame[4] = 2;
  RawConnection raw(server->port());
  ASSERT_TRUE(raw.Send(frame));
  auto result = raw.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  EXPECT_THAT(result.bytes, HasSubstr("unsupported protocol version 2"));
}

TEST(RpcServerTest, GoodFramesBeforeAMalformedOneAreStillAnswered) {
  auto server = StartServer(EchoHandler);
  RawConnection raw(server->port());
  ASSERT_TRUE(
      raw.Send(EncodeRequestFrame({.method = 1, .request_id = 1, .credential = "", .body = "ok"}) +
               std::string(30, 'Z')));
  auto result = raw.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  ResponseDecoder decoder;
  std::vector<ResponseFrame> frames;
  ASSERT_TRUE(decoder.Feed(result.bytes, &frames).ok());
  ASSERT_EQ(frames.size(), 2u);
  // The refusal (id 0) may overtake the answer, which comes from the handler.
  if (frames[0].request_id != 1) std::swap(frames[0], frames[1]);
  EXPECT_EQ(frames[0].request_id, 1u);
  EXPECT_EQ(frames[0].body, "1::ok");
  EXPECT_EQ(frames[1].request_id, 0u);
  EXPECT_NE(frames[1].status, 0);
}

TEST(RpcServerTest, ClientTimesOutWhenTheServerNeverAnswers) {
  HeldRequests held;
  auto server = StartServer(held.Handler());
  auto client = ConnectTo(*server);
  const auto start = std::chrono::steady_clock::now();
  auto response = client->Call(1, "", "anyone there?", 300ms);
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(), HasSubstr("timed out"));
  EXPECT_GE(waited, 290ms);
  EXPECT_LT(waited, 5s);
  EXPECT_FALSE(client->connected());
}

TEST(RpcServerTest, InFlightLimitPausesReadingUntilAnswersAreWritten) {
  HeldRequests held;
  ServerOptions options;
  options.max_in_flight_per_connection = 4;
  auto server = StartServer(held.Handler(), options);
  auto client = ConnectTo(*server);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(client->Send(1, "", std::to_string(i), kGenerous).ok());
  ASSERT_TRUE(held.WaitFor(4));
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(held.size(), 4u);
  // Answering drains the backlog, four at a time.
  for (size_t answered = 0; answered < 10; ++answered) {
    ASSERT_TRUE(held.WaitFor(answered + 1)) << answered;
    held.Take(answered).respond(0, "done");
    auto frame = client->Receive(kGenerous);
    ASSERT_TRUE(frame.ok()) << frame.status().ToString();
  }
  EXPECT_EQ(held.size(), 10u);
}

// ---- Limits on what a peer without a credential can hold ----

// Polls `condition` until it holds; false after `timeout`.
template <typename Condition>
bool WaitUntil(Condition condition, std::chrono::milliseconds timeout = kGenerous) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

std::vector<ResponseFrame> DecodeResponses(const std::string& bytes) {
  ResponseDecoder decoder;
  std::vector<ResponseFrame> frames;
  EXPECT_TRUE(decoder.Feed(bytes, &frames).ok());
  return frames;
}

// Only the credential "good" passes; counts what it sees.
struct GoodCredentialScreen {
  std::atomic<int> screened{0};
  CredentialScreen Screen() {
    return [this](uint16_t, std::string_view credential, std::string_view) {
      ++screened;
      if (credential == "good") return Status::Ok();
      return Status(StatusCode::kPermissionDenied, "bad credential");
    };
  }
};

TEST(RpcServerLimitsTest, TotalConnectionCapRefusesExtrasWhileOthersAreServed) {
  ServerOptions options;
  options.max_connections = 4;
  auto server = StartServer(EchoHandler, options);
  EXPECT_EQ(server->max_connections(), 4u);
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(std::make_unique<RawConnection>(server->port()));
  ASSERT_TRUE(WaitUntil([&] { return server->open_connections() == 3; }));
  auto client = ConnectTo(*server);
  ASSERT_TRUE(client->Call(1, "", "x", kGenerous).ok());

  RawConnection extra(server->port());
  auto result = extra.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  std::vector<ResponseFrame> frames = DecodeResponses(result.bytes);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(StatusCodeFromWire(frames[0].status), StatusCode::kUnavailable);
  EXPECT_THAT(frames[0].body, HasSubstr("maximum of 4 connections"));
  EXPECT_EQ(server->refused_connections(), 1u);
  EXPECT_EQ(server->open_connections(), 4u);

  // The admitted client is still served, and a closed connection frees a place.
  EXPECT_TRUE(client->Call(1, "", "y", kGenerous).ok());
  idle.pop_back();
  ASSERT_TRUE(WaitUntil([&] { return server->open_connections() == 3; }));
  EXPECT_TRUE(ConnectTo(*server)->Call(1, "", "z", kGenerous).ok());
}

TEST(RpcServerLimitsTest, PerPeerCapRefusesOnlyThatPeer) {
  ServerOptions options;
  options.max_connections_per_peer = 3;
  auto server = StartServer(EchoHandler, options);
  const RawConnection::Options flooder{.source_address = "127.0.0.2"};
  std::vector<std::unique_ptr<RawConnection>> flood;
  for (int i = 0; i < 3; ++i) {
    flood.push_back(std::make_unique<RawConnection>(server->port(), flooder));
  }
  ASSERT_TRUE(WaitUntil([&] { return server->open_connections() == 3; }));

  RawConnection fourth(server->port(), flooder);
  auto result = fourth.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  EXPECT_THAT(result.bytes, HasSubstr("127.0.0.2 has its maximum of 3 connections"));
  EXPECT_EQ(server->refused_connections(), 1u);

  // Another address is served meanwhile.
  std::vector<std::unique_ptr<RpcClient>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(ConnectTo(*server));
    auto response = clients.back()->Call(1, "", "x", kGenerous);
    ASSERT_TRUE(response.ok()) << i << ": " << response.status().ToString();
    EXPECT_EQ(response->body, "1::x");
  }
  // A flooder's closed connection gives it a place back.
  flood.pop_back();
  ASSERT_TRUE(WaitUntil([&] { return server->open_connections() == 5; }));
  RawConnection again(server->port(), flooder);
  ASSERT_TRUE(again.Send(
      EncodeRequestFrame({.method = 1, .request_id = 3, .credential = "", .body = "back"})));
  std::string answer;
  ASSERT_TRUE(WaitUntil([&] {
    answer += again.ReadUntilClosed(50ms).bytes;
    return answer.size() >= kResponseHeaderSize + 7;
  }));
  EXPECT_THAT(answer, HasSubstr("1::back"));
}

TEST(RpcServerLimitsTest, SilentConnectionIsClosedAfterTheUnauthenticatedTimeout) {
  ServerOptions options;
  options.unauthenticated_timeout = 300ms;
  auto server = StartServer(EchoHandler, options);
  RawConnection silent(server->port());
  auto client = ConnectTo(*server);
  ASSERT_TRUE(client->Call(1, "", "x", kGenerous).ok());
  auto result = silent.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  // The client that sent a request is not subject to it.
  std::this_thread::sleep_for(400ms);
  EXPECT_TRUE(client->Call(1, "", "y", kGenerous).ok());
}

TEST(RpcServerLimitsTest, ConnectionWithoutAScreenedRequestIsClosedEvenIfItTalks) {
  // Sending refused-but-harmless bytes does not keep a connection open: only a
  // request whose credential passed the screen counts.
  GoodCredentialScreen screen;
  ServerOptions options;
  options.screen_credential = screen.Screen();
  options.unauthenticated_timeout = 300ms;
  options.frame_deadline = 10s;
  auto server = StartServer(EchoHandler, options);
  RawConnection raw(server->port());
  // Half a frame, then nothing: the frame deadline is far off.
  const std::string frame =
      EncodeRequestFrame({.method = 1, .request_id = 1, .credential = "", .body = "abc"});
  ASSERT_TRUE(raw.Send(std::string_view(frame).substr(0, 10)));
  auto result = raw.ReadUntilClosed(5s);
  EXPECT_TRUE(result.closed_by_peer);
}

TEST(RpcServerLimitsTest, IdleConnectionIsClosedAfterTheIdleTimeout) {
  ServerOptions options;
  options.idle_timeout = 300ms;
  auto server = StartServer(EchoHandler, options);
  RawConnection raw(server->port());
  ASSERT_TRUE(
      raw.Send(EncodeRequestFrame({.method = 1, .request_id = 9, .credential = "", .body = "hi"})));
  auto result = raw.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  std::vector<ResponseFrame> frames = DecodeResponses(result.bytes);
  ASSERT_EQ(frames.size(), 1u);  // Answered first, then closed for idleness.
  EXPECT_EQ(frames[0].body, "1::hi");
}

TEST(RpcServerLimitsTest, ClientSeesAnIdleCloseAsNotConnected) {
  // Callers reconnect when !connected(), so an idle close costs them nothing.
  ServerOptions options;
  options.idle_timeout = 200ms;
  auto server = StartServer(EchoHandler, options);
  auto client = ConnectTo(*server);
  ASSERT_TRUE(client->Call(1, "", "x", kGenerous).ok());
  EXPECT_TRUE(client->connected());
  ASSERT_TRUE(WaitUntil([&] { return server->open_connections() == 0; }));
  ASSERT_TRUE(WaitUntil([&] { return !client->connected(); }));
  ASSERT_TRUE(client->Connect("127.0.0.1", server->port(), kGenerous).ok());
  EXPECT_TRUE(client->Call(1, "", "y", kGenerous).ok());
}

TEST(RpcServerLimitsTest, AConnectionAwaitingItsAnswerIsNotIdle) {
  HeldRequests held;
  ServerOptions options;
  options.idle_timeout = 200ms;
  auto server = StartServer(held.Handler(), options);
  auto client = ConnectTo(*server);
  ASSERT_TRUE(client->Send(1, "", "slow", kGenerous).ok());
  ASSERT_TRUE(held.WaitFor(1));
  std::this_thread::sleep_for(700ms);
  held.Take(0).respond(0, "at last");
  auto frame = client->Receive(kGenerous);
  ASSERT_TRUE(frame.ok()) << frame.status().ToString();
  EXPECT_EQ(frame->body, "at last");
}

TEST(RpcServerLimitsTest, ForgedCredentialIsRefusedBeforeALargeBodyIsRead) {
  GoodCredentialScreen screen;
  std::atomic<int> handled{0};
  ServerOptions options;
  options.screen_credential = screen.Screen();
  auto server = StartServer(
      [&](const RequestContext& context, std::string body, Responder respond) {
        ++handled;
        EchoHandler(context, std::move(body), std::move(respond));
      },
      options);
  // A header announcing a 60 MiB body and a forged credential, and no body:
  // the answer comes without the server waiting for (or buffering) the body.
  std::string head =
      EncodeRequestFrame({.method = 2, .request_id = 31, .credential = "forged", .body = ""});
  const uint32_t announced = 60u << 20;
  for (int i = 0; i < 4; ++i) head[20 + i] = static_cast<char>((announced >> (8 * i)) & 0xff);
  RawConnection raw(server->port());
  ASSERT_TRUE(raw.Send(head));
  auto result = raw.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  std::vector<ResponseFrame> frames = DecodeResponses(result.bytes);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].request_id, 31u);
  EXPECT_EQ(StatusCodeFromWire(frames[0].status), StatusCode::kPermissionDenied);
  EXPECT_EQ(handled.load(), 0);
  EXPECT_EQ(screen.screened.load(), 1);

  // A genuine credential still carries a large body.
  auto client = ConnectTo(*server);
  std::string body(2 << 20, 'b');
  auto response = client->Call(2, "good", body, kGenerous);
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->body, "2:good:" + body);
}

TEST(RpcServerLimitsTest, PerMethodBodyLimitRefusesBeforeTheBodyIsRead) {
  ServerOptions options;
  options.body_limits.by_method[7] = 100;  // A listing: small requests.
  auto server = StartServer(EchoHandler, options);
  auto client = ConnectTo(*server);
  auto small = client->Call(7, "", std::string(100, 's'), kGenerous);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(small->status, 0);
  // Other methods keep the general limit.
  auto other = client->Call(8, "", std::string(5000, 'o'), kGenerous);
  ASSERT_TRUE(other.ok() && other->ok());

  RawConnection raw(server->port());
  std::string head =
      EncodeRequestFrame({.method = 7, .request_id = 12, .credential = "", .body = ""});
  const uint32_t announced = 101;
  for (int i = 0; i < 4; ++i) head[20 + i] = static_cast<char>((announced >> (8 * i)) & 0xff);
  ASSERT_TRUE(raw.Send(head));
  auto result = raw.ReadUntilClosed(kGenerous);
  EXPECT_TRUE(result.closed_by_peer);
  std::vector<ResponseFrame> frames = DecodeResponses(result.bytes);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].request_id, 12u);
  EXPECT_EQ(StatusCodeFromWire(frames[0].status), StatusCode::kOutOfRange);
  EXPECT_THAT(frames[0].body, HasSubstr("limit for that method is 100"));
}

TEST(RpcServerLimitsTest, ClientThatNeverReadsStopsBeingServedAtTheOutputByteCap) {
  // Every answer is 1 MiB; the client asks 200 times and reads nothing. Without
  // a byte cap the server would queue ~200 MiB for it.
  constexpr size_t kAnswer = 1 << 20;
  constexpr size_t kCap = 4 << 20;
  std::atomic<int> handled{0};
  ServerOptions options;
  options.max_queued_output_bytes_per_connection = kCap;
  auto server = StartServer(
      [&](const RequestContext&, std::string, Responder respond) {
        ++handled;
        respond(0, std::string(kAnswer, 'a'));
      },
      options);
  RawConnection raw(server->port(), {.receive_buffer_bytes = 4096});
  std::string requests;
  for (uint64_t id = 1; id <= 200; ++id) {
    AppendRequestFrame(3, id, "", "", &requests);
  }
  ASSERT_TRUE(raw.Send(requests));
  // Wait until the server stops handling (the count holds still for a while).
  int last = -1;
  ASSERT_TRUE(WaitUntil([&] {
    const int now = handled.load();
    if (now == last && now > 0) return true;
    last = now;
    std::this_thread::sleep_for(300ms);
    return false;
  }));
  // What the kernel's socket buffers absorb is handled too, but not 200.
  EXPECT_LT(handled.load(), 40);
  EXPECT_LE(server->queued_output_bytes(), kCap + kAnswer + kResponseHeaderSize);
  EXPECT_GT(server->queued_output_bytes(), 0u);
  // Others are served meanwhile.
  EXPECT_TRUE(ConnectTo(*server)->Call(1, "", "", kGenerous).ok());
}

TEST(RpcServerLimitsTest, ClientsThatNeverReadShareOneServerWideOutputBudget) {
  constexpr size_t kAnswer = 1 << 20;
  constexpr size_t kBudget = 4 << 20;
  std::atomic<int> handled{0};
  ServerOptions options;
  options.max_queued_output_bytes_per_connection = 64 << 20;
  options.max_queued_output_bytes = kBudget;
  auto server = StartServer(
      [&](const RequestContext& context, std::string, Responder respond) {
        ++handled;
        respond(0, std::string(context.method == 3 ? kAnswer : 1, 'a'));
      },
      options);
  std::string requests;
  for (uint64_t id = 1; id <= 100; ++id) AppendRequestFrame(3, id, "", "", &requests);
  std::vector<std::unique_ptr<RawConnection>> silent;
  for (const char* source : {"127.0.0.2", "127.0.0.3", "127.0.0.4"}) {
    silent.push_back(std::make_unique<RawConnection>(
        server->port(),
        RawConnection::Options{.source_address = source, .receive_buffer_bytes = 4096}));
    ASSERT_TRUE(silent.back()->Send(requests));
  }
  int last = -1;
  ASSERT_TRUE(WaitUntil([&] {
    const int now = handled.load();
    if (now == last && now > 0) return true;
    last = now;
    std::this_thread::sleep_for(300ms);
    return false;
  }));
  // Each connection may cross the budget by one answer; the kernel's socket
  // buffers hold some more, but not the 300 MiB asked for.
  EXPECT_LT(handled.load(), 100);
  EXPECT_LE(server->queued_output_bytes(), kBudget + 3 * (kAnswer + kResponseHeaderSize));
  // A client that reads its answers is still served.
  auto client = ConnectTo(*server);
  for (int i = 0; i < 5; ++i) {
    auto response = client->Call(1, "", "", kGenerous);
    ASSERT_TRUE(response.ok()) << i << ": " << response.status().ToString();
  }
}

TEST(RpcServerTest, StopClosesConnectionsAndLateAnswersAreHarmless) {
  HeldRequests held;
  auto server = StartServer(held.Handler());
  auto client = ConnectTo(*server);
  ASSERT_TRUE(client->Send(1, "", "x", kGenerous).ok());
  ASSERT_TRUE(held.WaitFor(1));
  server->Stop();
  auto frame = client->Receive(kGenerous);
  ASSERT_FALSE(frame.ok());
  EXPECT_EQ(frame.status().code(), StatusCode::kUnavailable);
  held.Take(0).respond(0, "too late");  // Must neither crash nor hang.
  server->Stop();                       // Idempotent.
  server.reset();
  held.Take(0).respond(0, "after destruction");
}

TEST(RpcServerTest, PortInUseIsUnavailable) {
  auto first = StartServer(EchoHandler);
  ServerOptions options;
  options.port = first->port();
  auto second = RpcServer::Start(options, EchoHandler);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr(std::to_string(first->port())));
}

TEST(RpcServerTest, NonNumericAddressIsRefused) {
  ServerOptions options;
  options.address = "controller.example";
  auto server = RpcServer::Start(options, EchoHandler);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rota::rpc
