#include "auth/slurm_key_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/crypto.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include "common/unique_fd.h"

namespace rota::auth {

SlurmKey::SlurmKey(std::string_view bytes) : bytes_(bytes.begin(), bytes.end()) {
  assert(bytes.size() >= kMinBytes && bytes.size() <= kMaxBytes);
}

SlurmKey::~SlurmKey() { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }

namespace {

// Wipes a temporary buffer that held key bytes.
class WipedBuffer {
 public:
  ~WipedBuffer() { OPENSSL_cleanse(data.data(), data.size()); }
  std::string data;
};

}  // namespace

Result<std::shared_ptr<const SlurmKey>> LoadSlurmKey(const std::string& path, int* open_errno) {
  if (open_errno != nullptr) *open_errno = 0;
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (open_errno != nullptr) *open_errno = errno;
    return IoError(fmt::format("cannot open slurm key file {}: {}", path, std::strerror(errno)));
  }
  // fstat on the open descriptor, so the file checked is the file read.
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) {
    return IoError(fmt::format("cannot stat slurm key file {}: {}", path, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return InvalidArgument(fmt::format("slurm key file {} is not a regular file", path));
  }
  const mode_t mode = st.st_mode & 07777;
  if (mode != 0400 && mode != 0600) {
    return Status(
        StatusCode::kPermissionDenied,
        fmt::format("slurm key file {} has mode {:04o}; it must be 0400 or 0600 (readable "
                    "and writable by its owner only), since anyone who can read it can "
                    "forge any user's identity",
                    path, static_cast<unsigned>(mode)));
  }
  if (st.st_size > static_cast<off_t>(SlurmKey::kMaxBytes)) {
    return InvalidArgument(fmt::format("slurm key file {} is {} bytes; at most {} are allowed",
                                       path, static_cast<int64_t>(st.st_size),
                                       SlurmKey::kMaxBytes));
  }

  WipedBuffer buffer;
  buffer.data.resize(static_cast<size_t>(st.st_size));
  size_t filled = 0;
  while (filled < buffer.data.size()) {
    ssize_t n = read(fd.get(), buffer.data.data() + filled, buffer.data.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return IoError(fmt::format("cannot read slurm key file {}: {}", path, std::strerror(errno)));
    }
    if (n == 0) break;  // Shrank while we read; judge what we got.
    filled += static_cast<size_t>(n);
  }
  buffer.data.resize(filled);
  if (filled < SlurmKey::kMinBytes) {
    return InvalidArgument(fmt::format("slurm key file {} holds {} bytes; at least {} are required",
                                       path, filled, SlurmKey::kMinBytes));
  }
  return std::shared_ptr<const SlurmKey>(std::make_shared<SlurmKey>(buffer.data));
}

}  // namespace rota::auth
