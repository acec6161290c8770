#include "noded/container/image_layer.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "noded/container/image_files.h"

namespace rota::noded::container {
namespace {

constexpr std::string_view kWhiteoutPrefix = ".wh.";
constexpr std::string_view kOpaqueWhiteout = ".wh..wh..opq";

// libarchive's checks against writing through links (SECURE_SYMLINKS,
// NODOTDOT, NOABSOLUTEPATHS) hold for paths relative to the working
// directory, so a layer is written from inside the rootfs.
class InsideDirectory {
 public:
  Status Enter(const std::string& dir) {
    // O_PATH: the caller's directory may be one it cannot read.
    saved_ = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (saved_ < 0) return IoError(Errno("cannot open the working directory"));
    if (chdir(dir.c_str()) != 0) return IoError(Errno("cannot enter " + dir));
    return Status::Ok();
  }
  ~InsideDirectory() {
    if (saved_ < 0) return;
    (void)!fchdir(saved_);
    close(saved_);
  }

 private:
  int saved_ = -1;
};

struct ArchiveFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct DiskFree {
  void operator()(archive* a) const { archive_write_free(a); }
};

std::string ArchiveError(archive* a) {
  const char* text = archive_error_string(a);
  return text != nullptr ? text : "unknown error";
}

std::string Parent(const std::string& relative) {
  const size_t slash = relative.rfind('/');
  return slash == std::string::npos ? "" : relative.substr(0, slash);
}

std::string Join(const std::string& dir, std::string_view name) {
  return dir.empty() ? std::string(name) : dir + "/" + std::string(name);
}

}  // namespace

// Absolute: the rootfs is also reached from inside itself while a layer is written.
LayerApplier::LayerApplier(std::string rootfs)
    : rootfs_(std::filesystem::absolute(rootfs).lexically_normal().string()) {
  while (rootfs_.size() > 1 && rootfs_.ends_with('/')) rootfs_.pop_back();
}

bool LayerApplier::ParentsAreDirectories(const std::string& relative) const {
  for (size_t slash = relative.find('/'); slash != std::string::npos;
       slash = relative.find('/', slash + 1)) {
    struct stat st {};
    const std::string path = rootfs_ + "/" + relative.substr(0, slash);
    if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  }
  return true;
}

Status LayerApplier::RemoveLower(const std::string& relative) {
  if (this_layer_.contains(relative) || !ParentsAreDirectories(relative)) return Status::Ok();
  // A directory that goes takes the modes recorded for it and below with it.
  for (auto it = dir_modes_.lower_bound(relative); it != dir_modes_.end();) {
    if (it->first != relative && !it->first.starts_with(relative + "/")) break;
    it = dir_modes_.erase(it);
  }
  return RemoveTree(rootfs_ + "/" + relative);
}

Status LayerApplier::ClearLower(const std::string& relative) {
  const std::string dir = relative.empty() ? rootfs_ : rootfs_ + "/" + relative;
  struct stat st {};
  if (!ParentsAreDirectories(Join(relative, "x")) || lstat(dir.c_str(), &st) != 0 ||
      !S_ISDIR(st.st_mode)) {
    return Status::Ok();
  }
  std::vector<std::string> children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    children.push_back(entry.path().filename().string());
  }
  if (ec) return IoError("cannot list " + dir + ": " + ec.message());
  for (const std::string& child : children) {
    ROTA_RETURN_IF_ERROR(RemoveLower(Join(relative, child)));
  }
  return Status::Ok();
}

