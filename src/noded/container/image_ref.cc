#include "noded/container/image_ref.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "noded/container/image_files.h"

namespace rota::noded::container {
namespace {

constexpr std::string_view kDockerScheme = "docker://";

std::string Shown(std::string_view ref) { return "image '" + std::string(ref) + "'"; }

// The characters of registry names, repositories, tags and digests, and
// enroot's '#' and '@': anything else (a space, a quote) is a typo or a path
// someone forgot to start with "./".
bool IsRegistryText(std::string_view ref) {
  if (ref.empty()) return false;
  for (char c : ref) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::strchr("._-/:@#+", c) != nullptr;
    if (!ok) return false;
  }
  return true;
}

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Whether the open file `fd` is a tar (compressed or not) with manifest.json
// among its top-level entries. Reads entry headers only; an uncompressed tar
// is skipped through by seeking, a compressed one has to be decompressed.
bool HasTopLevelManifest(int fd) {
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_tar(a);
  bool found = false;
  if (archive_read_open_fd(a, fd, 1 << 16) == ARCHIVE_OK) {
    archive_entry* entry = nullptr;
    while (!found && archive_read_next_header(a, &entry) == ARCHIVE_OK) {
      const char* name = archive_entry_pathname(entry);
      std::string_view path = name != nullptr ? name : "";
      while (path.starts_with("./")) path.remove_prefix(2);
      found = path == "manifest.json";
    }
  }
  archive_read_free(a);
  return found;
}

}  // namespace

std::string_view ImageKindName(ImageKind kind) {
  switch (kind) {
    case ImageKind::kSquashfs:
      return "squashfs";
    case ImageKind::kOciLayout:
      return "oci-layout";
    case ImageKind::kDockerArchive:
      return "docker-archive";
    case ImageKind::kRegistry:
      return "registry";
  }
  return "unknown";
}

bool IsImagePath(std::string_view ref) { return ref.starts_with('/') || ref.starts_with('.'); }

Result<ImageKind> ClassifyImage(std::string_view ref) {
  if (ref.empty()) return InvalidArgument("the container image is empty");
  if (!IsImagePath(ref)) {
    std::string_view name = ref;
    if (name.starts_with(kDockerScheme)) name.remove_prefix(kDockerScheme.size());
    if (!IsRegistryText(name)) {
      return InvalidArgument(Shown(ref) +
                             " is neither a path (start it with / or ./) nor a registry image");
    }
    return ImageKind::kRegistry;
  }
  const std::string path(ref);
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return NotFound(Shown(ref) + " does not exist");
    if (errno == EACCES) return Status(StatusCode::kPermissionDenied, Errno(Shown(ref)));
    return IoError(Errno(Shown(ref)));
  }
  if (S_ISDIR(st.st_mode)) {
    if (IsRegularFile(path + "/oci-layout") && IsRegularFile(path + "/index.json")) {
      return ImageKind::kOciLayout;
    }
  } else if (S_ISREG(st.st_mode)) {
    // Without O_NONBLOCK a FIFO swapped in since the stat would hang us.
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
      if (errno == EACCES) return Status(StatusCode::kPermissionDenied, Errno(Shown(ref)));
      return IoError(Errno(Shown(ref)));
    }
    char magic[4] = {};
    struct stat opened {};
    const bool regular = fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode);
    const bool squashfs = regular && pread(fd, magic, sizeof magic, 0) == sizeof magic &&
                          std::memcmp(magic, "hsqs", sizeof magic) == 0;
    const bool docker = regular && !squashfs && HasTopLevelManifest(fd);
    close(fd);
    if (squashfs) return ImageKind::kSquashfs;
    if (docker) return ImageKind::kDockerArchive;
  }
  return InvalidArgument(Shown(ref) +
                         " is not a squashfs file, an OCI image layout or a docker archive");
}

Result<std::string> RegistrySource(std::string_view ref) {
  std::string_view name = ref;
  if (name.starts_with(kDockerScheme)) name.remove_prefix(kDockerScheme.size());
  if (IsImagePath(ref) || !IsRegistryText(name)) {
    return InvalidArgument(Shown(ref) + " is not a registry image");
  }
  // '@' is either a digest (IMAGE@sha256:...) or enroot's USER@ in front.
  if (const size_t at = name.find('@'); at != std::string_view::npos) {
    const std::string_view after = name.substr(at + 1);
    if (!after.starts_with("sha256:") && !after.starts_with("sha512:")) {
      return InvalidArgument(Shown(ref) +
                             ": credentials in the reference (USER@) are not supported; the "
                             "registry login of the job's user (skopeo login) is used");
    }
  }
  std::string source(name);
  if (const size_t hash = source.find('#'); hash != std::string::npos) {
    if (source.find('#', hash + 1) != std::string::npos || hash == 0 || hash + 1 == source.size()) {
      return InvalidArgument(Shown(ref) + " is not of the form [REGISTRY#]IMAGE[:TAG]");
    }
    source[hash] = '/';
  }
  if (source.empty() || source.starts_with('/') || source.ends_with('/') ||
      source.find("//") != std::string::npos) {
    return InvalidArgument(Shown(ref) + " is not of the form [REGISTRY#]IMAGE[:TAG]");
  }
  return std::string(kDockerScheme) + source;
}

}  // namespace rota::noded::container
