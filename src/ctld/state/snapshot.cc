#include "ctld/state/snapshot.h"

#include <algorithm>

#include "ctld/state/encoding.h"
#include "ctld/state/state_files.h"

namespace rota::ctld {
namespace {

constexpr std::string_view kMagic = "ROTASNAP";
constexpr size_t kCrcOffset = 28;

Status Corrupt(std::string message) { return Status(StatusCode::kCorruption, std::move(message)); }

}  // namespace

std::string EncodeSnapshot(uint64_t seq, std::string_view payload) {
  std::string out;
  out.reserve(kSnapshotHeaderSize + payload.size());
  out.append(kMagic);
  PutFixed32(kSnapshotVersion, &out);
  PutFixed64(seq, &out);
  PutFixed64(payload.size(), &out);
  PutFixed32(ExtendCrc32(ExtendCrc32(0, out), payload), &out);
  out.append(payload);
  return out;
}

Result<std::string> DecodeSnapshot(std::string_view bytes, uint64_t expected_seq) {
  if (bytes.size() < kSnapshotHeaderSize) {
    return Corrupt("file is " + std::to_string(bytes.size()) + " bytes, shorter than the " +
                   std::to_string(kSnapshotHeaderSize) + "-byte header");
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) return Corrupt("bad magic (not a Rota snapshot)");
  uint32_t version = GetFixed32(bytes, 8);
  uint64_t seq = GetFixed64(bytes, 12);
  uint64_t length = GetFixed64(bytes, 20);
  uint32_t crc = GetFixed32(bytes, kCrcOffset);
  uint64_t actual = bytes.size() - kSnapshotHeaderSize;
  if (length != actual) {
    return Corrupt("header says the payload is " + std::to_string(length) +
                   " bytes but the file holds " + std::to_string(actual));
  }
  std::string_view payload = bytes.substr(kSnapshotHeaderSize);
  if (ExtendCrc32(ExtendCrc32(0, bytes.substr(0, kCrcOffset)), payload) != crc) {
    return Corrupt("checksum mismatch");
  }
  // Checked after the CRC so that a flipped bit reads as corruption, not as a
  // version from the future.
  if (version != kSnapshotVersion) {
    return FailedPrecondition("format version " + std::to_string(version) +
                              " is not one this rotactld reads (it reads " +
                              std::to_string(kSnapshotVersion) + ")");
  }
  if (seq != expected_seq) {
    return Corrupt("it covers seq " + std::to_string(seq) + " but its name says " +
                   std::to_string(expected_seq));
  }
  return std::string(payload);
}

std::vector<uint64_t> SnapshotSeqs(const std::vector<std::string>& names) {
  std::vector<uint64_t> seqs;
  for (const std::string& name : names) {
    if (auto seq = ParseSeqName(name, kSnapshotPrefix)) seqs.push_back(*seq);
  }
  std::sort(seqs.begin(), seqs.end());
  return seqs;
}

Status WriteSnapshotFile(FileOps* ops, const std::string& dir, uint64_t seq,
                         std::string_view payload) {
  std::string path = JoinPath(dir, SnapshotFileName(seq));
  std::string temp = path + std::string(kTempSuffix);
  Result<int> fd = ops->Open(temp, OpenMode::kCreateOrTruncate);
  if (!fd.ok()) return fd.status();
  Status status = ops->Write(*fd, EncodeSnapshot(seq, payload));
  if (status.ok()) status = ops->Sync(*fd);
  Status closed = ops->Close(*fd);
  if (status.ok()) status = closed;
  if (status.ok()) status = ops->Rename(temp, path);
  if (!status.ok()) {
    (void)ops->Remove(temp);  // Best effort: Open also clears leftovers.
    return status;
  }
  return ops->SyncDir(dir);
}

Result<std::string> ReadSnapshotFile(FileOps* ops, const std::string& dir, uint64_t seq) {
  std::string path = JoinPath(dir, SnapshotFileName(seq));
  Result<std::string> bytes = ops->ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  Result<std::string> payload = DecodeSnapshot(*bytes, seq);
  if (!payload.ok()) {
    return Status(payload.status().code(), path + ": " + payload.status().message());
  }
  return payload;
}

}  // namespace rota::ctld
