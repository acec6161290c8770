#include "ctld/state/wal_record.h"

#include <cassert>

#include "ctld/state/encoding.h"

namespace rota::ctld {
namespace {

uint32_t Checksum(std::string_view seq_bytes, std::string_view payload) {
  return ExtendCrc32(ExtendCrc32(0, seq_bytes), payload);
}

struct Header {
  uint64_t length;
  uint32_t crc;
  uint64_t seq;
};

Header ReadHeader(std::string_view buffer, size_t at) {
  return Header{GetFixed32(buffer, at), GetFixed32(buffer, at + 4), GetFixed64(buffer, at + 8)};
}

bool ChecksumMatches(std::string_view buffer, size_t at, const Header& h) {
  return Checksum(buffer.substr(at + 8, 8), buffer.substr(at + kRecordHeaderSize, h.length)) ==
         h.crc;
}

}  // namespace

void AppendRecord(uint64_t seq, std::string_view payload, std::string* out) {
  assert(payload.size() <= kMaxRecordPayload);
  std::string seq_bytes;
  PutFixed64(seq, &seq_bytes);
  PutFixed32(static_cast<uint32_t>(payload.size()), out);
  PutFixed32(Checksum(seq_bytes, payload), out);
  out->append(seq_bytes);
  out->append(payload);
}

DecodedLog DecodeRecords(std::string_view buffer) {
  DecodedLog log;
  size_t at = 0;
  while (at < buffer.size()) {
    size_t left = buffer.size() - at;
    if (left < kRecordHeaderSize) {
      log.stop_reason = "incomplete record header (" + std::to_string(left) + " bytes)";
      break;
    }
    Header h = ReadHeader(buffer, at);
    if (h.length > left - kRecordHeaderSize) {
      log.stop_reason = "record of " + std::to_string(h.length) + " bytes runs past the end (" +
                        std::to_string(left - kRecordHeaderSize) + " bytes left)";
      break;
    }
    if (!ChecksumMatches(buffer, at, h)) {
      log.stop_reason = "checksum mismatch";
      break;
    }
    log.records.push_back({h.seq, buffer.substr(at + kRecordHeaderSize, h.length), at});
    at += kRecordHeaderSize + h.length;
  }
  log.valid_end = at;
  return log;
}

bool FindIntactRecord(std::string_view buffer, uint64_t from, uint64_t min_seq,
                      uint64_t* found_at) {
  for (uint64_t at = from; at + kRecordHeaderSize <= buffer.size(); ++at) {
    Header h = ReadHeader(buffer, at);
    uint64_t left = buffer.size() - at - kRecordHeaderSize;
    // Each later record takes at least a header, which bounds how far the
    // sequence can have advanced; the filter keeps checksum work rare.
    if (h.length > left || h.seq < min_seq || h.seq - min_seq > buffer.size() / kRecordHeaderSize) {
      continue;
    }
    if (ChecksumMatches(buffer, at, h)) {
      *found_at = at;
      return true;
    }
  }
  return false;
}

}  // namespace rota::ctld
