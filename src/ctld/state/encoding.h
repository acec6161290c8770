#pragma once

// Helpers shared by the on-disk formats: fixed-width little-endian integers,
// written byte by byte so the files read the same on any host, and CRC-32.

#include <cstdint>
#include <string>
#include <string_view>

namespace rota::ctld {

inline void PutFixed32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline void PutFixed64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// REQUIRES: in.size() >= at + 4 (resp. 8).
inline uint32_t GetFixed32(std::string_view in, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in[at + i]);
  return v;
}

inline uint64_t GetFixed64(std::string_view in, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in[at + i]);
  return v;
}

// Extends a CRC-32 (zlib's, the IEEE polynomial) over `data`; start from 0.
uint32_t ExtendCrc32(uint32_t crc, std::string_view data);

}  // namespace rota::ctld
