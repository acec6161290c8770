#include "ctld/state/write_ahead_log.h"

#include <algorithm>

#include "common/log.h"
#include "ctld/state/state_files.h"
#include "ctld/state/wal_record.h"

namespace rota::ctld {
namespace {

Status Corrupt(std::string message) { return Status(StatusCode::kCorruption, std::move(message)); }

std::string Range(uint64_t from, uint64_t to) {
  return from == to ? std::to_string(from) : std::to_string(from) + ".." + std::to_string(to);
}

void Warn(LogReplay* out, std::string message) {
  spdlog::warn("state log: {}", message);
  out->warnings.push_back(std::move(message));
}

}  // namespace

// Where the replay stands across segments.
struct WriteAheadLog::Cursor {
  bool have_prev = false;
  uint64_t prev_seq = 0;   // The last record read, in any segment.
  std::string prev_path;   // The segment that held it.
  bool replaying = false;  // A record after the snapshot has been returned.
};

std::string WriteAheadLog::PathOf(uint64_t first_seq) const {
  return JoinPath(dir_, SegmentFileName(first_seq));
}

Result<std::unique_ptr<WriteAheadLog>> WriteAheadLog::Open(FileOps* ops, std::string dir,
                                                           uint64_t after_seq, LogOptions options,
                                                           LogReplay* out) {
  *out = LogReplay{};
  Result<std::vector<std::string>> names = ops->ListDir(dir);
  if (!names.ok()) return names.status();
  std::vector<uint64_t> firsts;
  for (const std::string& name : *names) {
    if (auto seq = ParseSeqName(name, kSegmentPrefix)) firsts.push_back(*seq);
  }
  std::sort(firsts.begin(), firsts.end());

  std::unique_ptr<WriteAheadLog> log(new WriteAheadLog(ops, std::move(dir), options));
  Cursor cursor;
  for (size_t i = 0; i < firsts.size(); ++i) {
    Result<bool> kept =
        log->ReplaySegment(firsts[i], i + 1 == firsts.size(), after_seq, &cursor, out);
    if (!kept.ok()) return kept.status();
    if (*kept) log->segments_.push_back(firsts[i]);
  }
  log->last_seq_ = std::max(after_seq, cursor.prev_seq);
  out->last_seq = log->last_seq_;
  // Appends go to a new segment: the newest one may just have been repaired,
  // and starting afresh keeps one code path for creating segments.
  return log;
}

Result<bool> WriteAheadLog::ReplaySegment(uint64_t first_seq, bool newest, uint64_t after_seq,
                                          Cursor* cursor, LogReplay* out) {
  const std::string path = PathOf(first_seq);
  Result<std::string> data = ops_->ReadFile(path);
  if (!data.ok()) return data.status();
  DecodedLog decoded = DecodeRecords(*data);

  // Check every intact record's place in the sequence before repairing
  // anything, so that an error leaves the files as they were.
  std::vector<std::string> payloads;
  uint64_t bytes = 0;
  bool replaying = cursor->replaying;
  for (size_t i = 0; i < decoded.records.size(); ++i) {
    const DecodedRecord& r = decoded.records[i];
    std::string where = path + " at offset " + std::to_string(r.offset);
    if (i == 0) {
      if (r.seq != first_seq) {
        return Corrupt(where + ": the first record has seq " + std::to_string(r.seq) +
                       " but the file name says " + std::to_string(first_seq));
      }
      if (cursor->have_prev && r.seq <= cursor->prev_seq) {
        return Corrupt(where + ": seq " + std::to_string(r.seq) + " overlaps " + cursor->prev_path +
                       ", which ends at seq " + std::to_string(cursor->prev_seq));
      }
      uint64_t gap_from = cursor->have_prev ? cursor->prev_seq + 1 : 1;
      if (r.seq > gap_from) {
        ROTA_RETURN_IF_ERROR(CheckGap(gap_from, r.seq - 1, after_seq, *cursor, path, out));
      }
    } else if (r.seq != decoded.records[i - 1].seq + 1) {
      return Corrupt(where + ": record has seq " + std::to_string(r.seq) + " after seq " +
                     std::to_string(decoded.records[i - 1].seq));
    }
    if (r.seq > after_seq) {
      payloads.emplace_back(r.payload);
      bytes += kRecordHeaderSize + r.payload.size();
      replaying = true;
    }
  }

  if (!decoded.complete()) {
    std::string where =
        path + " at offset " + std::to_string(decoded.valid_end) + " (" + decoded.stop_reason + ")";
    if (!newest) {
      return Corrupt("bad record in " + where +
                     "; this is not the newest log segment, so it is damage, not a torn write");
    }
    uint64_t expected = decoded.records.empty() ? first_seq : decoded.records.back().seq + 1;
    uint64_t found_at = 0;
    if (FindIntactRecord(*data, decoded.valid_end + 1, expected, &found_at)) {
      return Corrupt("bad record in " + where + ", followed by an intact record at offset " +
                     std::to_string(found_at) + ": the log is damaged in the middle");
    }
    Warn(out, "discarding " + std::to_string(data->size() - decoded.valid_end) +
                  " bytes of torn or corrupt log tail in " + where + "; " +
                  (decoded.records.empty()
                       ? std::string("no record in it was intact")
                       : "records up to seq " + std::to_string(decoded.records.back().seq) +
                             " are intact"));
    if (decoded.valid_end > 0) ROTA_RETURN_IF_ERROR(TruncateSegment(path, decoded.valid_end));
  }

  for (std::string& p : payloads) out->records.push_back(std::move(p));
  out->bytes += bytes;
  cursor->replaying = replaying;
  if (!decoded.records.empty()) {
    cursor->have_prev = true;
    cursor->prev_seq = decoded.records.back().seq;
    cursor->prev_path = path;
    return true;
  }
  // A newest segment with nothing intact is left by a crash between creating
  // it and the first append completing; new appends start a fresh one.
  if (newest) {
    ROTA_RETURN_IF_ERROR(RemoveEmptySegment(path));
    return false;
  }
  return true;
}

Status WriteAheadLog::CheckGap(uint64_t from, uint64_t to, uint64_t after_seq, const Cursor& cursor,
                               const std::string& path, LogReplay* out) {
  // Records the snapshot covers may be gone (compaction, or a repaired tail
  // the snapshot had already captured).
  uint64_t missing_from = std::max(from, after_seq + 1);
  if (missing_from > to) return Status::Ok();
  if (cursor.replaying) {
    return Corrupt("log records " + Range(missing_from, to) + " are missing between " +
                   cursor.prev_path + " and " + path);
  }
  // Before the first replayed record this is what falling back to an older
  // snapshot (after moving a corrupt newest one away) looks like: the operator
  // accepted the loss, so say it plainly and go on.
  Warn(out, "log records " + Range(missing_from, to) + " are missing: the snapshot covers seq " +
                std::to_string(after_seq) + " but the log resumes at seq " +
                std::to_string(to + 1) + " in " + path + "; their changes are lost");
  return Status::Ok();
}

Status WriteAheadLog::RemoveEmptySegment(const std::string& path) {
  spdlog::info("state log: removing empty segment {}", path);
  ROTA_RETURN_IF_ERROR(ops_->Remove(path));
  return ops_->SyncDir(dir_);
}

Status WriteAheadLog::TruncateSegment(const std::string& path, uint64_t size) {
  Result<int> fd = ops_->Open(path, OpenMode::kExisting);
  if (!fd.ok()) return fd.status();
  Status status = ops_->Truncate(*fd, size);
  // The repair must be durable before new segments follow this one, or a
  // crash could bring the bad tail back in the middle of the log.
  if (status.ok()) status = ops_->Sync(*fd);
  Status closed = ops_->Close(*fd);
  return status.ok() ? closed : status;
}

WriteAheadLog::~WriteAheadLog() { CloseActive(); }

void WriteAheadLog::CloseActive() {
  if (active_fd_ < 0) return;
  // Everything written was already synced; a close error changes nothing.
  (void)ops_->Close(active_fd_);
  active_fd_ = -1;
  active_size_ = 0;
}

Status WriteAheadLog::StartSegment(uint64_t first_seq) {
  Result<int> fd = ops_->Open(PathOf(first_seq), OpenMode::kCreateNew);
  if (!fd.ok()) return fd.status();
  active_fd_ = *fd;
  active_size_ = 0;
  segments_.push_back(first_seq);
  return Status::Ok();
}

Status WriteAheadLog::UndoFailedWrite(bool new_segment) {
  // Nothing of the batch reached the file (a file system turned read-only
  // refuses the first byte, and would refuse a truncate too): the log is as
  // it was, and the segment stays open for the next append. An empty new
  // segment left so is removed by the next start's replay.
  if (Result<uint64_t> size = ops_->Size(active_fd_); size.ok() && *size == active_size_) {
    return Status::Ok();
  }
  const uint64_t first_seq = segments_.back();
  // A partial write may have reached the file: cut it back to the records
  // that were synced, durably, so that no torn tail sits before later ones.
  Status status = ops_->Truncate(active_fd_, active_size_);
  if (status.ok()) status = ops_->Sync(active_fd_);
  if (!status.ok()) return status;
  CloseActive();  // The next append starts a fresh segment,
  if (new_segment) {
    // ... under this one's name, so this (now empty) one goes.
    segments_.pop_back();
    status = ops_->Remove(PathOf(first_seq));
    if (status.ok()) status = ops_->SyncDir(dir_);
  }
  return status;
}

Result<uint64_t> WriteAheadLog::AppendBatch(const std::vector<std::string>& payloads) {
  if (!broken_.ok()) return broken_;
  if (payloads.empty()) return last_seq_;
  size_t total = 0;
  for (const std::string& p : payloads) {
    if (p.size() > kMaxRecordPayload) {
      return InvalidArgument("a log record of " + std::to_string(p.size()) +
                             " bytes exceeds the limit of " + std::to_string(kMaxRecordPayload));
    }
    total += kRecordHeaderSize + p.size();
  }
  std::string batch;
  batch.reserve(total);
  uint64_t seq = last_seq_;
  for (const std::string& p : payloads) AppendRecord(++seq, p, &batch);

  if (active_fd_ >= 0 && active_size_ >= options_.segment_bytes) CloseActive();
  bool new_segment = active_fd_ < 0;
  if (new_segment) {
    if (Status started = StartSegment(last_seq_ + 1); !started.ok()) {
      // Out of descriptors or of room for a new file: nothing was written, so
      // the log is as it was and a later call may succeed.
      return Status(StatusCode::kUnavailable, "the state log could not start a new segment (" +
                                                  started.message() + "); nothing was recorded");
    }
  }

  Status status = ops_->Write(active_fd_, batch);
  if (!status.ok() && UndoFailedWrite(new_segment).ok()) {
    // A write that failed (a full disk, most often) left nothing behind once
    // undone: the log is as it was, and a later call may succeed.
    return Status(StatusCode::kUnavailable, "the state log could not write " +
                                                std::to_string(batch.size()) + " bytes (" +
                                                status.message() + "); nothing was recorded");
  }
  if (status.ok()) status = ops_->DataSync(active_fd_);
  // The new file's name must survive a crash as well as its contents.
  if (status.ok() && new_segment) status = ops_->SyncDir(dir_);
  if (!status.ok()) {
    broken_ =
        Status(status.code(), "the state log stopped accepting records after a failed write (" +
                                  status.message() + "); restart to recover from what is durable");
    CloseActive();
    return broken_;
  }
  active_size_ += batch.size();
  last_seq_ = seq;
  return last_seq_;
}

Status WriteAheadLog::CompactThrough(uint64_t seq) {
  // The next append starts a new segment, so the one written so far can be
  // deleted as a whole once a snapshot covers it.
  CloseActive();
  std::vector<uint64_t> kept;
  Status status;
  for (size_t i = 0; i < segments_.size(); ++i) {
    // The next segment's first seq bounds this one's last from above.
    uint64_t last = i + 1 < segments_.size() ? segments_[i + 1] - 1 : last_seq_;
    if (status.ok() && last <= seq) {
      status = ops_->Remove(PathOf(segments_[i]));
      if (status.ok()) continue;
    }
    kept.push_back(segments_[i]);
  }
  bool removed = kept.size() != segments_.size();
  segments_ = std::move(kept);
  // Not needed for correctness (a resurrected covered segment is skipped on
  // replay) but keeps the directory's durable state simple.
  if (removed) {
    Status synced = ops_->SyncDir(dir_);
    if (status.ok()) status = synced;
  }
  return status;
}

}  // namespace rota::ctld
