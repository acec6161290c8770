#pragma once

// rotad <-> rota-stepd messages over the job's unix socket: each message is a
// 4-byte big-endian length and a protobuf body. One request and one answer per
// connection, so that either side may die at any moment without leaving the
// other mid-conversation.

#include <chrono>
#include <string>

#include "common/status.h"
#include "step.pb.h"

namespace google::protobuf {
class MessageLite;
}

namespace rota::noded {

// Larger bodies are refused: the biggest is a step record with its script.
inline constexpr uint32_t kMaxStepMessageBytes = 64u << 20;

// Writes one framed message to `fd`.
Status WriteStepMessage(int fd, const google::protobuf::MessageLite& message);
// Reads one framed message from `fd`, waiting at most `timeout` for each part
// (a negative timeout waits for ever). kUnavailable when the peer closed.
Status ReadStepMessage(int fd, google::protobuf::MessageLite& message,
                       std::chrono::milliseconds timeout);

// A listening socket at `path` (an old one there is replaced), mode 0600:
// only root may talk to a step daemon. Returns the descriptor (close-on-exec).
Result<int> ListenStepSocket(const std::string& path);

// Connects to `path`, sends `request` and reads the answer, waiting at most
// `timeout` for it (negative: for ever). kUnavailable when nobody listens.
Result<wire::StepStatus> AskStepDaemon(const std::string& path, const wire::StepRequest& request,
                                       std::chrono::milliseconds timeout);

}  // namespace rota::noded
