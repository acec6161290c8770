#include "ctld/state/encoding.h"

#include <zlib.h>

#include <algorithm>

namespace rota::ctld {

uint32_t ExtendCrc32(uint32_t crc, std::string_view data) {
  uLong c = crc;
  // zlib takes a uInt length: feed very large inputs in pieces.
  while (!data.empty()) {
    size_t n = std::min<size_t>(data.size(), 1u << 30);
    c = crc32(c, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(n));
    data.remove_prefix(n);
  }
  return static_cast<uint32_t>(c);
}

}  // namespace rota::ctld
