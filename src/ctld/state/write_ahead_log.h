#pragma once

// The controller's append-only log: segments log.<first seq> in one directory,
// each a run of records (see wal_record.h) with consecutive sequence numbers.
// Only the newest segment is ever appended to; a snapshot makes the older ones
// deletable (CompactThrough).
//
// Thread confinement: owned and used by one thread (the controller's state loop).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "ctld/state/file_ops.h"

namespace rota::ctld {

struct LogOptions {
  // A segment this large is closed and the next append starts a new one.
  uint64_t segment_bytes = 64ull << 20;
};

// What WriteAheadLog::Open found.
struct LogReplay {
  // Payloads of the records after the snapshot, in order; they are consecutive
  // and end at last_seq.
  std::vector<std::string> records;
  uint64_t last_seq = 0;              // The last record's seq, or the snapshot's when higher.
  uint64_t bytes = 0;                 // Encoded size of `records`.
  std::vector<std::string> warnings;  // Also logged.
};

class WriteAheadLog {
 public:
  // Reads every segment in `dir`, checks the sequence runs from segment to
  // segment, cuts a torn or corrupt tail off the newest segment (a warning)
  // and returns the records with seq > `after_seq` (the snapshot's). Damage
  // anywhere else is kCorruption naming the file and offset.
  // REQUIRES: `ops` outlives the log.
  static Result<std::unique_ptr<WriteAheadLog>> Open(FileOps* ops, std::string dir,
                                                     uint64_t after_seq, LogOptions options,
                                                     LogReplay* out);
  ~WriteAheadLog();
  WriteAheadLog(const WriteAheadLog&) = delete;
  WriteAheadLog& operator=(const WriteAheadLog&) = delete;

  // Appends one record per payload with the next sequence numbers, in one
  // write and one fdatasync (plus a directory fsync when it starts a segment).
  // On OK every record is durable; returns the last one's seq. A write that
  // fails (ENOSPC) is undone (kUnavailable: try again later), and the log
  // takes later batches as if it had not been tried; when it cannot be undone, or after a failed
  // sync, the file's state is unknown, so every later call fails too until the process reopens the
  // log.
  Result<uint64_t> AppendBatch(const std::vector<std::string>& payloads);

  // Deletes the segments whose records all have seq <= `seq`.
  // REQUIRES: a durable snapshot covers `seq`.
  Status CompactThrough(uint64_t seq);

  uint64_t last_seq() const { return last_seq_; }

 private:
  struct Cursor;

  WriteAheadLog(FileOps* ops, std::string dir, LogOptions options)
      : ops_(ops), dir_(std::move(dir)), options_(options) {}

  // Replays one segment into `out`; false when it was empty and removed.
  Result<bool> ReplaySegment(uint64_t first_seq, bool newest, uint64_t after_seq, Cursor* cursor,
                             LogReplay* out);
  Status CheckGap(uint64_t from, uint64_t to, uint64_t after_seq, const Cursor& cursor,
                  const std::string& path, LogReplay* out);
  Status RemoveEmptySegment(const std::string& path);
  Status TruncateSegment(const std::string& path, uint64_t size);
  Status StartSegment(uint64_t first_seq);
  // Takes back what a failed write of the active segment may have added.
  Status UndoFailedWrite(bool new_segment);
  void CloseActive();
  std::string PathOf(uint64_t first_seq) const;

  FileOps* ops_;
  std::string dir_;
  LogOptions options_;
  std::vector<uint64_t> segments_;  // First seqs, ascending.
  uint64_t last_seq_ = 0;
  int active_fd_ = -1;  // The newest segment while this process appends to it.
  uint64_t active_size_ = 0;
  Status broken_;  // Sticky error after a failed append.
};

}  // namespace rota::ctld
