#pragma once

// Test helpers for the state store: a FileOps that counts the calls that cost
// a disk round trip and can fail a write or a sync on demand, and byte-level file surgery.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ctld/state/file_ops.h"

namespace rota::ctld::testing {

class CountingFileOps : public PosixFileOps {
 public:
  int writes = 0;
  int data_syncs = 0;
  int syncs = 0;
  int dir_syncs = 0;
  bool fail_data_sync = false;

  // Writes half of the next writes' data, then fails as a full disk does.
  // Atomic: a test may set it while the state loop's thread writes.
  std::atomic<int> fail_writes = 0;

  // Fails the next writes without writing anything, as a file system that
  // turned read-only does; with fail_truncates, truncates fail the same way.
  std::atomic<int> refuse_writes = 0;
  bool fail_truncates = false;

  // Fails the next opens as a process out of descriptors does.
  std::atomic<int> fail_opens = 0;

  Result<int> Open(const std::string& path, OpenMode mode) override {
    if (fail_opens > 0) {
      --fail_opens;
      return IoError("injected open failure: Too many open files");
    }
    return PosixFileOps::Open(path, mode);
  }
  Status Write(int fd, std::string_view data) override {
    ++writes;
    if (refuse_writes > 0) {
      --refuse_writes;
      return IoError("injected write failure: Read-only file system");
    }
    if (fail_writes > 0) {
      --fail_writes;
      (void)PosixFileOps::Write(fd, data.substr(0, data.size() / 2));
      return IoError("injected write failure: No space left on device");
    }
    return PosixFileOps::Write(fd, data);
  }
  Status Truncate(int fd, uint64_t size) override {
    if (fail_truncates) return IoError("injected truncate failure: Read-only file system");
    return PosixFileOps::Truncate(fd, size);
  }
  Status DataSync(int fd) override {
    ++data_syncs;
    if (fail_data_sync) return IoError("injected fdatasync failure");
    return PosixFileOps::DataSync(fd);
  }
  Status Sync(int fd) override {
    ++syncs;
    return PosixFileOps::Sync(fd);
  }
  Status SyncDir(const std::string& dir) override {
    ++dir_syncs;
    return PosixFileOps::SyncDir(dir);
  }
  void Reset() { writes = data_syncs = syncs = dir_syncs = 0; }
};

inline std::string ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void WriteBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline void FlipBit(const std::filesystem::path& path, size_t bit) {
  std::string bytes = ReadBytes(path);
  ASSERT_LT(bit / 8, bytes.size());
  bytes[bit / 8] = static_cast<char>(bytes[bit / 8] ^ (1 << (bit % 8)));
  WriteBytes(path, bytes);
}

// Sorted names in `dir` that start with `prefix`.
inline std::vector<std::string> Names(const std::filesystem::path& dir,
                                      const std::string& prefix = "") {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with(prefix)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A payload that says which record it is, of roughly `size` bytes.
inline std::string Payload(uint64_t i, size_t size = 24) {
  std::string p = "record-" + std::to_string(i) + "-";
  while (p.size() < size) p.push_back(static_cast<char>('a' + (p.size() + i) % 26));
  return p;
}

}  // namespace rota::ctld::testing
