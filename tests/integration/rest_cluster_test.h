#pragma once
// The REST tests' cluster: rotactld, two rotad and rotadbd with
// AuthAltTypes=auth/jwt, and rotarestd on a loopback port and a Unix socket;
// a token for root from `scontrol token`.

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "common/strings.h"
#include "rest/openapi_check_for_test.h"
#include "tests/integration/accounted_cluster_test.h"
#include "tests/integration/http_client.h"

namespace rota::testing {

using Json = nlohmann::json;

class RestClusterTest : public AccountedClusterTest {
 protected:
  RestClusterTest() {
    jwt_key_ = (key_dir_.path() / "jwt_hs256.key").string();
    std::ofstream(jwt_key_) << "a key for the REST tests, 32+ bytes long";
    chmod(jwt_key_.c_str(), 0600);
    socket_path_ = (key_dir_.path() / "rest.socket").string();
    // Test users reach the node daemons' credential socket in here.
    chmod(key_dir_.path().c_str(), 0755);
  }

  std::string MoreSettings() const override {
    return "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=" + jwt_key_ +
           "\nAuthInfo=socket=" + (key_dir_.path() / "auth.socket").string() + "\n";
  }

  void SetUp() override {
    AccountedClusterTest::SetUp();
    if (HasFatalFailure()) return;
    rest_port_ = FreeLoopbackPort();
    rest_ = std::make_unique<DaemonProcess>(
        std::vector<std::string>{BinDir() + "/rotarestd", "-f", cluster_->conf(), "--max-body",
                                 "65536", "127.0.0.1:" + std::to_string(rest_port_),
                                 "unix:" + socket_path_},
        (cluster_->dir().path() / "rotarestd.log").string(),
        std::vector<std::string>{"SLURMRESTD_SECURITY=disable_user_check"});
    ASSERT_TRUE(WaitUntil([&] { return LoopbackAccepting(rest_port_); })) << rest_->Log();
    token_ = Token("");
    ASSERT_FALSE(token_.empty());
  }
  void TearDown() override {
    if (HasFailure() && rest_) std::cerr << "rotarestd log:\n" << rest_->Log();
    rest_.reset();
    AccountedClusterTest::TearDown();
  }

  // `scontrol token` with `args`: the token, or "" when refused.
  std::string Token(const std::string& args) {
    CommandResult r = cluster_->Run("scontrol token " + args);
    std::string out(Trim(r.out));
    if (r.exit_code != 0 || out.rfind("SLURM_JWT=", 0) != 0) return "";
    return out.substr(10);
  }

  std::map<std::string, std::string> As(const std::string& user, const std::string& token) {
    return {{"X-SLURM-USER-NAME", user}, {"X-SLURM-USER-TOKEN", token}};
  }
  HttpAnswer Get(const std::string& path) { return Call("GET", path); }
  HttpAnswer Call(const std::string& method, const std::string& path,
                  const std::string& body = "") {
    return HttpCall({rest_port_, ""}, method, path, As("root", token_), body);
  }

  // The document rotarestd serves, fetched once.
  const Json& Document() {
    if (document_.is_null()) {
      HttpAnswer a = HttpCall({rest_port_, ""}, "GET", "/openapi/v3");
      EXPECT_EQ(a.status, 200);
      document_ = a.Json();
    }
    return document_;
  }
  // `answer` fits the document's schema for `doc_path`.
  void ExpectFits(const std::string& doc_path, const std::string& method,
                  const HttpAnswer& answer) {
    std::vector<std::string> problems =
        rest::CheckAnswer(Document(), doc_path, method, answer.Json());
    EXPECT_TRUE(problems.empty()) << doc_path << ":\n"
                                  << Join(problems, "\n") << "\n"
                                  << answer.body;
  }

  std::string SubmitBody(const std::string& script, const Json& extra = Json::object()) {
    Json job = {{"name", "rest-job"},
                {"current_working_directory", cluster_->work_dir()},
                {"environment", {{"PATH", "/usr/bin:/bin"}, {"FROM_REST", "yes"}}},
                {"time_limit", 5}};
    for (const auto& [k, v] : extra.items()) job[k] = v;
    return Json{{"script", script}, {"job", job}}.dump();
  }

  testing::TempDir key_dir_;
  std::string jwt_key_;
  std::string socket_path_;
  uint16_t rest_port_ = 0;
  std::unique_ptr<DaemonProcess> rest_;
  std::string token_;
  Json document_;
};

}  // namespace rota::testing
