// RpcClient against fake servers (raw_peer_for_test.h) that misbehave.

#include "rpc/client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "rpc/raw_peer_for_test.h"

namespace rota::rpc {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::RawConnection;
using testing::RawListener;

constexpr auto kGenerous = 10s;

// Reads one request frame from the accepted socket `fd` (a fake server's side).
RequestFrame ReadRequest(int fd) {
  RequestDecoder decoder;
  std::vector<RequestFrame> frames;
  char buffer[4096];
  while (frames.empty()) {
    ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    EXPECT_TRUE(decoder.Feed(std::string_view(buffer, n), &frames).ok());
  }
  return frames.empty() ? RequestFrame{} : frames.front();
}

TEST(RpcClientTest, ConnectionRefusedIsUnavailable) {
  uint16_t closed_port;
  {
    RawListener listener;  // Take a free port, then give it back.
    closed_port = listener.port();
  }
  RpcClient client;
  Status status = client.Connect("127.0.0.1", closed_port, kGenerous);
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr(std::to_string(closed_port)));
  EXPECT_FALSE(client.connected());
}

TEST(RpcClientTest, CallWithoutConnectionIsUnavailable) {
  RpcClient client;
  auto response = client.Call(1, "", "", 1s);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
}

TEST(RpcClientTest, OversizedRequestIsRefusedBeforeSending) {
  RawListener listener;
  RpcClient client(FrameLimits{.max_body_bytes = 16, .max_credential_bytes = 4});
  ASSERT_TRUE(client.Connect("127.0.0.1", listener.port(), kGenerous).ok());
  EXPECT_EQ(client.Call(1, "", std::string(17, 'b'), 1s).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(client.Call(1, "12345", "", 1s).status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(client.connected());
}

TEST(RpcClientTest, SkipsStaleResponsesAndMatchesItsRequestId) {
  RawListener listener;
  std::thread server([&] {
    int fd = listener.Accept();
    RawConnection peer(fd);
    RequestFrame request = ReadRequest(fd);
    // A stale answer to some earlier request, then the real one.
    peer.Send(EncodeResponseFrame({.status = 0, .request_id = 999, .body = "stale"}) +
              EncodeResponseFrame({.status = 0, .request_id = request.request_id, .body = "real"}));
    peer.ReadUntilClosed(kGenerous);
  });
  RpcClient client;
  ASSERT_TRUE(client.Connect("127.0.0.1", listener.port(), kGenerous).ok());
  auto response = client.Call(1, "", "", kGenerous);
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->body, "real");
  client.Close();
  server.join();
}

TEST(RpcClientTest, ServerClosingMidCallIsUnavailable) {
  RawListener listener;
  std::thread server([&] {
    int fd = listener.Accept();
    RawConnection peer(fd);
    ReadRequest(fd);
    // Half a response, then hang up.
    peer.Send(EncodeResponseFrame({.status = 0, .request_id = 1, .body = "abcdef"}).substr(0, 12));
  });
  RpcClient client;
  ASSERT_TRUE(client.Connect("127.0.0.1", listener.port(), kGenerous).ok());
  auto response = client.Call(1, "", "", kGenerous);
  server.join();
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(), HasSubstr("closed"));
  EXPECT_FALSE(client.connected());
}

TEST(RpcClientTest, MalformedResponseClosesTheConnection) {
  RawListener listener;
  std::thread server([&] {
    int fd = listener.Accept();
    RawConnection peer(fd);
    ReadRequest(fd);
    peer.Send("HTTP/1.1 400 Bad Request\r\n\r\n");
    peer.ReadUntilClosed(kGenerous);
  });
  RpcClient client;
  ASSERT_TRUE(client.Connect("127.0.0.1", listener.port(), kGenerous).ok());
  auto response = client.Call(1, "", "", kGenerous);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(response.status().message(), HasSubstr("malformed response"));
  EXPECT_FALSE(client.connected());
  server.join();
}

TEST(RpcClientTest, ResponseOverTheClientLimitIsRefused) {
  RawListener listener;
  std::thread server([&] {
    int fd = listener.Accept();
    RawConnection peer(fd);
    RequestFrame request = ReadRequest(fd);
    peer.Send(EncodeResponseFrame(
        {.status = 0, .request_id = request.request_id, .body = std::string(100, 'x')}));
    peer.ReadUntilClosed(kGenerous);
  });
  RpcClient client(FrameLimits{.max_body_bytes = 64, .max_credential_bytes = 64});
  ASSERT_TRUE(client.Connect("127.0.0.1", listener.port(), kGenerous).ok());
  auto response = client.Call(1, "", "", kGenerous);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kOutOfRange);
  server.join();
}

TEST(RpcClientTest, RequestIdsIncreasePerConnection) {
  RawListener listener;
  std::vector<uint64_t> ids;
  std::thread server([&] {
    int fd = listener.Accept();
    RawConnection peer(fd);
    RequestDecoder decoder;
    std::vector<RequestFrame> frames;
    char buffer[4096];
    while (frames.size() < 3) {
      ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      ASSERT_TRUE(decoder.Feed(std::string_view(buffer, n), &frames).ok());
    }
    for (const RequestFrame& frame : frames) ids.push_back(frame.request_id);
  });
  RpcClient client;
  ASSERT_TRUE(client.Connect("127.0.0.1", listener.port(), kGenerous).ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.Send(1, "c", "b", kGenerous).ok());
  server.join();
  EXPECT_EQ(ids, (std::vector<uint64_t>{1, 2, 3}));
}

}  // namespace
}  // namespace rota::rpc
