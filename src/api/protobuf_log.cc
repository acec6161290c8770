#include "api/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>
#include <spdlog/spdlog.h>

#include <string>

#include "common/log_rate_limit.h"
#include "rpc/server.h"

namespace rota::api {
namespace {

void LogProtobufLine(google::protobuf::LogLevel level, const char* filename, int line,
                     const std::string& message) {
  if (level == google::protobuf::LOGLEVEL_FATAL) {
    spdlog::critical("protobuf {}:{}: {}", filename, line, message);
    return;
  }
  // Part of the process logger: one limit for every line protobuf writes.
  static LogRateLimit limit(std::chrono::seconds(10));
  uint64_t suppressed = 0;
  if (!limit.ShouldLog(&suppressed)) return;
  const std::string_view peer = rpc::PeerBeingHandled();
  spdlog::warn("protobuf: {} (decoding a request from {}; {} more protobuf lines held back)",
               message, peer.empty() ? "no peer" : peer, suppressed);
}

}  // namespace

void RouteProtobufLogs() { google::protobuf::SetLogHandler(&LogProtobufLine); }

}  // namespace rota::api
