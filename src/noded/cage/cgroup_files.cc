#include "noded/cage/cgroup_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace rota::noded::cgroup_files {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

Status WriteFile(const std::string& path, const std::string& text) {
  // A cgroup's files exist: opening with O_CREAT first would take the
  // directory's lock exclusively on every one of a job's writes.
  int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (fd < 0) return IoError(Errno("open " + path));
  ssize_t n = write(fd, text.data(), text.size());
  int saved = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    errno = saved;
    return IoError(Errno("write '" + text + "' to " + path));
  }
  return Status::Ok();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

Status MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return IoError(Errno("mkdir " + path));
  return Status::Ok();
}

std::optional<uint64_t> KeyedValue(const std::string& path, std::string_view key) {
  std::istringstream in(ReadFile(path));
  std::string name;
  uint64_t value = 0;
  while (in >> name >> value) {
    if (name == key) return value;
  }
  return std::nullopt;
}

Status RemoveTree(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> children;
  for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_directory(ec)) children.push_back(e.path().string());
  }
  Status first_error;
  for (const std::string& child : children) {
    Status s = RemoveTree(child);
    if (!s.ok() && first_error.ok()) first_error = s;
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (rmdir(dir.c_str()) == 0 || errno == ENOENT) return first_error;
    if (errno != EBUSY) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return first_error.ok() ? IoError(Errno("rmdir " + dir)) : first_error;
}

}  // namespace rota::noded::cgroup_files
