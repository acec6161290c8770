#include "rpc/frame.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>

namespace rota::rpc {
namespace {

// Header field offsets shared by both frame kinds.
constexpr size_t kVersionOffset = 4;
constexpr size_t kMethodOrStatusOffset = 6;
constexpr size_t kRequestIdOffset = 8;
constexpr size_t kFirstLengthOffset = 16;   // Request: credential; response: body.
constexpr size_t kSecondLengthOffset = 20;  // Request: body.

// Payload parts are filled as bytes arrive; this much is reserved up front so a
// peer that declares a large frame and stalls cannot make us hold its full size.
constexpr size_t kMaxUpfrontReserve = 64 << 10;

void AppendLe(std::string* out, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t ReadLe(std::string_view in, size_t offset, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= uint64_t{static_cast<uint8_t>(in[offset + i])} << (8 * i);
  }
  return value;
}

void AppendHeaderStart(uint16_t method_or_status, uint64_t request_id, std::string* out) {
  out->append(kMagic.data(), kMagic.size());
  AppendLe(out, kProtocolVersion, 2);
  AppendLe(out, method_or_status, 2);
  AppendLe(out, request_id, 8);
}

uint32_t CheckedLength(std::string_view part) {
  assert(part.size() <= std::numeric_limits<uint32_t>::max());
  return static_cast<uint32_t>(part.size());
}

std::string Printable(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? std::string(1, c) : fmt::format("\\x{:02x}", u);
  }
  return out;
}

}  // namespace

void AppendRequestFrame(uint16_t method, uint64_t request_id, std::string_view credential,
                        std::string_view body, std::string* out) {
  out->reserve(out->size() + kRequestHeaderSize + credential.size() + body.size());
  AppendHeaderStart(method, request_id, out);
  AppendLe(out, CheckedLength(credential), 4);
  AppendLe(out, CheckedLength(body), 4);
  out->append(credential);
  out->append(body);
}

void AppendResponseFrame(uint16_t status, uint64_t request_id, std::string_view body,
                         std::string* out) {
  out->reserve(out->size() + kResponseHeaderSize + body.size());
  AppendHeaderStart(status, request_id, out);
  AppendLe(out, CheckedLength(body), 4);
  out->append(body);
}

std::string EncodeRequestFrame(const RequestFrame& frame) {
  std::string out;
  AppendRequestFrame(frame.method, frame.request_id, frame.credential, frame.body, &out);
  return out;
}

std::string EncodeResponseFrame(const ResponseFrame& frame) {
  std::string out;
  AppendResponseFrame(frame.status, frame.request_id, frame.body, &out);
  return out;
}

uint16_t WireStatus(StatusCode code) { return static_cast<uint16_t>(code); }

StatusCode StatusCodeFromWire(uint16_t status) {
  if (status > static_cast<uint16_t>(StatusCode::kInternal)) return StatusCode::kInternal;
  return static_cast<StatusCode>(status);
}

// ---- FrameDecoder ----

FrameDecoder::FrameDecoder(FrameLimits limits, size_t header_size)
    : limits_(limits), header_size_(header_size) {
  assert(header_size <= header_.size());
}

Status FrameDecoder::Consume(std::string_view data) {
  if (!error_.ok()) return error_;
  while (!data.empty() || in_payload_) {
    if (!in_payload_) {
      const size_t take = std::min(header_size_ - header_filled_, data.size());
      std::memcpy(header_.data() + header_filled_, data.data(), take);
      header_filled_ += take;
      data.remove_prefix(take);
      if (header_filled_ < header_size_) break;

      const std::string_view header(header_.data(), header_size_);
      if (header.substr(0, kMagic.size()) != std::string_view(kMagic.data(), kMagic.size())) {
        error_ =
            InvalidArgument(fmt::format("bad frame magic \"{}\" (expected \"ROTA\"): the peer "
                                        "does not speak the Rota protocol",
                                        Printable(header.substr(0, kMagic.size()))));
        return error_;
      }
      const auto version = static_cast<uint16_t>(ReadLe(header, kVersionOffset, 2));
      if (version != kProtocolVersion) {
        error_ = InvalidArgument(
            fmt::format("unsupported protocol version {}; this build speaks version {}", version,
                        kProtocolVersion));
        return error_;
      }
      parts_.clear();
      part_index_ = 0;
      error_ = StartPayload(header, &parts_);
      if (!error_.ok()) return error_;
      header_filled_ = 0;
      in_payload_ = true;
    }
    if (!FillPayload(&data)) {
      if (!error_.ok()) return error_;
      break;
    }
    in_payload_ = false;
    FinishFrame();
  }
  return Status::Ok();
}

