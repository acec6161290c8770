#include "ctld/state/state_store.h"

#include <algorithm>

#include "common/log.h"
#include "ctld/state/snapshot.h"
#include "ctld/state/state_files.h"
#include "ctld/state/wal_record.h"

namespace rota::ctld {
namespace {

// How many snapshots stay on disk: the newest, and one to fall back to by hand.
constexpr size_t kSnapshotsKept = 2;

// The refusal for a corrupt newest snapshot, with what moving it away would
// cost: falling back to the older snapshot (or to none) replays the log from
// its oldest segment, so the records between the two are lost.
Status RefuseCorruptSnapshot(const std::string& dir, const std::vector<uint64_t>& snapshots,
                             const std::vector<std::string>& names, const Status& why) {
  uint64_t newest = snapshots.back();
  std::optional<uint64_t> older;
  if (snapshots.size() > 1) older = snapshots[snapshots.size() - 2];
  uint64_t fallback_seq = older.value_or(0);
  // Compaction after the newest snapshot leaves the log starting at or before
  // newest + 1; with no segment at all it holds nothing after `newest`.
  uint64_t log_from = newest + 1;
  for (const std::string& name : names) {
    if (auto seq = ParseSeqName(name, kSegmentPrefix)) log_from = std::min(log_from, *seq);
  }
  std::string loss = log_from <= fallback_seq + 1
                         ? "nothing (the log still holds every record after seq " +
                               std::to_string(fallback_seq) + ")"
                         : "the changes in records " + std::to_string(fallback_seq + 1) + ".." +
                               std::to_string(log_from - 1) + ", which the log no longer holds";
  std::string advice =
      older ? "move it away to fall back to " + JoinPath(dir, SnapshotFileName(*older)) +
                  " if you accept losing " + loss
            : "there is no older snapshot; move it away to start from the log alone if you "
              "accept losing " +
                  loss;
  return Status(StatusCode::kCorruption,
                "refusing to start with a corrupt snapshot " + why.message() + "; " + advice);
}

// A crash while writing a snapshot leaves its temp file behind; it never
// became the snapshot, so it holds nothing needed.
Status RemoveTempFiles(FileOps* ops, const std::string& dir,
                       const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (name.starts_with(kSnapshotPrefix) && name.ends_with(kTempSuffix)) {
      spdlog::info("state store: removing unfinished snapshot {}/{}", dir, name);
      ROTA_RETURN_IF_ERROR(ops->Remove(JoinPath(dir, name)));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<StateStore>> StateStore::Open(const std::string& dir, Recovered* out,
                                                     const StateStoreOptions& options) {
  std::unique_ptr<FileOps> owned;
  FileOps* ops = options.file_ops;
  if (ops == nullptr) {
    owned = std::make_unique<PosixFileOps>();
    ops = owned.get();
  }
  ROTA_RETURN_IF_ERROR(ops->CreateDir(dir));
  Result<std::vector<std::string>> names = ops->ListDir(dir);
  if (!names.ok()) return names.status();
  ROTA_RETURN_IF_ERROR(RemoveTempFiles(ops, dir, *names));

  Recovered recovered;
  std::vector<uint64_t> snapshots = SnapshotSeqs(*names);
  if (!snapshots.empty()) {
    Result<std::string> payload = ReadSnapshotFile(ops, dir, snapshots.back());
    if (!payload.ok()) {
      if (payload.status().code() != StatusCode::kCorruption) return payload.status();
      Status refusal = RefuseCorruptSnapshot(dir, snapshots, *names, payload.status());
      spdlog::error("state store: {}", refusal.message());
      return refusal;
    }
    recovered.snapshot = std::move(*payload);
    recovered.snapshot_seq = snapshots.back();
  }

  std::unique_ptr<StateStore> store(new StateStore(dir, std::move(owned), ops));
  LogReplay replay;
  Result<std::unique_ptr<WriteAheadLog>> wal = WriteAheadLog::Open(
      ops, dir, recovered.snapshot_seq, LogOptions{options.segment_bytes}, &replay);
  if (!wal.ok()) return wal.status();
  store->wal_ = std::move(*wal);
  store->snapshot_seq_ = recovered.snapshot_seq;
  store->bytes_since_snapshot_ = replay.bytes;

  recovered.records = std::move(replay.records);
  recovered.last_seq = replay.last_seq;
  recovered.warnings = std::move(replay.warnings);
  *out = std::move(recovered);
  spdlog::info("state store: opened {}: snapshot at seq {}, {} log records, last seq {}", dir,
               out->snapshot_seq, out->records.size(), out->last_seq);
  return store;
}

Result<uint64_t> StateStore::Append(const std::vector<std::string>& payloads) {
  Result<uint64_t> last = wal_->AppendBatch(payloads);
  if (last.ok()) {
    for (const std::string& p : payloads) bytes_since_snapshot_ += kRecordHeaderSize + p.size();
  }
  return last;
}

Status StateStore::WriteSnapshot(std::string_view payload, uint64_t covers_seq) {
  if (covers_seq > last_seq()) {
    return FailedPrecondition("a snapshot cannot cover seq " + std::to_string(covers_seq) +
                              ": the log ends at seq " + std::to_string(last_seq()));
  }
  if (covers_seq < snapshot_seq_) {
    return FailedPrecondition("a snapshot covering seq " + std::to_string(covers_seq) +
                              " would be older than the newest one, at seq " +
                              std::to_string(snapshot_seq_));
  }
  ROTA_RETURN_IF_ERROR(WriteSnapshotData(ops_, dir_, payload, covers_seq));
  return AdoptSnapshot(covers_seq);
}

Status StateStore::WriteSnapshotData(FileOps* ops, const std::string& dir, std::string_view payload,
                                     uint64_t covers_seq) {
  return WriteSnapshotFile(ops, dir, covers_seq, payload);
}

Status StateStore::AdoptSnapshot(uint64_t covers_seq) {
  if (covers_seq < snapshot_seq_ || covers_seq > last_seq()) {
    return FailedPrecondition("snapshot at seq " + std::to_string(covers_seq) +
                              " is outside the log (" + std::to_string(snapshot_seq_) + ".." +
                              std::to_string(last_seq()) + ")");
  }
  snapshot_seq_ = covers_seq;
  bytes_since_snapshot_ = 0;
  ROTA_RETURN_IF_ERROR(PruneSnapshots());
  return wal_->CompactThrough(covers_seq);
}

Status StateStore::PruneSnapshots() {
  Result<std::vector<std::string>> names = ops_->ListDir(dir_);
  if (!names.ok()) return names.status();
  std::vector<uint64_t> snapshots = SnapshotSeqs(*names);
  for (size_t i = 0; i + kSnapshotsKept < snapshots.size(); ++i) {
    ROTA_RETURN_IF_ERROR(ops_->Remove(JoinPath(dir_, SnapshotFileName(snapshots[i]))));
  }
  return Status::Ok();
}

}  // namespace rota::ctld
