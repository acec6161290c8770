#pragma once

// Writing protobuf's wire format by hand, for the two places where building a
// message first would copy 100,000 shared records: job listings and snapshots.
// A repeated message field is just its elements, each as a length-delimited
// field, so records can be appended one by one straight from where they live.

#include <google/protobuf/message_lite.h>

#include <cstdint>
#include <string>

namespace rota::model {

inline void AppendVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Field `field` (wire type 0) holding `value`.
inline void AppendVarintField(std::string& out, int field, uint64_t value) {
  AppendVarint(out, static_cast<uint64_t>(field) << 3);
  AppendVarint(out, value);
}

// Field `field` (wire type 2) holding `message`.
inline void AppendMessageField(std::string& out, int field,
                               const google::protobuf::MessageLite& message) {
  AppendVarint(out, (static_cast<uint64_t>(field) << 3) | 2);
  size_t size = message.ByteSizeLong();
  AppendVarint(out, size);
  size_t at = out.size();
  out.resize(at + size);
  message.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(out.data() + at));
}

}  // namespace rota::model
