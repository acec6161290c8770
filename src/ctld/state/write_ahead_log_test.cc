#include "ctld/state/write_ahead_log.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ctld/state/state_test_util.h"
#include "ctld/state/wal_record.h"
#include "testing/temp_dir.h"

namespace rota::ctld {
namespace {

using ::rota::ctld::testing::CountingFileOps;
using ::rota::ctld::testing::FlipBit;
using ::rota::ctld::testing::Names;
using ::rota::ctld::testing::Payload;
using ::rota::ctld::testing::ReadBytes;
using ::rota::ctld::testing::WriteBytes;

class WriteAheadLogTest : public ::testing::Test {
 protected:
  std::unique_ptr<WriteAheadLog> Open(uint64_t after_seq = 0, uint64_t segment_bytes = 1 << 20) {
    Result<std::unique_ptr<WriteAheadLog>> log = WriteAheadLog::Open(
        &ops_, dir_.path().string(), after_seq, LogOptions{segment_bytes}, &replay_);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? std::move(*log) : nullptr;
  }
  Status OpenError(uint64_t after_seq = 0) {
    return WriteAheadLog::Open(&ops_, dir_.path().string(), after_seq, LogOptions{}, &replay_)
        .status();
  }
  // Appends records first..last, one batch each.
  void AppendEach(WriteAheadLog* log, uint64_t first, uint64_t last) {
    for (uint64_t i = first; i <= last; ++i) {
      Result<uint64_t> seq = log->AppendBatch({Payload(i)});
      ASSERT_TRUE(seq.ok()) << seq.status().ToString();
      ASSERT_EQ(*seq, i);
    }
  }
  std::filesystem::path File(const std::string& name) const { return dir_.path() / name; }

  rota::testing::TempDir dir_;
  CountingFileOps ops_;
  LogReplay replay_;
};

TEST_F(WriteAheadLogTest, RollsToANewSegmentWhenFull) {
  auto log = Open(0, /*segment_bytes=*/100);
  AppendEach(log.get(), 1, 7);  // 40 bytes each: a segment takes three.
  EXPECT_EQ(Names(dir_.path()), (std::vector<std::string>{"log.1", "log.4", "log.7"}));
  log.reset();
  log = Open();
  EXPECT_EQ(replay_.records.size(), 7u);
  EXPECT_EQ(replay_.last_seq, 7u);
  EXPECT_EQ(replay_.records[4], Payload(5));
}

TEST_F(WriteAheadLogTest, AppendsAfterRestartGoToANewSegment) {
  AppendEach(Open().get(), 1, 2);
  auto log = Open();
  AppendEach(log.get(), 3, 3);
  EXPECT_EQ(Names(dir_.path()), (std::vector<std::string>{"log.1", "log.3"}));
}

TEST_F(WriteAheadLogTest, MissingSegmentInTheMiddleIsCorruption) {
  AppendEach(Open(0, 1).get(), 1, 3);  // One record per segment.
  std::filesystem::remove(File("log.2"));
  Status status = OpenError();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find("records 2 are missing"), std::string::npos) << status.message();
}

TEST_F(WriteAheadLogTest, MissingRecordsTheSnapshotCoversAreFine) {
  AppendEach(Open(0, 1).get(), 1, 3);
  std::filesystem::remove(File("log.2"));
  Open(/*after_seq=*/2);
  EXPECT_TRUE(replay_.warnings.empty());
  EXPECT_EQ(replay_.records, std::vector<std::string>{Payload(3)});
}

TEST_F(WriteAheadLogTest, MissingRecordsRightAfterTheSnapshotAreAWarnedLoss) {
  AppendEach(Open(0, 1).get(), 1, 4);
  std::filesystem::remove(File("log.1"));
  std::filesystem::remove(File("log.2"));
  auto log = Open(/*after_seq=*/0);  // As after moving a corrupt snapshot away.
  ASSERT_EQ(replay_.warnings.size(), 1u);
  EXPECT_NE(replay_.warnings[0].find("log records 1..2 are missing"), std::string::npos)
      << replay_.warnings[0];
  EXPECT_EQ(replay_.records, (std::vector<std::string>{Payload(3), Payload(4)}));
  EXPECT_EQ(replay_.last_seq, 4u);
}

TEST_F(WriteAheadLogTest, SegmentNameMustMatchItsFirstRecord) {
  AppendEach(Open(0, 1).get(), 1, 2);
  std::filesystem::rename(File("log.2"), File("log.5"));
  Status status = OpenError();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find("log.5 at offset 0"), std::string::npos) << status.message();
}

