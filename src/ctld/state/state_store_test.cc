#include "ctld/state/state_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "ctld/state/snapshot.h"
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

class StateStoreTest : public ::testing::Test {
 protected:
  // The store over `dir` (default: the test's own), or null after a failed
  // expectation.
  std::unique_ptr<StateStore> Open(const std::filesystem::path& dir) {
    Result<std::unique_ptr<StateStore>> store =
        StateStore::Open(dir.string(), &recovered_, options_);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }
  std::unique_ptr<StateStore> Open() { return Open(state_dir()); }
  Status OpenError(const std::filesystem::path& dir) {
    return StateStore::Open(dir.string(), &recovered_, options_).status();
  }
  Status OpenError() { return OpenError(state_dir()); }

  std::filesystem::path state_dir() const { return tmp_.path() / "state"; }
  std::filesystem::path File(const std::string& name) const { return state_dir() / name; }

  static std::vector<std::string> Payloads(uint64_t first, uint64_t last) {
    std::vector<std::string> out;
    for (uint64_t i = first; i <= last; ++i) out.push_back(Payload(i));
    return out;
  }

  rota::testing::TempDir tmp_;
  CountingFileOps ops_;
  StateStoreOptions options_{&ops_};
  Recovered recovered_;
};

TEST_F(StateStoreTest, CreatesAMissingDirectoryPrivately) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  struct stat st;
  ASSERT_EQ(::stat(state_dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_FALSE(recovered_.snapshot.has_value());
  EXPECT_EQ(recovered_.snapshot_seq, 0u);
  EXPECT_TRUE(recovered_.records.empty());
  EXPECT_EQ(recovered_.last_seq, 0u);
  EXPECT_TRUE(recovered_.warnings.empty());
}

TEST_F(StateStoreTest, OpensAnExistingEmptyDirectory) {
  std::filesystem::create_directory(state_dir());
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(recovered_.last_seq, 0u);
  EXPECT_TRUE(Names(state_dir()).empty());
}

TEST_F(StateStoreTest, RoundTrip) {
  {
    auto store = Open();
    Result<uint64_t> last = store->Append(Payloads(1, 3));
    ASSERT_TRUE(last.ok()) << last.status().ToString();
    EXPECT_EQ(*last, 3u);
    ASSERT_EQ(*store->Append({""}), 4u);
  }
  auto store = Open();
  std::vector<std::string> expected = Payloads(1, 3);
  expected.push_back("");
  EXPECT_EQ(recovered_.records, expected);
  EXPECT_EQ(recovered_.last_seq, 4u);
  EXPECT_TRUE(recovered_.warnings.empty());
}

TEST_F(StateStoreTest, RestartContinuesTheSequence) {
  ASSERT_EQ(*Open()->Append(Payloads(1, 3)), 3u);
  {
    auto store = Open();
    EXPECT_EQ(store->last_seq(), 3u);
    ASSERT_EQ(*store->Append({Payload(4)}), 4u);
    // A snapshot covering everything leaves no log at all...
    ASSERT_TRUE(store->WriteSnapshot("state@4", 4).ok());
  }
  EXPECT_TRUE(Names(state_dir(), "log.").empty());
  // ...and the sequence still continues after it.
  auto store = Open();
  EXPECT_EQ(recovered_.last_seq, 4u);
  EXPECT_EQ(*store->Append({Payload(5)}), 5u);
}

// The controller writes big snapshots off its loop thread: records keep being
// appended meanwhile, and the snapshot only counts once adopted.
TEST_F(StateStoreTest, SnapshotWrittenAsideCountsOnceAdopted) {
  auto store = Open();
  ASSERT_EQ(*store->Append(Payloads(1, 3)), 3u);
  ASSERT_TRUE(StateStore::WriteSnapshotData(store->file_ops(), store->dir(), "state@3", 3).ok());
  ASSERT_EQ(*store->Append({Payload(4)}), 4u);
  EXPECT_EQ(store->snapshot_seq(), 0u);
  EXPECT_FALSE(store->AdoptSnapshot(9).ok());  // Beyond the log
  ASSERT_TRUE(store->AdoptSnapshot(3).ok());
  EXPECT_EQ(store->snapshot_seq(), 3u);
  store.reset();
  Open();
  ASSERT_TRUE(recovered_.snapshot.has_value());
  EXPECT_EQ(*recovered_.snapshot, "state@3");
  EXPECT_EQ(recovered_.records, std::vector<std::string>{Payload(4)});
}

TEST_F(StateStoreTest, GroupCommitWritesABatchWithOneSync) {
  auto store = Open();
  ops_.Reset();
  ASSERT_EQ(*store->Append(Payloads(1, 500)), 500u);
  EXPECT_EQ(ops_.writes, 1);
  EXPECT_EQ(ops_.data_syncs, 1);
  EXPECT_EQ(ops_.dir_syncs, 1);  // The new segment's name.
  ops_.Reset();
  ASSERT_EQ(*store->Append(Payloads(501, 1000)), 1000u);
  EXPECT_EQ(ops_.writes, 1);
  EXPECT_EQ(ops_.data_syncs, 1);
  EXPECT_EQ(ops_.dir_syncs, 0);
  EXPECT_EQ(ops_.syncs, 0);
}

// The log file after batches {1, 2} and {3}, all in log.1, and where record 3
// starts.
struct ThreeRecords {
  std::string bytes;
  size_t last_start;
};

ThreeRecords WriteThreeRecords(const std::filesystem::path& dir) {
  Recovered recovered;
  auto store = StateStore::Open(dir.string(), &recovered);
  EXPECT_TRUE(store.ok());
  EXPECT_TRUE((*store)->Append({Payload(1), Payload(2)}).ok());
  EXPECT_TRUE((*store)->Append({Payload(3)}).ok());
  std::string bytes = ReadBytes(dir / "log.1");
  return {bytes, 2 * (kRecordHeaderSize + Payload(1).size())};
}

TEST_F(StateStoreTest, TornTailAtEveryOffsetIsCutOffAndAppendsContinue) {
  ThreeRecords log = WriteThreeRecords(tmp_.path() / "original");
  for (size_t cut = log.last_start; cut < log.bytes.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    rota::testing::TempDir tmp;
    std::filesystem::path dir = tmp.path() / "state";
    std::filesystem::create_directory(dir);
    WriteBytes(dir / "log.1", log.bytes.substr(0, cut));
    {
      auto store = Open(dir);
      ASSERT_NE(store, nullptr);
      EXPECT_EQ(recovered_.records, Payloads(1, 2));
      EXPECT_EQ(recovered_.last_seq, 2u);
      EXPECT_EQ(recovered_.warnings.size(), cut == log.last_start ? 0u : 1u);
      EXPECT_EQ(ReadBytes(dir / "log.1").size(), log.last_start);
      ASSERT_EQ(*store->Append({"new 3"}), 3u);
    }
    Open(dir);
    EXPECT_EQ(recovered_.records, (std::vector<std::string>{Payload(1), Payload(2), "new 3"}));
    EXPECT_TRUE(recovered_.warnings.empty());
  }
}

TEST_F(StateStoreTest, FlippedBitInTheLastRecordIsCutOff) {
  ThreeRecords log = WriteThreeRecords(tmp_.path() / "original");
  for (size_t bit = log.last_start * 8; bit < log.bytes.size() * 8; ++bit) {
    SCOPED_TRACE("bit " + std::to_string(bit));
    rota::testing::TempDir tmp;
    std::filesystem::path dir = tmp.path() / "state";
    std::filesystem::create_directory(dir);
    WriteBytes(dir / "log.1", log.bytes);
    FlipBit(dir / "log.1", bit);
    auto store = Open(dir);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(recovered_.records, Payloads(1, 2));
    ASSERT_EQ(recovered_.warnings.size(), 1u);
    EXPECT_NE(recovered_.warnings[0].find("log.1 at offset " + std::to_string(log.last_start)),
              std::string::npos)
        << recovered_.warnings[0];
    EXPECT_EQ(*store->Append({"new 3"}), 3u);
  }
}

TEST_F(StateStoreTest, FlippedBitInAMiddleRecordIsCorruption) {
  ThreeRecords log = WriteThreeRecords(tmp_.path() / "original");
  size_t record_size = log.last_start / 2;
  for (size_t bit = record_size * 8; bit < log.last_start * 8; ++bit) {
    SCOPED_TRACE("bit " + std::to_string(bit));
    rota::testing::TempDir tmp;
    std::filesystem::path dir = tmp.path() / "state";
    std::filesystem::create_directory(dir);
    WriteBytes(dir / "log.1", log.bytes);
    FlipBit(dir / "log.1", bit);
    Status status = OpenError(dir);
    EXPECT_EQ(status.code(), StatusCode::kCorruption);
    EXPECT_NE(status.message().find("log.1 at offset " + std::to_string(record_size)),
              std::string::npos)
        << status.message();
    // Nothing was "repaired".
    EXPECT_EQ(ReadBytes(dir / "log.1").size(), log.bytes.size());
  }
}

TEST_F(StateStoreTest, CorruptSnapshotIsRefusedNamingTheFallback) {
  {
    auto store = Open();
    ASSERT_TRUE(store->Append(Payloads(1, 2)).ok());
    ASSERT_TRUE(store->WriteSnapshot("state@2", 2).ok());
    ASSERT_TRUE(store->Append(Payloads(3, 4)).ok());
    ASSERT_TRUE(store->WriteSnapshot("state@4", 4).ok());
    ASSERT_TRUE(store->Append(Payloads(5, 5)).ok());
  }
  std::vector<std::string> before = Names(state_dir());
  FlipBit(File("snapshot.4"), (kSnapshotHeaderSize + 2) * 8);  // In the payload.
  Status status = OpenError();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  const std::string& m = status.message();
  EXPECT_NE(m.find("refusing to start with a corrupt snapshot " + File("snapshot.4").string()),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("fall back to " + File("snapshot.2").string()), std::string::npos) << m;
  EXPECT_NE(m.find("records 3..4"), std::string::npos) << m;
  EXPECT_EQ(Names(state_dir()), before);

  // The operator accepts the loss: the older snapshot and the log after the
  // gap come back, with the gap called out.
  std::filesystem::rename(File("snapshot.4"), tmp_.path() / "snapshot.4.bad");
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(recovered_.snapshot, "state@2");
  EXPECT_EQ(recovered_.records, Payloads(5, 5));
  ASSERT_EQ(recovered_.warnings.size(), 1u);
  EXPECT_NE(recovered_.warnings[0].find("3..4 are missing"), std::string::npos);
}

TEST_F(StateStoreTest, CorruptOnlySnapshotIsRefused) {
  {
    auto store = Open();
    ASSERT_TRUE(store->Append(Payloads(1, 2)).ok());
    ASSERT_TRUE(store->WriteSnapshot("state@2", 2).ok());
  }
  for (const std::string& bad : {std::string("garbage"), std::string()}) {
    WriteBytes(File("snapshot.2"), bad);
    Status status = OpenError();
    EXPECT_EQ(status.code(), StatusCode::kCorruption);
    EXPECT_NE(status.message().find("snapshot.2"), std::string::npos);
    EXPECT_NE(status.message().find("no older snapshot"), std::string::npos) << status.message();
  }
}

TEST_F(StateStoreTest, SnapshotCompactsAndReplayReturnsOnlyNewerRecords) {
  options_.segment_bytes = 100;  // 40-byte records: three to a segment.
  {
    auto store = Open();
    for (uint64_t i = 1; i <= 10; ++i) ASSERT_TRUE(store->Append({Payload(i)}).ok());
    EXPECT_EQ(Names(state_dir(), "log."),
              (std::vector<std::string>{"log.1", "log.10", "log.4", "log.7"}));
    ASSERT_TRUE(store->WriteSnapshot("state@5", 5).ok());
    // log.4 (4..6) still holds record 6.
    EXPECT_EQ(Names(state_dir()),
              (std::vector<std::string>{"log.10", "log.4", "log.7", "snapshot.5"}));
    EXPECT_EQ(store->bytes_since_snapshot(), 0u);
    ASSERT_TRUE(store->Append({Payload(11)}).ok());
    EXPECT_EQ(store->bytes_since_snapshot(), kRecordHeaderSize + Payload(11).size());
  }
  auto store = Open();
  EXPECT_EQ(recovered_.snapshot, "state@5");
  EXPECT_EQ(recovered_.snapshot_seq, 5u);
  EXPECT_EQ(recovered_.records, Payloads(6, 11));
  EXPECT_EQ(recovered_.last_seq, 11u);
  EXPECT_EQ(store->bytes_since_snapshot(), 6 * (kRecordHeaderSize + Payload(6).size()));
}

TEST_F(StateStoreTest, KeepsTheNewestTwoSnapshots) {
  auto store = Open();
  for (uint64_t i = 1; i <= 4; ++i) {
    ASSERT_TRUE(store->Append({Payload(i)}).ok());
    ASSERT_TRUE(store->WriteSnapshot("state@" + std::to_string(i), i).ok());
  }
  EXPECT_EQ(Names(state_dir()), (std::vector<std::string>{"snapshot.3", "snapshot.4"}));
}

TEST_F(StateStoreTest, SnapshotMustCoverAKnownSeqNoOlderThanTheNewest) {
  auto store = Open();
  ASSERT_TRUE(store->Append(Payloads(1, 3)).ok());
  EXPECT_EQ(store->WriteSnapshot("x", 4).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(store->WriteSnapshot("x", 2).ok());
  EXPECT_EQ(store->WriteSnapshot("x", 1).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(store->snapshot_seq(), 2u);
}

TEST_F(StateStoreTest, RemovesAnUnfinishedSnapshot) {
  ASSERT_TRUE(Open()->Append(Payloads(1, 1)).ok());
  WriteBytes(File("snapshot.1.tmp"), "half a snap");
  Open();
  EXPECT_FALSE(recovered_.snapshot.has_value());
  EXPECT_EQ(Names(state_dir()), std::vector<std::string>{"log.1"});
}

// Records "P key value" / "D key" applied to a map; snapshots are the map.
using Model = std::map<std::string, std::string>;

void Apply(const std::string& record, Model* model) {
  std::istringstream in(record);
  std::string op, key, value;
  in >> op >> key >> value;
  if (op == "P") (*model)[key] = value;
  if (op == "D") model->erase(key);
}

std::string Serialize(const Model& model) {
  std::string out;
  for (const auto& [key, value] : model) out += "P " + key + " " + value + "\n";
  return out;
}

Model Rebuild(const Recovered& recovered) {
  Model model;
  std::istringstream snapshot(recovered.snapshot.value_or(""));
  for (std::string line; std::getline(snapshot, line);) Apply(line, &model);
  for (const std::string& record : recovered.records) Apply(record, &model);
  return model;
}

TEST_F(StateStoreTest, ReplayMatchesTheLiveStateAcrossSnapshotsAndRestarts) {
  options_.segment_bytes = 256;
  std::mt19937 rng(20240501);  // Fixed: failures must reproduce.
  auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::vector<Model> history{Model{}};  // history[seq]: the state after seq.
  auto store = Open();
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> batch;
    Model live = history.back();
    for (int i = 0, n = 1 + pick(8); i < n; ++i) {
      std::string key = "k" + std::to_string(pick(12));
      batch.push_back(pick(4) == 0 ? "D " + key : "P " + key + " v" + std::to_string(round));
      Apply(batch.back(), &live);
      history.push_back(live);
    }
    ASSERT_EQ(*store->Append(batch), history.size() - 1);
    if (pick(5) == 0) {
      uint64_t from = store->snapshot_seq(), to = store->last_seq();
      uint64_t covers = from + static_cast<uint64_t>(pick(static_cast<int>(to - from + 1)));
      ASSERT_TRUE(store->WriteSnapshot(Serialize(history[covers]), covers).ok());
    }
    if (pick(6) == 0) {
      store.reset();
      store = Open();
      ASSERT_NE(store, nullptr);
      ASSERT_TRUE(recovered_.warnings.empty());
      ASSERT_EQ(recovered_.last_seq, history.size() - 1);
      ASSERT_EQ(recovered_.records.size(), recovered_.last_seq - recovered_.snapshot_seq);
      ASSERT_EQ(Rebuild(recovered_), history.back()) << "round " << round;
    }
  }
  store.reset();
  Open();
  EXPECT_EQ(Rebuild(recovered_), history.back());
}

}  // namespace
}  // namespace rota::ctld
