#pragma once

// The controller's durable state: a snapshot plus a write-ahead log of opaque
// records (the controller puts serialized protobuf in them). The controller
// acknowledges a submission only once Append has returned OK for its record;
// on restart, Open hands back the newest snapshot and every record after it.
//
// Layout of the directory: log.<first seq> segments (write_ahead_log.h) and the
// newest two snapshot.<seq> files (snapshot.h). The older snapshot is kept for
// an operator to fall back to by hand; it is never used automatically.
//
// Thread confinement: a StateStore is owned and used by one thread, the
// controller's state loop. It has no locks.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "ctld/state/file_ops.h"
#include "ctld/state/write_ahead_log.h"

namespace rota::ctld {

// What Open recovered.
struct Recovered {
  std::optional<std::string> snapshot;  // The newest snapshot's payload, if any.
  uint64_t snapshot_seq = 0;            // The seq it covers; 0 without one.
  // Payloads of the records after the snapshot, in order. They are
  // consecutive and end at last_seq: records[i] has seq
  // last_seq - records.size() + 1 + i.
  std::vector<std::string> records;
  uint64_t last_seq = 0;  // The seq Append continues after.
  // Repairs made (a torn log tail cut off) and losses found; each is also
  // logged. The controller may show them to the operator.
  std::vector<std::string> warnings;
};

struct StateStoreOptions {
  FileOps* file_ops = nullptr;  // Not owned; nullptr means the real file system.
  uint64_t segment_bytes = LogOptions{}.segment_bytes;
};

class StateStore {
 public:
  // Opens the state directory `dir`, creating it (mode 0700) if missing, and
  // fills `*out`. A torn or corrupt tail of the newest log segment is cut off
  // with a warning. Errors (kCorruption naming the file): a corrupt newest
  // snapshot (never silently replaced by an older one or by nothing), damage
  // in the middle of the log or in an older segment, missing records.
  // REQUIRES: out != nullptr; options.file_ops, if set, outlives the store.
  static Result<std::unique_ptr<StateStore>> Open(const std::string& dir, Recovered* out,
                                                  const StateStoreOptions& options = {});

  // Durably appends one record per payload, in one write and one fdatasync
  // (group commit: batch many submissions into one call). Returns the last
  // record's seq; the batch has seqs last - payloads.size() + 1 .. last.
  // kUnavailable: nothing was written (a full disk) and a later Append may
  // succeed. Any other error (a failed sync): every later Append fails too;
  // restart and recover.
  Result<uint64_t> Append(const std::vector<std::string>& payloads);

  // Writes snapshot.<covers_seq> atomically, keeps the newest two snapshots and
  // deletes the log segments it makes unnecessary. `payload` must be the state
  // after applying every record up to `covers_seq`.
  // REQUIRES: snapshot_seq() <= covers_seq <= last_seq().
  // On error the snapshot may or may not be in place; the store stays usable.
  Status WriteSnapshot(std::string_view payload, uint64_t covers_seq);

  // WriteSnapshot in two halves, so that the slow half (serializing and
  // writing a big state) runs off the loop thread: WriteSnapshotData may be
  // called from any thread with this store's dir() and file_ops(); once it
  // succeeded, the loop thread calls AdoptSnapshot (which prunes older
  // snapshots and compacts the log).
  static Status WriteSnapshotData(FileOps* ops, const std::string& dir, std::string_view payload,
                                  uint64_t covers_seq);
  Status AdoptSnapshot(uint64_t covers_seq);
  FileOps* file_ops() const { return ops_; }

  // Log bytes written (or replayed at Open) since the newest snapshot, so the
  // controller can decide when to snapshot.
  uint64_t bytes_since_snapshot() const { return bytes_since_snapshot_; }
  uint64_t last_seq() const { return wal_->last_seq(); }
  uint64_t snapshot_seq() const { return snapshot_seq_; }
  const std::string& dir() const { return dir_; }

 private:
  StateStore(std::string dir, std::unique_ptr<FileOps> owned_ops, FileOps* ops)
      : dir_(std::move(dir)), owned_ops_(std::move(owned_ops)), ops_(ops) {}

  Status PruneSnapshots();

  std::string dir_;
  std::unique_ptr<FileOps> owned_ops_;  // Set when the caller gave none.
  FileOps* ops_;
  std::unique_ptr<WriteAheadLog> wal_;
  uint64_t snapshot_seq_ = 0;
  uint64_t bytes_since_snapshot_ = 0;
};

}  // namespace rota::ctld
