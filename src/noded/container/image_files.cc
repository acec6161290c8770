#include "noded/container/image_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <utility>

#include "common/unique_fd.h"

namespace rota::noded::container {
namespace {

// Deeper trees than this are not images anyone made on purpose; each level
// holds a descriptor while its children go.
constexpr int kMaxDepth = 1024;

// Opens the directory `name` in `parent_fd` for reading, never through a
// link, making it readable and writable for its owner first when it is not:
// an image may hold directories of mode 0555 or 0000, and as an ordinary user
// their contents cannot go otherwise.
int OpenDirectoryForRemoval(int parent_fd, const char* name) {
  UniqueFd path_fd(openat(parent_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (path_fd.get() < 0) return -1;
  int fd = openat(path_fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == EACCES) {
    // An O_PATH descriptor cannot be fchmod'ed; its /proc name reaches the
    // very directory it holds, whatever has been renamed since.
    const std::string proc = "/proc/self/fd/" + std::to_string(path_fd.get());
    if (chmod(proc.c_str(), 0700) != 0) return -1;
    fd = openat(path_fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (fd < 0) return -1;
  struct stat st {};
  if (fstat(fd, &st) == 0 && (st.st_mode & 0700) != 0700) (void)fchmod(fd, st.st_mode | 0700);
  return fd;
}

Status RemoveEntryAt(int parent_fd, const char* name, const std::string& shown, int depth) {
  if (unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT) return Status::Ok();
  if (errno != EISDIR) return IoError(Errno("cannot remove " + shown));
  if (depth > kMaxDepth) return IoError("cannot remove " + shown + ": too deep");
  UniqueFd dir_fd(OpenDirectoryForRemoval(parent_fd, name));
  if (dir_fd.get() < 0) {
    if (errno == ENOENT) return Status::Ok();
    return IoError(Errno("cannot open " + shown));
  }
  // Names first, removal after: readdir over a directory that shrinks under
  // it may skip entries.
  std::vector<std::string> names;
  {
    int listing_fd = dup(dir_fd.get());
    if (listing_fd < 0) return IoError(Errno("dup"));
    DIR* dir = fdopendir(listing_fd);
    if (dir == nullptr) {
      close(listing_fd);
      return IoError(Errno("cannot list " + shown));
    }
    while (dirent* e = readdir(dir)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      names.emplace_back(e->d_name);
    }
    closedir(dir);
  }
  for (const std::string& child : names) {
    ROTA_RETURN_IF_ERROR(
        RemoveEntryAt(dir_fd.get(), child.c_str(), shown + "/" + child, depth + 1));
  }
  if (unlinkat(parent_fd, name, AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return IoError(Errno("cannot remove " + shown));
  }
  return Status::Ok();
}

}  // namespace

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

Result<std::string> ReadSmallFile(const std::string& path, uint64_t max_bytes, bool follow_links) {
  const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (follow_links ? 0 : O_NOFOLLOW);
  UniqueFd fd(open(path.c_str(), flags));
  if (fd.get() < 0) {
    if (errno == ENOENT) return NotFound(path + " does not exist");
    if (errno == ELOOP) return InvalidArgument(path + " is a symbolic link");
    return IoError(Errno("cannot open " + path));
  }
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return IoError(Errno("cannot stat " + path));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(path + " is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return InvalidArgument(path + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string text;
  char buf[16384];
  for (;;) {
    ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(Errno("cannot read " + path));
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    // A file that grows while it is read is cut off at the limit.
    if (text.size() > max_bytes) {
      return InvalidArgument(path + " is larger than " + std::to_string(max_bytes) + " bytes");
    }
  }
  return text;
}

Status WriteFileReplacing(const std::string& path, const std::string& text) {
  const std::string temp = path + ".new-" + std::to_string(getpid());
  UniqueFd fd(open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0) return IoError(Errno("cannot create " + temp));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status error = IoError(Errno("cannot write " + temp));
      unlink(temp.c_str());
      return error;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd.release()) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
    Status error = IoError(Errno("cannot write " + path));
    unlink(temp.c_str());
    return error;
  }
  return Status::Ok();
}

Status RemoveTree(const std::string& path) {
  std::filesystem::path p(path);
  while (!p.empty() && !p.has_filename()) p = p.parent_path();  // "a/b/" names b
  if (p.empty() || p.filename() == "." || p.filename() == "..") {
    return InvalidArgument("refusing to remove '" + path + "'");
  }
  // The path up to its last component is the caller's (a cache or a
  // destination it chose); only what lies below is untrusted.
  const std::string parent = p.has_parent_path() ? p.parent_path().string() : ".";
  UniqueFd parent_fd(open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent_fd.get() < 0) {
    if (errno == ENOENT) return Status::Ok();
    return IoError(Errno("cannot open " + parent));
  }
  return RemoveEntryAt(parent_fd.get(), p.filename().c_str(), path, 0);
}

uint64_t DiskUsage(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return 0;
  uint64_t total = static_cast<uint64_t>(st.st_blocks) * 512;
  if (!S_ISDIR(st.st_mode)) return total;
  // A file with several names takes its blocks once.
  std::set<std::pair<dev_t, ino_t>> linked;
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(
      path, std::filesystem::directory_options::skip_permission_denied, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (lstat(it->path().c_str(), &st) != 0) continue;
    if (!S_ISDIR(st.st_mode) && st.st_nlink > 1 && !linked.insert({st.st_dev, st.st_ino}).second) {
      continue;
    }
    total += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  return total;
}

Result<std::string> CleanRelativePath(std::string_view raw) {
  if (raw.starts_with('/')) {
    return InvalidArgument("'" + std::string(raw) + "' is an absolute path");
  }
  std::string clean;
  std::string_view rest = raw;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") return InvalidArgument("'" + std::string(raw) + "' leads outside with '..'");
    if (!clean.empty()) clean += '/';
    clean += part;
  }
  return clean;
}

std::string FindProgram(const std::string& name, const std::vector<std::string>& extra_dirs) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::string_view rest(path);
    while (true) {
      const size_t colon = rest.find(':');
      const std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) dirs.emplace_back(dir);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const std::string& dir : dirs) {
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

}  // namespace rota::noded::container
