// protobuf's own log lines (one per malformed string field decoded) go through
// the process logger, rate-limited, naming the peer that sent the request.

#include "api/protobuf_log.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>
#include <string>

#include "rota.pb.h"
#include "rpc/client.h"
#include "rpc/server.h"

namespace rota::api {
namespace {

size_t CountOf(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

TEST(ProtobufLogTest, MalformedStringsFromAPeerMakeOneLineNamingIt) {
  std::ostringstream captured;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "captured", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured)));
  RouteProtobufLogs();

  int parse_failures = 0;
  {
    auto server = rpc::RpcServer::Start(
        {}, [&](const rpc::RequestContext&, std::string body, rpc::Responder respond) {
          wire::UpdateNodeRequest request;
          if (!request.ParseFromString(body)) ++parse_failures;
          respond(0, "");
        });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    rpc::RpcClient client;
    ASSERT_TRUE(client.Connect("127.0.0.1", (*server)->port(), std::chrono::seconds(10)).ok());
    // Field 1 (nodes, a string) holding one byte that is not UTF-8.
    const std::string malformed("\x0a\x01\xff", 3);
    for (int i = 0; i < 50; ++i) {
      ASSERT_TRUE(client.Call(6, "", malformed, std::chrono::seconds(10)).ok()) << i;
    }
  }
  spdlog::default_logger()->flush();
  spdlog::set_default_logger(previous);

  EXPECT_EQ(parse_failures, 50);
  const std::string log = captured.str();
  EXPECT_EQ(CountOf(log, "invalid UTF-8"), 1u) << log;
  EXPECT_NE(log.find("decoding a request from 127.0.0.1:"), std::string::npos) << log;
}

}  // namespace
}  // namespace rota::api
