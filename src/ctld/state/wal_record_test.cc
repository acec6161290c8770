#include "ctld/state/wal_record.h"

#include <gtest/gtest.h>

#include "ctld/state/encoding.h"

namespace rota::ctld {
namespace {

TEST(WalRecordTest, LayoutIsLittleEndianLengthCrcSeqPayload) {
  std::string out;
  AppendRecord(0x0102030405060708, "abc", &out);
  ASSERT_EQ(out.size(), kRecordHeaderSize + 3);
  EXPECT_EQ(out.substr(0, 4), std::string("\x03\0\0\0", 4));
  EXPECT_EQ(out.substr(8, 8), "\x08\x07\x06\x05\x04\x03\x02\x01");
  EXPECT_EQ(out.substr(16), "abc");
  EXPECT_EQ(GetFixed32(out, 4), ExtendCrc32(0, out.substr(8)));
}

TEST(WalRecordTest, RoundTripsRecordsIncludingEmptyOnes) {
  std::string buffer;
  AppendRecord(1, "first", &buffer);
  AppendRecord(2, "", &buffer);
  AppendRecord(3, std::string(1000, 'x'), &buffer);
  DecodedLog log = DecodeRecords(buffer);
  EXPECT_TRUE(log.complete());
  EXPECT_EQ(log.valid_end, buffer.size());
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_EQ(log.records[0].seq, 1u);
  EXPECT_EQ(log.records[0].payload, "first");
  EXPECT_EQ(log.records[1].payload, "");
  EXPECT_EQ(log.records[1].offset, kRecordHeaderSize + 5);
  EXPECT_EQ(log.records[2].payload, std::string(1000, 'x'));
}

TEST(WalRecordTest, EmptyBufferIsComplete) {
  DecodedLog log = DecodeRecords("");
  EXPECT_TRUE(log.complete());
  EXPECT_EQ(log.valid_end, 0u);
}

TEST(WalRecordTest, StopsAtEveryTruncationOfTheLastRecord) {
  std::string buffer;
  AppendRecord(1, "keep", &buffer);
  size_t good = buffer.size();
  AppendRecord(2, "torn away", &buffer);
  for (size_t cut = good + 1; cut < buffer.size(); ++cut) {
    DecodedLog log = DecodeRecords(std::string_view(buffer).substr(0, cut));
    EXPECT_FALSE(log.complete()) << cut;
    EXPECT_EQ(log.valid_end, good) << cut;
    ASSERT_EQ(log.records.size(), 1u) << cut;
  }
}

TEST(WalRecordTest, StopsAtChecksumMismatch) {
  std::string buffer;
  AppendRecord(1, "keep", &buffer);
  size_t good = buffer.size();
  AppendRecord(2, "flipped", &buffer);
  AppendRecord(3, "after", &buffer);
  buffer[good + kRecordHeaderSize] ^= 0x20;
  DecodedLog log = DecodeRecords(buffer);
  EXPECT_EQ(log.stop_reason, "checksum mismatch");
  EXPECT_EQ(log.valid_end, good);
  EXPECT_EQ(log.records.size(), 1u);
}

TEST(WalRecordTest, ChecksumCoversTheSequenceNumber) {
  std::string buffer;
  AppendRecord(7, "payload", &buffer);
  buffer[8] = 8;  // Claim seq 8 with seq 7's checksum.
  EXPECT_FALSE(DecodeRecords(buffer).complete());
}

TEST(WalRecordTest, FindsAnIntactRecordAfterDamage) {
  std::string buffer;
  AppendRecord(5, "damaged", &buffer);
  size_t next = buffer.size();
  AppendRecord(6, "intact", &buffer);
  buffer[2] = 0x7f;  // Length now runs past the end.
  uint64_t found = 0;
  ASSERT_TRUE(FindIntactRecord(buffer, 1, 5, &found));
  EXPECT_EQ(found, next);
  EXPECT_FALSE(FindIntactRecord(buffer, next + 1, 5, &found));
}

TEST(WalRecordTest, FindsNothingInZerosOrOlderRecords) {
  uint64_t found = 0;
  EXPECT_FALSE(FindIntactRecord(std::string(4096, '\0'), 0, 1, &found));
  std::string buffer;
  AppendRecord(3, "old", &buffer);
  EXPECT_FALSE(FindIntactRecord(buffer, 0, 4, &found));
  EXPECT_TRUE(FindIntactRecord(buffer, 0, 3, &found));
}

}  // namespace
}  // namespace rota::ctld
