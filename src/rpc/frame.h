#pragma once

// Rota's wire framing: how requests and responses are cut out of a TCP byte
// stream. Bodies are serialized protobuf messages, opaque at this layer.
//
// Request frame, little-endian:
//   'R' 'O' 'T' 'A' | u16 version (=1) | u16 method | u64 request id
//   | u32 credential length | u32 body length | credential | body
// Response frame:
//   'R' 'O' 'T' 'A' | u16 version (=1) | u16 status | u64 request id
//   | u32 body length | body
// status is 0 for success, else a rota::StatusCode number; the body is then a
// UTF-8 error message instead of a protobuf response.
//
// The decoders accept bytes in whatever pieces the socket delivers and check
// a frame's declared sizes against FrameLimits before allocating anything.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::rpc {

inline constexpr std::array<char, 4> kMagic = {'R', 'O', 'T', 'A'};
inline constexpr uint16_t kProtocolVersion = 1;

// Where one read from a socket lands before the decoder takes it. Left
// uninitialised: most messages are a few hundred bytes, and zero-filling the
// whole chunk would fault in every page of it on each new connection.
class ReadChunk {
 public:
  static constexpr size_t kBytes = 64 << 10;
  ReadChunk() : bytes_(std::make_unique_for_overwrite<char[]>(kBytes)) {}
  char* data() { return bytes_.get(); }
  static constexpr size_t size() { return kBytes; }

 private:
  std::unique_ptr<char[]> bytes_;
};
inline constexpr size_t kRequestHeaderSize = 24;
inline constexpr size_t kResponseHeaderSize = 20;

// The largest frame parts a peer will accept; larger ones are refused unread.
struct FrameLimits {
  uint32_t max_body_bytes = 64u << 20;
  uint32_t max_credential_bytes = 8u << 10;
};

struct RequestFrame {
  uint16_t method = 0;
  uint64_t request_id = 0;
  std::string credential;
  std::string body;
};

struct ResponseFrame {
  uint16_t status = 0;  // 0: OK; else a rota::StatusCode number.
  uint64_t request_id = 0;
  std::string body;  // Response message, or the error message when status != 0.
};

// Appends one frame to `out`.
// REQUIRES: credential and body each shorter than 4 GiB (callers check them
// against FrameLimits first, which are far smaller).
void AppendRequestFrame(uint16_t method, uint64_t request_id, std::string_view credential,
                        std::string_view body, std::string* out);
void AppendResponseFrame(uint16_t status, uint64_t request_id, std::string_view body,
                         std::string* out);
std::string EncodeRequestFrame(const RequestFrame& frame);
std::string EncodeResponseFrame(const ResponseFrame& frame);

// Wire status numbers <-> Status.
uint16_t WireStatus(StatusCode code);
// kOk for 0; numbers this build does not know map to kInternal.
StatusCode StatusCodeFromWire(uint16_t status);

// The state machine both decoders share: a fixed header, then payload parts
// of declared lengths. Use RequestDecoder or ResponseDecoder.
class FrameDecoder {
 public:
  virtual ~FrameDecoder() = default;
  FrameDecoder(const FrameDecoder&) = delete;
  FrameDecoder& operator=(const FrameDecoder&) = delete;

  // True while part of a frame has arrived but not all of it: the server's
  // read deadline runs only then, so idle persistent connections never expire.
  bool mid_frame() const { return header_filled_ > 0 || in_payload_; }
  // After a refusal: the request id of the refused frame when its header was
  // readable (sizes over the limits), so the peer can be told which request failed.
  std::optional<uint64_t> refused_request_id() const { return refused_request_id_; }

 protected:
  struct Part {
    std::string* target = nullptr;
    uint32_t length = 0;
  };

  FrameDecoder(FrameLimits limits, size_t header_size);

  // Feeds stream bytes through the state machine; returns the error that
  // poisoned the decoder, if any (every later call returns it again).
  Status Consume(std::string_view data);

  // Called with a complete header whose magic and version are good. Checks the
  // declared sizes against limits_ and returns the payload parts to fill (their
  // targets empty), or the refusal.
  virtual Status StartPayload(std::string_view header, std::vector<Part>* parts) = 0;
  // Called each time part `index` of `*parts` is complete (in order, once
  // each); may append further parts, or refuse the frame before they are read.
  virtual Status PartFilled(size_t index, std::vector<Part>* parts);
  // Called when every part is filled.
  virtual void FinishFrame() = 0;

  const FrameLimits limits_;
  std::optional<uint64_t> refused_request_id_;

 private:
  // Moves bytes from the front of `data` into the current parts; true when the
  // frame is complete. False with error_ set when PartFilled refused it.
  bool FillPayload(std::string_view* data);

  const size_t header_size_;
  std::array<char, kRequestHeaderSize> header_{};  // The larger of the two headers.
  size_t header_filled_ = 0;
  bool in_payload_ = false;
  std::vector<Part> parts_;
  size_t part_index_ = 0;
  Status error_;
};

// A request whose header and credential have arrived but whose body has not.
struct RequestHead {
  uint16_t method = 0;
  uint64_t request_id = 0;
  std::string_view credential;  // Valid only during the call it is passed to.
  uint32_t body_length = 0;     // As declared; not read yet.
};

// Decides, before a request's body is read, whether to read it at all (its
// size against a per-method limit, its credential); a refusal poisons the
// decoder like an oversized frame.
using RequestHeadCheck = std::function<Status(const RequestHead& head)>;

class RequestDecoder final : public FrameDecoder {
 public:
  explicit RequestDecoder(FrameLimits limits = {}, RequestHeadCheck check_head = nullptr);

  // Consumes `data` (any piece of the stream) and appends every frame it
  // completes to `out`. On a bad magic, an unsupported version or a declared
  // size over the limits, returns the error and refuses everything after it:
  // the stream cannot be resynchronised, so the connection must close. Frames
  // completed before the bad one are still appended.
  Status Feed(std::string_view data, std::vector<RequestFrame>* out);

 private:
  Status StartPayload(std::string_view header, std::vector<Part>* parts) override;
  // After the credential: runs check_head_, then asks for the body.
  Status PartFilled(size_t index, std::vector<Part>* parts) override;
  void FinishFrame() override;

  const RequestHeadCheck check_head_;
  RequestFrame current_;
  uint32_t current_body_length_ = 0;          // Declared by the current frame's header.
  std::vector<RequestFrame>* out_ = nullptr;  // Set for the duration of Feed.
};

class ResponseDecoder final : public FrameDecoder {
 public:
  explicit ResponseDecoder(FrameLimits limits = {});

  // As RequestDecoder::Feed.
  Status Feed(std::string_view data, std::vector<ResponseFrame>* out);

 private:
  Status StartPayload(std::string_view header, std::vector<Part>* parts) override;
  void FinishFrame() override;

  ResponseFrame current_;
  std::vector<ResponseFrame>* out_ = nullptr;  // Set for the duration of Feed.
};

}  // namespace rota::rpc