TEST_F(WriteAheadLogTest, TornTailOfAnOlderSegmentIsCorruption) {
  AppendEach(Open(0, 1).get(), 1, 2);
  std::string bytes = ReadBytes(File("log.1"));
  WriteBytes(File("log.1"), bytes.substr(0, bytes.size() - 1));
  Status status = OpenError();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find("log.1 at offset 0"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("not the newest"), std::string::npos) << status.message();
}

TEST_F(WriteAheadLogTest, NewestSegmentWithNothingIntactIsRemoved) {
  AppendEach(Open(0, 1).get(), 1, 2);
  std::string bytes = ReadBytes(File("log.2"));
  WriteBytes(File("log.2"), bytes.substr(0, 5));
  auto log = Open();
  EXPECT_EQ(replay_.warnings.size(), 1u);
  EXPECT_EQ(replay_.last_seq, 1u);
  EXPECT_EQ(Names(dir_.path()), std::vector<std::string>{"log.1"});
  AppendEach(log.get(), 2, 2);
}

TEST_F(WriteAheadLogTest, EmptyNewestSegmentIsRemovedQuietly) {
  AppendEach(Open().get(), 1, 1);
  WriteBytes(File("log.2"), "");  // Created, then a crash before the write.
  auto log = Open();
  EXPECT_TRUE(replay_.warnings.empty());
  EXPECT_EQ(Names(dir_.path()), std::vector<std::string>{"log.1"});
  AppendEach(log.get(), 2, 2);
}

TEST_F(WriteAheadLogTest, FailedSyncStopsTheLogUntilReopened) {
  auto log = Open();
  AppendEach(log.get(), 1, 1);
  ops_.fail_data_sync = true;
  EXPECT_EQ(log->AppendBatch({Payload(2)}).status().code(), StatusCode::kIoError);
  ops_.fail_data_sync = false;
  Result<uint64_t> after = log->AppendBatch({Payload(3)});
  EXPECT_EQ(after.status().code(), StatusCode::kIoError);
  EXPECT_NE(after.status().message().find("restart"), std::string::npos);
  EXPECT_EQ(log->last_seq(), 1u);
  log.reset();
  // Record 2 reached the file though its sync "failed": unacknowledged
  // records may survive, acknowledged ones must.
  log = Open();
  EXPECT_EQ(replay_.records[0], Payload(1));
  AppendEach(log.get(), replay_.last_seq + 1, replay_.last_seq + 1);
}

// A full disk: the failed write is undone and the log goes on, with every
// record it acknowledged and none of the failed batch.
TEST_F(WriteAheadLogTest, FailedWriteIsUndoneAndTheLogGoesOn) {
  auto log = Open();
  AppendEach(log.get(), 1, 2);
  ops_.fail_writes = 1;
  Result<uint64_t> failed = log->AppendBatch({Payload(3), Payload(4)});
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(failed.status().message().find("nothing was recorded"), std::string::npos);
  EXPECT_EQ(log->last_seq(), 2u);
  AppendEach(log.get(), 3, 3);
  log.reset();
  log = Open();
  ASSERT_EQ(replay_.records.size(), 3u);
  for (uint64_t i = 1; i <= 3; ++i) EXPECT_EQ(replay_.records[i - 1], Payload(i));
  EXPECT_TRUE(replay_.warnings.empty());
}

// The same when the failed write was the first of a new segment.
TEST_F(WriteAheadLogTest, FailedFirstWriteOfASegmentLeavesNoSegment) {
  auto log = Open();
  ops_.fail_writes = 1;
  EXPECT_FALSE(log->AppendBatch({Payload(1)}).ok());
  EXPECT_TRUE(Names(dir_.path(), "log.").empty());
  AppendEach(log.get(), 1, 2);
  log.reset();
  log = Open();
  ASSERT_EQ(replay_.records.size(), 2u);
  EXPECT_EQ(replay_.records[1], Payload(2));
}