bool FrameDecoder::FillPayload(std::string_view* data) {
  while (part_index_ < parts_.size()) {
    Part& part = parts_[part_index_];
    const size_t missing = part.length - part.target->size();
    if (missing == 0) {
      ++part_index_;
      // May grow parts_, so `part` is not used past this point.
      error_ = PartFilled(part_index_ - 1, &parts_);
      if (!error_.ok()) return false;
      continue;
    }
    if (data->empty()) return false;
    if (part.target->empty())
      part.target->reserve(std::min<size_t>(part.length, kMaxUpfrontReserve));
    const size_t take = std::min(missing, data->size());
    part.target->append(data->data(), take);
    data->remove_prefix(take);
  }
  return true;
}

Status FrameDecoder::PartFilled(size_t /*index*/, std::vector<Part>* /*parts*/) {
  return Status::Ok();
}

// ---- RequestDecoder ----

RequestDecoder::RequestDecoder(FrameLimits limits, RequestHeadCheck check_head)
    : FrameDecoder(limits, kRequestHeaderSize), check_head_(std::move(check_head)) {}

Status RequestDecoder::Feed(std::string_view data, std::vector<RequestFrame>* out) {
  out_ = out;
  Status status = Consume(data);
  out_ = nullptr;
  return status;
}

Status RequestDecoder::StartPayload(std::string_view header, std::vector<Part>* parts) {
  current_ = RequestFrame{};
  current_.method = static_cast<uint16_t>(ReadLe(header, kMethodOrStatusOffset, 2));
  current_.request_id = ReadLe(header, kRequestIdOffset, 8);
  const auto credential_length = static_cast<uint32_t>(ReadLe(header, kFirstLengthOffset, 4));
  const auto body_length = static_cast<uint32_t>(ReadLe(header, kSecondLengthOffset, 4));
  if (credential_length > limits_.max_credential_bytes) {
    refused_request_id_ = current_.request_id;
    return OutOfRange(fmt::format("request {} declares a credential of {} bytes; the limit is {}",
                                  current_.request_id, credential_length,
                                  limits_.max_credential_bytes));
  }
  if (body_length > limits_.max_body_bytes) {
    refused_request_id_ = current_.request_id;
    return OutOfRange(fmt::format("request {} declares a body of {} bytes; the limit is {}",
                                  current_.request_id, body_length, limits_.max_body_bytes));
  }
  // The body is asked for only once the credential is in (PartFilled), so that
  // check_head_ can refuse it unread.
  current_body_length_ = body_length;
  parts->push_back({&current_.credential, credential_length});
  return Status::Ok();
}

Status RequestDecoder::PartFilled(size_t index, std::vector<Part>* parts) {
  if (index != 0) return Status::Ok();
  if (check_head_) {
    Status verdict = check_head_(RequestHead{.method = current_.method,
                                             .request_id = current_.request_id,
                                             .credential = current_.credential,
                                             .body_length = current_body_length_});
    if (!verdict.ok()) {
      refused_request_id_ = current_.request_id;
      return verdict;
    }
  }
  parts->push_back({&current_.body, current_body_length_});
  return Status::Ok();
}

void RequestDecoder::FinishFrame() { out_->push_back(std::move(current_)); }

// ---- ResponseDecoder ----

ResponseDecoder::ResponseDecoder(FrameLimits limits) : FrameDecoder(limits, kResponseHeaderSize) {}

Status ResponseDecoder::Feed(std::string_view data, std::vector<ResponseFrame>* out) {
  out_ = out;
  Status status = Consume(data);
  out_ = nullptr;
  return status;
}

Status ResponseDecoder::StartPayload(std::string_view header, std::vector<Part>* parts) {
  current_ = ResponseFrame{};
  current_.status = static_cast<uint16_t>(ReadLe(header, kMethodOrStatusOffset, 2));
  current_.request_id = ReadLe(header, kRequestIdOffset, 8);
  const auto body_length = static_cast<uint32_t>(ReadLe(header, kFirstLengthOffset, 4));
  if (body_length > limits_.max_body_bytes) {
    refused_request_id_ = current_.request_id;
    return OutOfRange(fmt::format("response {} declares a body of {} bytes; the limit is {}",
                                  current_.request_id, body_length, limits_.max_body_bytes));
  }
  parts->push_back({&current_.body, body_length});
  return Status::Ok();
}

void ResponseDecoder::FinishFrame() { out_->push_back(std::move(current_)); }

}  // namespace rota::rpc
