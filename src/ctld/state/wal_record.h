#pragma once

// The write-ahead log's record format. Every record is
//
//   [u32 payload length][u32 CRC-32 of seq+payload][u64 sequence number][payload]
//
// all little-endian. The checksum covers the sequence number so that a record
// copied to the wrong place, or a stale one, is not taken for the one expected.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rota::ctld {

inline constexpr size_t kRecordHeaderSize = 16;
// The length field is 32 bits wide.
inline constexpr uint64_t kMaxRecordPayload = UINT32_MAX;

// Appends the encoding of one record to `out`.
// REQUIRES: payload.size() <= kMaxRecordPayload.
void AppendRecord(uint64_t seq, std::string_view payload, std::string* out);

struct DecodedRecord {
  uint64_t seq = 0;
  std::string_view payload;  // Points into the decoded buffer.
  uint64_t offset = 0;       // Where the record's header starts.
};

struct DecodedLog {
  std::vector<DecodedRecord> records;
  // The end of the last good record: where the next record would start.
  uint64_t valid_end = 0;
  // Why decoding stopped before the end of the buffer; empty when it did not.
  std::string stop_reason;

  bool complete() const { return stop_reason.empty(); }
};

// Walks `buffer` from the start and stops at the first record that is
// incomplete or fails its checksum. Knows nothing of which sequence numbers
// should come next: that is the log's business.
DecodedLog DecodeRecords(std::string_view buffer);

// Whether an intact record (a header whose sequence number is at least
// `min_seq` and plausible for the space left, with a matching checksum) starts
// anywhere in buffer[from, end). Tells damage in the middle of a log (good
// records follow) from a torn tail (nothing good follows). Sets `*found_at`.
bool FindIntactRecord(std::string_view buffer, uint64_t from, uint64_t min_seq, uint64_t* found_at);

}  // namespace rota::ctld
