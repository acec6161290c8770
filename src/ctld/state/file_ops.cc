#include "ctld/state/file_ops.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rota::ctld {
namespace {

Status ErrnoError(std::string_view what, const std::string& path, int err) {
  return IoError(std::string(what) + " " + path + ": " + std::strerror(err));
}

Status ErrnoError(std::string_view what, int fd, int err) {
  return ErrnoError(what, "fd " + std::to_string(fd), err);
}

}  // namespace

Status PosixFileOps::CreateDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0) return Status::Ok();
  int err = errno;
  struct stat st;
  if (err == EEXIST && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::Ok();
  return ErrnoError("cannot create directory", dir, err);
}

Result<std::vector<std::string>> PosixFileOps::ListDir(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return ErrnoError("cannot list directory", dir, errno);
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  int err = errno;
  ::closedir(d);
  if (err != 0) return ErrnoError("cannot list directory", dir, err);
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> PosixFileOps::ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open", path, errno);
  std::string data;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return ErrnoError("cannot read", path, err);
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

Result<int> PosixFileOps::Open(const std::string& path, OpenMode mode) {
  int flags = O_WRONLY | O_APPEND | O_CLOEXEC;
  switch (mode) {
    case OpenMode::kCreateNew:
      flags |= O_CREAT | O_EXCL;
      break;
    case OpenMode::kExisting:
      break;
    case OpenMode::kCreateOrTruncate:
      flags |= O_CREAT | O_TRUNC;
      break;
  }
  int fd = ::open(path.c_str(), flags, 0600);
  if (fd < 0) return ErrnoError("cannot open", path, errno);
  return fd;
}

Status PosixFileOps::Write(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot write", fd, errno);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status PosixFileOps::DataSync(int fd) {
  if (::fdatasync(fd) != 0) return ErrnoError("fdatasync failed on", fd, errno);
  return Status::Ok();
}

Status PosixFileOps::Sync(int fd) {
  if (::fsync(fd) != 0) return ErrnoError("fsync failed on", fd, errno);
  return Status::Ok();
}

Result<uint64_t> PosixFileOps::Size(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoError("cannot stat", fd, errno);
  return static_cast<uint64_t>(st.st_size);
}

Status PosixFileOps::Truncate(int fd, uint64_t size) {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    return ErrnoError("cannot truncate", fd, errno);
  }
  return Status::Ok();
}

Status PosixFileOps::Close(int fd) {
  // No retry on EINTR: on Linux the descriptor is released either way.
  if (::close(fd) != 0) return ErrnoError("close failed on", fd, errno);
  return Status::Ok();
}

Status PosixFileOps::Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return IoError("cannot rename " + from + " to " + to + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status PosixFileOps::Remove(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return ErrnoError("cannot remove", path, errno);
  return Status::Ok();
}

Status PosixFileOps::SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open directory", dir, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoError("fsync failed on directory", dir, err);
  return Status::Ok();
}

}  // namespace rota::ctld
