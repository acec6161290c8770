#pragma once

// A Backend for the handlers' unit tests: each daemon method answers what the
// test set (a message, or an error), and every request is kept for checks.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "conf/cluster_config.h"
#include "rest/rest_types.h"

namespace rota::rest {

class FakeBackend : public Backend {
 public:
  using Answer = std::function<Result<std::string>(const std::string& request_bytes)>;

  explicit FakeBackend(
      std::shared_ptr<const conf::ClusterConfig> config = std::make_shared<conf::ClusterConfig>())
      : config_(std::move(config)) {}

  // What `method` answers: `message` serialized.
  void AnswerController(uint16_t method, const google::protobuf::MessageLite& message) {
    std::string bytes = message.SerializeAsString();
    controller_[method] = [bytes](const std::string&) -> Result<std::string> { return bytes; };
  }
  void AnswerController(uint16_t method, Answer answer) { controller_[method] = std::move(answer); }
  void AnswerAccounting(uint16_t method, const google::protobuf::MessageLite& message) {
    std::string bytes = message.SerializeAsString();
    accounting_[method] = [bytes](const std::string&) -> Result<std::string> { return bytes; };
  }
  void AnswerAccounting(uint16_t method, Answer answer) { accounting_[method] = std::move(answer); }

  Result<std::string> CallController(uint16_t method,
                                     const google::protobuf::MessageLite& request) override {
    return Dispatch(controller_, controller_calls, method, request);
  }
  Result<std::string> CallAccounting(uint16_t method,
                                     const google::protobuf::MessageLite& request) override {
    return Dispatch(accounting_, accounting_calls, method, request);
  }
  uint32_t uid() const override { return uid_; }
  const std::string& user_name() const override { return user_; }
  const conf::ClusterConfig& config() const override { return *config_; }
  int64_t now() const override { return now_; }

  void set_user(uint32_t uid, std::string name) {
    uid_ = uid;
    user_ = std::move(name);
  }
  void set_now(int64_t now) { now_ = now; }

  struct Call {
    uint16_t method;
    std::string request_bytes;
  };
  std::vector<Call> controller_calls;
  std::vector<Call> accounting_calls;

 private:
  static Result<std::string> Dispatch(std::map<uint16_t, Answer>& answers, std::vector<Call>& calls,
                                      uint16_t method,
                                      const google::protobuf::MessageLite& request) {
    std::string bytes = request.SerializeAsString();
    calls.push_back({method, bytes});
    auto it = answers.find(method);
    if (it == answers.end()) {
      return Status(StatusCode::kUnavailable, "no answer set for method " + std::to_string(method));
    }
    return it->second(bytes);
  }

  std::shared_ptr<const conf::ClusterConfig> config_;
  std::map<uint16_t, Answer> controller_;
  std::map<uint16_t, Answer> accounting_;
  uint32_t uid_ = 1000;
  std::string user_ = "alice";
  int64_t now_ = 1'700'000'000;
};

}  // namespace rota::rest
