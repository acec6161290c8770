#include "rest/http_server.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "tests/integration/http_client.h"

namespace rota::rest {
namespace {

using testing::HttpCall;

std::unique_ptr<HttpServer> EchoServer(std::vector<std::string> listen, size_t max_body = 1024) {
  HttpServerOptions options;
  options.listen = std::move(listen);
  options.max_body_bytes = max_body;
  auto server = HttpServer::Start(options, [](const HttpRequest& r) {
    HttpResponse out;
    out.content_type = "text/plain";
    out.body = r.method + " " + r.path + " q=" + (r.query.count("x") ? r.query.at("x") : "") +
               " h=" + r.Header("x-test") + " b=" + r.body +
               " peer=" + (r.peer_uid ? std::to_string(*r.peer_uid) : "none");
    out.headers["X-Echo"] = "1";
    return out;
  });
  EXPECT_TRUE(server.ok()) << server.status().message();
  return server.ok() ? std::move(server).value() : nullptr;
}

TEST(HttpServerTest, ServesTcpWithQueryHeadersAndBody) {
  auto server = EchoServer({"127.0.0.1:0"});
  ASSERT_NE(server, nullptr);
  const uint16_t port = server->ports()[0];
  ASSERT_NE(port, 0);
  testing::HttpAnswer a =
      HttpCall({port, ""}, "POST", "/a/b%20c?x=1%2B1", {{"X-Test", "yes"}}, "payload");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body, "POST /a/b c q=1+1 h=yes b=payload peer=none");
  EXPECT_EQ(a.headers["x-echo"], "1");
  EXPECT_EQ(a.headers["content-type"], "text/plain");
}

TEST(HttpServerTest, RefusesBodiesOverTheBound) {
  auto server = EchoServer({"127.0.0.1:0"}, 16);
  ASSERT_NE(server, nullptr);
  testing::HttpAnswer big =
      HttpCall({server->ports()[0], ""}, "POST", "/", {}, std::string(17, 'x'));
  EXPECT_EQ(big.status, 413);
  EXPECT_NE(big.body.find("larger than 16 bytes"), std::string::npos);
  EXPECT_EQ(HttpCall({server->ports()[0], ""}, "POST", "/", {}, std::string(16, 'x')).status, 200);
}

TEST(HttpServerTest, UnixSocketRequestsCarryThePeerUidAndTheSocketGoesAtTheEnd) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "rest.socket").string();
  {
    auto server = EchoServer({"unix:" + path});
    ASSERT_NE(server, nullptr);
    EXPECT_EQ(server->ports()[0], 0);
    testing::HttpAnswer a = HttpCall({0, path}, "GET", "/who");
    EXPECT_EQ(a.status, 200);
    EXPECT_EQ(a.body, "GET /who q= h= b= peer=" + std::to_string(geteuid()));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(HttpServerTest, BadAddressesAreNamed) {
  HttpServerOptions options;
  options.listen = {"nonsense"};
  auto server = HttpServer::Start(options, [](const HttpRequest&) { return HttpResponse(); });
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("nonsense"), std::string::npos);
  options.listen = {};
  EXPECT_FALSE(HttpServer::Start(options, [](const HttpRequest&) { return HttpResponse(); }).ok());
  std::string host;
  uint16_t port = 0;
  EXPECT_TRUE(SplitHostPort("[::1]:6820", &host, &port));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 6820);
  EXPECT_TRUE(SplitHostPort(":80", &host, &port));
  EXPECT_EQ(host, "");
  EXPECT_FALSE(SplitHostPort("host:99999", &host, &port));
}

}  // namespace
}  // namespace rota::rest
