#pragma once

// Snapshot files: the controller's whole state after record <seq>, as opaque
// bytes. Layout, little-endian:
//
//   [8 bytes magic "ROTASNAP"][u32 version][u64 seq covered][u64 payload length]
//   [u32 CRC-32 of everything before it and of the payload][payload]
//
// A snapshot is written to snapshot.<seq>.tmp, fsynced, renamed into place and
// the directory fsynced, so a crash leaves either the whole file or none.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "ctld/state/file_ops.h"

namespace rota::ctld {

inline constexpr uint32_t kSnapshotVersion = 1;
inline constexpr size_t kSnapshotHeaderSize = 32;

std::string EncodeSnapshot(uint64_t seq, std::string_view payload);

// The payload of a snapshot file's bytes. kCorruption when the magic, length or
// checksum is wrong or the covered seq is not `expected_seq`;
// kFailedPrecondition for a format version this build cannot read. The message
// does not name the file: the caller knows it.
Result<std::string> DecodeSnapshot(std::string_view bytes, uint64_t expected_seq);

// Sequence numbers of the snapshot.<seq> files among `names`, ascending.
// Temp files are not snapshots.
std::vector<uint64_t> SnapshotSeqs(const std::vector<std::string>& names);

// Writes snapshot.<seq> in `dir` atomically and durably (see above).
Status WriteSnapshotFile(FileOps* ops, const std::string& dir, uint64_t seq,
                         std::string_view payload);

// Reads and checks snapshot.<seq>; errors name the file.
Result<std::string> ReadSnapshotFile(FileOps* ops, const std::string& dir, uint64_t seq);

}  // namespace rota::ctld
