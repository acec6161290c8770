#include "ctld/state/snapshot.h"

#include <gtest/gtest.h>

#include "ctld/state/encoding.h"
#include "ctld/state/state_test_util.h"
#include "testing/temp_dir.h"

namespace rota::ctld {
namespace {

using ::rota::ctld::testing::CountingFileOps;
using ::rota::ctld::testing::Names;

TEST(SnapshotTest, RoundTrips) {
  for (std::string payload : {std::string(), std::string("state"), std::string(100000, 's')}) {
    Result<std::string> decoded = DecodeSnapshot(EncodeSnapshot(42, payload), 42);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, payload);
  }
}

TEST(SnapshotTest, EveryFlippedBitIsCorruption) {
  std::string good = EncodeSnapshot(9, "some state");
  for (size_t bit = 0; bit < good.size() * 8; ++bit) {
    std::string bad = good;
    bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
    EXPECT_EQ(DecodeSnapshot(bad, 9).status().code(), StatusCode::kCorruption) << "bit " << bit;
  }
}

TEST(SnapshotTest, TruncationIsCorruption) {
  std::string good = EncodeSnapshot(9, "some state");
  for (size_t size = 0; size < good.size(); ++size) {
    EXPECT_EQ(DecodeSnapshot(good.substr(0, size), 9).status().code(), StatusCode::kCorruption)
        << size;
  }
  EXPECT_EQ(DecodeSnapshot(good + "x", 9).status().code(), StatusCode::kCorruption);
}

TEST(SnapshotTest, SeqMustMatchTheName) {
  Result<std::string> decoded = DecodeSnapshot(EncodeSnapshot(9, "x"), 10);
  EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
  EXPECT_NE(decoded.status().message().find("covers seq 9"), std::string::npos);
}

TEST(SnapshotTest, FutureVersionIsRefusedAsSuch) {
  std::string bytes = EncodeSnapshot(9, "x");
  std::string future;
  PutFixed32(kSnapshotVersion + 1, &future);
  bytes.replace(8, 4, future);
  // Re-seal so that only the version differs.
  std::string crc;
  PutFixed32(ExtendCrc32(ExtendCrc32(0, bytes.substr(0, 28)), bytes.substr(32)), &crc);
  bytes.replace(28, 4, crc);
  EXPECT_EQ(DecodeSnapshot(bytes, 9).status().code(), StatusCode::kFailedPrecondition);
}

TEST(SnapshotTest, ListsOnlyFinishedSnapshotsInOrder) {
  EXPECT_EQ(SnapshotSeqs({"log.1", "snapshot.20", "snapshot.3", "snapshot.30.tmp", "snapshot.x",
                          "snapshot."}),
            (std::vector<uint64_t>{3, 20}));
}

TEST(SnapshotTest, WritesAtomicallyAndDurably) {
  rota::testing::TempDir dir;
  CountingFileOps ops;
  ASSERT_TRUE(WriteSnapshotFile(&ops, dir.path().string(), 7, "state at 7").ok());
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"snapshot.7"});
  EXPECT_EQ(ops.syncs, 1);
  EXPECT_EQ(ops.dir_syncs, 1);
  Result<std::string> read = ReadSnapshotFile(&ops, dir.path().string(), 7);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, "state at 7");
}

}  // namespace
}  // namespace rota::ctld
