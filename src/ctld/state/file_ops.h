#pragma once

// The file-system calls the state store makes, behind a small interface so that
// tests can count syncs and inject failures (STYLE.md habit 4, leveldb's Env).
// Paths are plain strings; open files are POSIX file descriptors.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::ctld {

enum class OpenMode {
  kCreateNew,         // Fails if the file exists (a new log segment).
  kExisting,          // Fails if the file does not exist (repairing a torn tail).
  kCreateOrTruncate,  // A snapshot's temp file, maybe left by an earlier crash.
};

class FileOps {
 public:
  virtual ~FileOps() = default;

  // Creates `dir` with mode 0700; OK when it already is a directory.
  virtual Status CreateDir(const std::string& dir) = 0;
  // Names (not paths) of the entries of `dir`, without "." and "..", sorted.
  virtual Result<std::vector<std::string>> ListDir(const std::string& dir) = 0;
  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // Opens write-only and appending; new files get mode 0600.
  virtual Result<int> Open(const std::string& path, OpenMode mode) = 0;
  // Writes all of `data` at the end of the file: one write(2) unless the kernel
  // takes less (then it carries on with the rest).
  virtual Status Write(int fd, std::string_view data) = 0;
  virtual Status DataSync(int fd) = 0;  // fdatasync(2): the data and the size.
  virtual Status Sync(int fd) = 0;      // fsync(2).
  virtual Status Truncate(int fd, uint64_t size) = 0;
  // The open file's size (fstat(2)): works on a read-only file system too.
  virtual Result<uint64_t> Size(int fd) = 0;
  virtual Status Close(int fd) = 0;
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  virtual Status Remove(const std::string& path) = 0;
  // Makes the creations, renames and removals of entries in `dir` durable.
  virtual Status SyncDir(const std::string& dir) = 0;
};

// The real thing. Stateless, so any number may exist.
class PosixFileOps : public FileOps {
 public:
  Status CreateDir(const std::string& dir) override;
  Result<std::vector<std::string>> ListDir(const std::string& dir) override;
  Result<std::string> ReadFile(const std::string& path) override;
  Result<int> Open(const std::string& path, OpenMode mode) override;
  Status Write(int fd, std::string_view data) override;
  Status DataSync(int fd) override;
  Status Sync(int fd) override;
  Status Truncate(int fd, uint64_t size) override;
  Result<uint64_t> Size(int fd) override;
  Status Close(int fd) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  Status SyncDir(const std::string& dir) override;
};

}  // namespace rota::ctld
