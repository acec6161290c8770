#pragma once

// Writing protobuf's wire format by hand, for the two places where building a
// message first would copy 100,000 shared records: job listings and snapshots.
// A repeated message field is just its elements, each as a length-delimited
// field, so records can be appended one by one straight from where they live.
// Reading it by hand, for the reverse: splitting a listing into its records
// without parsing them, and projecting a record to some of its fields.

#include <google/protobuf/message_lite.h>

#include <cstdint>
#include <string>
#include <string_view>

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

// One field of a message in wire format: its number, its whole encoding (tag
// included), the value of a varint field and the payload of a
// length-delimited one.
struct WireField {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  uint64_t varint = 0;
  std::string_view encoded;
  std::string_view payload;
};

inline bool ReadVarint(std::string_view bytes, size_t& pos, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && pos < bytes.size(); shift += 7) {
    const auto b = static_cast<uint8_t>(bytes[pos++]);
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

// Reads the field at `pos` of `bytes` and moves past it. False on malformed
// input and on groups (proto3 has none).
inline bool ReadWireField(std::string_view bytes, size_t& pos, WireField& field) {
  const size_t start = pos;
  uint64_t tag = 0;
  if (!ReadVarint(bytes, pos, tag)) return false;
  field.number = static_cast<uint32_t>(tag >> 3);
  field.wire_type = static_cast<uint32_t>(tag & 7);
  field.varint = 0;
  field.payload = {};
  switch (field.wire_type) {
    case 0:
      if (!ReadVarint(bytes, pos, field.varint)) return false;
      break;
    case 1:  // 64-bit
      if (bytes.size() - pos < 8) return false;
      pos += 8;
      break;
    case 2: {
      uint64_t length = 0;
      if (!ReadVarint(bytes, pos, length) || length > bytes.size() - pos) return false;
      field.payload = bytes.substr(pos, static_cast<size_t>(length));
      pos += static_cast<size_t>(length);
      break;
    }
    case 5:  // 32-bit
      if (bytes.size() - pos < 4) return false;
      pos += 4;
      break;
    default:
      return false;
  }
  field.encoded = bytes.substr(start, pos - start);
  return true;
}

}  // namespace rota::model
