#include "noded/cgroup_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rota::noded::cgroup_files {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

Status WriteFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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

}  // namespace rota::noded::cgroup_files