// The state's file system turned read-only between the controller's check
// and the write: nothing reached the file and nothing can be truncated. The
// append is refused (kUnavailable, the controller refuses changes until it
// can write) instead of stopping the log; in a segment's middle and as a new
// segment's first write.
TEST_F(WriteAheadLogTest, WriteRefusedByAReadOnlyFileSystemRecordsNothingAndTheLogGoesOn) {
  auto log = Open();
  AppendEach(log.get(), 1, 2);
  ops_.fail_truncates = true;
  ops_.refuse_writes = 1;
  Result<uint64_t> failed = log->AppendBatch({Payload(3)});
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable) << failed.status().ToString();
  EXPECT_NE(failed.status().message().find("Read-only file system"), std::string::npos);
  AppendEach(log.get(), 3, 3);
  log.reset();

  log = Open(0, /*segment_bytes=*/1);  // Every append starts a new segment
  ops_.refuse_writes = 1;
  EXPECT_EQ(log->AppendBatch({Payload(4)}).status().code(), StatusCode::kUnavailable);
  log.reset();  // Restarted while refusing: the empty segment goes
  log = Open(0, /*segment_bytes=*/1);
  ASSERT_EQ(replay_.records.size(), 3u);
  ops_.fail_truncates = false;
  AppendEach(log.get(), 4, 5);
  log.reset();
  log = Open();
  ASSERT_EQ(replay_.records.size(), 5u);
  for (uint64_t i = 1; i <= 5; ++i) EXPECT_EQ(replay_.records[i - 1], Payload(i));
}

// Out of descriptors when a new segment is due: the controller must be able
// to refuse and retry, not stop (kUnavailable, as for a full disk).
TEST_F(WriteAheadLogTest, SegmentThatCannotBeOpenedRecordsNothingAndTheLogGoesOn) {
  auto log = Open();
  ops_.fail_opens = 1;
  Result<uint64_t> failed = log->AppendBatch({Payload(1)});
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(failed.status().message().find("Too many open files"), std::string::npos);
  EXPECT_TRUE(Names(dir_.path(), "log.").empty());
  AppendEach(log.get(), 1, 2);
  log.reset();
  log = Open();
  ASSERT_EQ(replay_.records.size(), 2u);
  EXPECT_EQ(replay_.records[1], Payload(2));
}

TEST_F(WriteAheadLogTest, EmptyBatchDoesNoIo) {
  auto log = Open();
  ops_.Reset();
  Result<uint64_t> seq = log->AppendBatch({});
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, 0u);
  EXPECT_EQ(ops_.writes + ops_.data_syncs + ops_.dir_syncs, 0);
  EXPECT_TRUE(Names(dir_.path()).empty());
}

TEST_F(WriteAheadLogTest, CompactionDeletesOnlyWholeCoveredSegments) {
  auto log = Open(0, 1);
  AppendEach(log.get(), 1, 4);
  ASSERT_TRUE(log->AppendBatch({Payload(5), Payload(6)}).ok());  // log.5 holds 5..6.
  ASSERT_TRUE(log->CompactThrough(5).ok());
  EXPECT_EQ(Names(dir_.path()), std::vector<std::string>{"log.5"});
  AppendEach(log.get(), 7, 7);
  ASSERT_TRUE(log->CompactThrough(7).ok());
  EXPECT_TRUE(Names(dir_.path()).empty());
  AppendEach(log.get(), 8, 8);
  EXPECT_EQ(Names(dir_.path()), std::vector<std::string>{"log.8"});
}

TEST_F(WriteAheadLogTest, FlipInTheMiddleNamesFileAndOffset) {
  auto log = Open();
  ASSERT_TRUE(log->AppendBatch({Payload(1), Payload(2), Payload(3)}).ok());
  log.reset();
  size_t record_size = kRecordHeaderSize + Payload(1).size();
  FlipBit(File("log.1"), (record_size + kRecordHeaderSize + 3) * 8);
  Status status = OpenError();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find("log.1 at offset " + std::to_string(record_size)),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("intact record at offset " + std::to_string(2 * record_size)),
            std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace rota::ctld