Status LayerApplier::Apply(const std::string& layer_path, const std::string& name, bool whiteouts) {
  this_layer_.clear();
  std::unique_ptr<archive, ArchiveFree> in(archive_read_new());
  archive_read_support_filter_all(in.get());  // gzip, zstd, xz... whatever this libarchive has
  archive_read_support_format_tar(in.get());
  archive_read_support_format_empty(in.get());  // Layers that only change metadata may be empty
  if (archive_read_open_filename(in.get(), layer_path.c_str(), 1 << 16) != ARCHIVE_OK) {
    return InvalidArgument(name + ": " + ArchiveError(in.get()));
  }
  std::unique_ptr<archive, DiskFree> out(archive_write_disk_new());
  archive_write_disk_set_options(
      out.get(), ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                     ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
  InsideDirectory inside;
  ROTA_RETURN_IF_ERROR(inside.Enter(rootfs_));

  archive_entry* entry = nullptr;
  for (;;) {
    const int r = archive_read_next_header(in.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) return InvalidArgument(name + ": " + ArchiveError(in.get()));
    const char* raw_path = archive_entry_pathname(entry);
    const std::string raw = raw_path != nullptr ? raw_path : "";
    Result<std::string> relative = CleanRelativePath(raw);
    if (!relative.ok()) {
      return InvalidArgument(name + ": entry " + relative.status().message() +
                             ", refused (path traversal)");
    }
    if (relative->empty()) continue;  // The top itself: the rootfs is already there.
    const std::string base = relative->substr(relative->rfind('/') + 1);
    const std::string parent = Parent(*relative);

    if (whiteouts && base.starts_with(kWhiteoutPrefix)) {
      if (base == kOpaqueWhiteout) {
        ROTA_RETURN_IF_ERROR(ClearLower(parent));
        continue;
      }
      const std::string hidden = base.substr(kWhiteoutPrefix.size());
      if (hidden.empty() || hidden == "." || hidden == "..") {
        return InvalidArgument(name + ": whiteout '" + raw + "' names nothing");
      }
      ROTA_RETURN_IF_ERROR(RemoveLower(Join(parent, hidden)));
      continue;
    }

    const mode_t type = archive_entry_filetype(entry);
    // Device nodes need privileges the importing user lacks; a container
    // gets its /dev from the runtime anyway. A socket is never content.
    if (type == AE_IFCHR || type == AE_IFBLK || type == AE_IFSOCK) continue;

    if (const char* link = archive_entry_hardlink(entry); link != nullptr) {
      Result<std::string> target = CleanRelativePath(link);
      if (!target.ok() || target->empty() || !ParentsAreDirectories(*target)) {
        return InvalidArgument(name + ": hard link '" + raw + "' to '" + link +
                               "' leads outside the image, refused");
      }
      archive_entry_set_hardlink(entry, target->c_str());
    }
    mode_t perm = archive_entry_perm(entry) & ~(S_ISUID | S_ISGID);
    if (type == AE_IFDIR) {
      dir_modes_[*relative] = perm;
      perm |= S_IRWXU;
    }
    archive_entry_set_perm(entry, perm);
    archive_entry_set_pathname(entry, relative->c_str());
    for (std::string p = *relative; !p.empty(); p = Parent(p)) this_layer_.insert(p);

    if (archive_write_header(out.get(), entry) < ARCHIVE_WARN) {
      return InvalidArgument(name + ": entry '" + raw + "': " + ArchiveError(out.get()));
    }
    if (archive_entry_size_is_set(entry) && archive_entry_size(entry) > 0) {
      const void* block = nullptr;
      size_t size = 0;
      la_int64_t offset = 0;
      for (;;) {
        const int rr = archive_read_data_block(in.get(), &block, &size, &offset);
        if (rr == ARCHIVE_EOF) break;
        if (rr < ARCHIVE_WARN) return InvalidArgument(name + ": " + ArchiveError(in.get()));
        if (archive_write_data_block(out.get(), block, size, offset) < ARCHIVE_WARN) {
          return IoError(name + ": entry '" + raw + "': " + ArchiveError(out.get()));
        }
      }
    }
    if (archive_write_finish_entry(out.get()) < ARCHIVE_WARN) {
      return IoError(name + ": entry '" + raw + "': " + ArchiveError(out.get()));
    }
  }
  // The deferred directory modes and times are set here, on relative paths:
  // still inside the rootfs.
  if (archive_write_close(out.get()) < ARCHIVE_WARN) {
    return IoError(name + ": " + ArchiveError(out.get()));
  }
  return Status::Ok();
}

Status LayerApplier::Finish() {
  // Deepest first: a parent that loses its search permission must not stop
  // its children from getting theirs.
  for (auto it = dir_modes_.rbegin(); it != dir_modes_.rend(); ++it) {
    if (!ParentsAreDirectories(it->first)) continue;
    const std::string path = rootfs_ + "/" + it->first;
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    if ((st.st_mode & 07777) == it->second) continue;
    if (chmod(path.c_str(), it->second) != 0) {
      return IoError(Errno("cannot set the mode of " + path));
    }
  }
  dir_modes_.clear();
  return Status::Ok();
}

}  // namespace rota::noded::container
