#include "noded/container/image_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "noded/container/image_digest.h"
#include "noded/container/image_files.h"
#include "noded/container/image_ref.h"
#include "noded/container/oci_image.h"
#include "noded/container/user_process.h"

extern char** environ;

namespace rota::noded::container {
namespace {

constexpr std::string_view kStampDir = ".last-use";
constexpr std::string_view kPartial = ".partial-";
constexpr uint64_t kMaxStampBytes = 64 * 1024;
// What the importer may inherit from rotad: the search path for skopeo and
// unsquashfs, and how this node reaches registries.
constexpr const char* kPassedVariables[] = {"PATH",     "http_proxy",    "https_proxy",
                                            "no_proxy", "HTTP_PROXY",    "HTTPS_PROXY",
                                            "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR"};

std::string Shown(std::string_view ref) { return "image '" + std::string(ref) + "'"; }

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double MiB(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

bool IsKey(std::string_view name) {
  return name.size() == 64 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool IsUidName(std::string_view name) {
  return !name.empty() && name.size() < 11 &&
         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsRegular(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A complete entry: rota-image writes image.json after the rootfs, and the
// directory only gets its key's name once rota-image succeeded.
bool IsComplete(const std::string& entry_dir) {
  return IsDirectory(entry_dir + "/rootfs") &&
         IsRegular(entry_dir + "/" + std::string(kImageConfigFile));
}

std::vector<std::string> Children(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());  // The same order on every start.
  return names;
}

std::string FileKey(ImageKind kind, const std::string& path) {
  char canonical[PATH_MAX];
  struct stat st {};
  if (realpath(path.c_str(), canonical) == nullptr || stat(canonical, &st) != 0) return "";
  const int64_t mtime_ns =
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return Sha256Hex(fmt::format("{}\n{}\n{}\n{}", ImageKindName(kind), canonical,
                               static_cast<uint64_t>(st.st_size), mtime_ns));
}

// The importer's message, naming the image as the user wrote it (the
// importer was given it made absolute).
std::string ImportError(std::string_view ref, const std::string& given, std::string message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  if (message.empty()) message = "the importer failed without a message";
  for (const std::string& name : {std::string(ref), given}) {
    const std::string prefix = Shown(name);
    if (message.starts_with(prefix)) {
      std::string rest = message.substr(prefix.size());
      return Shown(ref) + rest;
    }
  }
  return Shown(ref) + ": " + message;
}

std::vector<std::string> ImporterEnvironment(uid_t uid) {
  std::vector<std::string> env;
  for (const char* name : kPassedVariables) {
    if (const char* value = std::getenv(name); value != nullptr) {
      env.push_back(std::string(name) + "=" + value);
    }
  }
  if (std::getenv("PATH") == nullptr) {
    env.push_back("PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
  }
  // skopeo finds the user's registry logins from HOME.
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
    env.push_back(std::string("HOME=") + pw.pw_dir);
    env.push_back(std::string("USER=") + pw.pw_name);
    env.push_back(std::string("LOGNAME=") + pw.pw_name);
  } else {
    env.push_back("HOME=/");
  }
  return env;
}

}  // namespace

Result<std::string> ImageCacheKey(std::string_view ref) {
  Result<ImageKind> kind = ClassifyImage(ref);
  if (!kind.ok()) return kind.status();
  const std::string path(ref);
  switch (*kind) {
    case ImageKind::kSquashfs:
    case ImageKind::kDockerArchive: {
      std::string key = FileKey(*kind, path);
      if (key.empty()) return IoError(Errno(Shown(ref)));
      return key;
    }
    case ImageKind::kOciLayout: {
      char canonical[PATH_MAX];
      if (realpath(path.c_str(), canonical) == nullptr) return IoError(Errno(Shown(ref)));
      Result<std::string> digest = OciManifestDigest(canonical);
      if (!digest.ok()) {
        return Status(digest.status().code(), Shown(ref) + ": " + digest.status().message());
      }
      return Sha256Hex(fmt::format("oci-layout\n{}\n{}", canonical, *digest));
    }
    case ImageKind::kRegistry:
      return Sha256Hex("registry\n" + path);
  }
  return Internal("unknown image kind");
}

ImageCache::ImageCache(std::string cache_dir, uint64_t max_bytes, std::string importer_program,
                       std::chrono::seconds import_timeout)
    : cache_dir_(std::filesystem::absolute(cache_dir).lexically_normal().string()),
      max_bytes_(max_bytes),
      importer_(std::move(importer_program)),
      import_timeout_(import_timeout) {
  Recover();
}

void ImageCache::Recover() {
  std::error_code ec;
  std::filesystem::create_directories(cache_dir_, ec);
  // Users pass through to their own directory; they list nothing here.
  if (chmod(cache_dir_.c_str(), 0711) != 0) {
    spdlog::warn("image cache {}: {}", cache_dir_, Errno("cannot set its mode"));
  }
  const std::string stamps = cache_dir_ + "/" + std::string(kStampDir);
  if (mkdir(stamps.c_str(), 0700) != 0 && errno != EEXIST) {
    spdlog::warn("image cache: {}", Errno("cannot make " + stamps));
  }
  std::lock_guard lock(mutex_);
  uint64_t total = 0;
  for (const std::string& uid_name : Children(cache_dir_)) {
    if (!IsUidName(uid_name)) continue;
    const std::string user_dir = cache_dir_ + "/" + uid_name;
    if (!IsDirectory(user_dir)) continue;
    for (const std::string& name : Children(user_dir)) {
      const std::string path = user_dir + "/" + name;
      if (name.find(kPartial) != std::string::npos || (IsKey(name) && !IsComplete(path))) {
        // An import or an eviction that a crash cut short.
        Status removed = RemoveTree(path);
        if (removed.ok()) {
          spdlog::info("image cache: removed {}, left unfinished", path);
        } else {
          spdlog::warn("image cache: {}", removed.message());
        }
        continue;
      }
      if (!IsKey(name)) continue;
      const std::string id = uid_name + "/" + name;
      Entry entry;
      const std::string stamp = stamps + "/" + uid_name + "-" + name;
      Result<std::string> text = ReadSmallFile(stamp, kMaxStampBytes, false);
      struct stat st {};
      if (text.ok() && lstat(stamp.c_str(), &st) == 0) {
        const size_t newline = text->find('\n');
        entry.bytes = std::strtoull(text->substr(0, newline).c_str(), nullptr, 10);
        if (newline != std::string::npos) entry.ref = text->substr(newline + 1);
        while (!entry.ref.empty() && entry.ref.back() == '\n') entry.ref.pop_back();
        entry.last_use_ns =
            static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
      }
      if (entry.bytes == 0) {
        entry.bytes = DiskUsage(path);
        WriteStamp(id, entry);
      }
      total += entry.bytes;
      entries_[id] = std::move(entry);
    }
  }
  // Stamps of entries that are gone.
  for (const std::string& name : Children(stamps)) {
    std::string id = name;
    if (const size_t dash = id.find('-'); dash != std::string::npos) id[dash] = '/';
    if (!entries_.contains(id)) unlink((stamps + "/" + name).c_str());
  }
  spdlog::info("image cache {}: {} images, {:.1f} MiB of {}", cache_dir_, entries_.size(),
               MiB(total),
               max_bytes_ == 0 ? "no limit" : fmt::format("{:.1f} MiB", MiB(max_bytes_)));
}

Status ImageCache::EnsureUserDir(uid_t uid, gid_t gid) const {
  if (!IsDirectory(cache_dir_)) {
    std::error_code ec;
    std::filesystem::create_directories(cache_dir_, ec);
    if (ec) return IoError("cannot make " + cache_dir_ + ": " + ec.message());
    (void)chmod(cache_dir_.c_str(), 0711);
  }
  const std::string dir = cache_dir_ + "/" + std::to_string(uid);
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return IoError(Errno("cannot make " + dir));
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return IoError(Errno("cannot stat " + dir));
  if (!S_ISDIR(st.st_mode)) return IoError(dir + " is not a directory");
  if (st.st_uid != uid || (st.st_mode & 07777) != 0700) {
    // Made just now by root; or left by another user of this uid: the cache
    // gives it to the uid again.
    if (lchown(dir.c_str(), uid, gid) != 0) {
      return IoError(Errno("cannot give " + dir + " to its user"));
    }
    if (chmod(dir.c_str(), 0700) != 0) return IoError(Errno("cannot set the mode of " + dir));
  }
  return Status::Ok();
}

std::string ImageCache::PartialName(const std::string& key) {
  std::lock_guard lock(mutex_);
  return fmt::format("{}{}{}-{}", key, kPartial, getpid(), ++partial_sequence_);
}

Status ImageCache::RunImport(std::string_view ref, uid_t uid, gid_t gid,
                             const std::vector<gid_t>& groups, const std::string& key,
                             uint64_t* bytes) {
  ROTA_RETURN_IF_ERROR(EnsureUserDir(uid, gid));
  const std::string user_dir = cache_dir_ + "/" + std::to_string(uid);
  const std::string partial = user_dir + "/" + PartialName(key);
  const std::string entry_dir = user_dir + "/" + key;
  // rota-image runs in /, so a relative path is given made absolute.
  const std::string given =
      IsImagePath(ref) ? std::filesystem::absolute(std::string(ref)).lexically_normal().string()
                       : std::string(ref);
  CapturedRun run = RunCapturedAs({importer_, "import", given, partial}, ImporterEnvironment(uid),
                                  UserIdentity{uid, gid, groups}, import_timeout_);
  const bool succeeded = run.start_error.empty() && !run.timed_out && WIFEXITED(run.wait_status) &&
                         WEXITSTATUS(run.wait_status) == 0;
  Status status;
  if (!succeeded) {
    std::string why = run.start_error.empty() ? run.output : run.start_error;
    if (run.timed_out) {
      why = fmt::format("the import took longer than {} s", import_timeout_.count());
    }
    status = Status(StatusCode::kFailedPrecondition, ImportError(ref, given, why));
  } else if (!IsComplete(partial)) {
    status = Internal(Shown(ref) + ": the importer left no complete image in " + partial);
  } else {
    auto move_into_place = [&] {
      return rename(partial.c_str(), entry_dir.c_str()) == 0 ? 0 : errno;
    };
    int error = move_into_place();
    if (error == ENOTEMPTY || error == EEXIST) {
      // A stale entry of this key that the cache did not know (its stamp
      // removed by hand, say) makes way.
      const std::string stale = user_dir + "/" + PartialName(key);
      if (rename(entry_dir.c_str(), stale.c_str()) == 0) (void)RemoveTree(stale);
      error = move_into_place();
    }
    if (error != 0) {
      errno = error;
      status = IoError(Errno(Shown(ref) + ": cannot rename " + partial));
    }
  }
  if (!status.ok()) {
    if (Status removed = RemoveTree(partial); !removed.ok()) {
      spdlog::warn("image cache: {}", removed.message());
    }
    return status;
  }
  *bytes = DiskUsage(entry_dir);
  return Status::Ok();
}

void ImageCache::WriteStamp(const std::string& id, const Entry& entry) const {
  std::string name = id;
  std::replace(name.begin(), name.end(), '/', '-');
  const std::string stamp = cache_dir_ + "/" + std::string(kStampDir) + "/" + name;
  Status written = WriteFileReplacing(stamp, fmt::format("{}\n{}\n", entry.bytes, entry.ref));
  if (!written.ok()) {
    spdlog::warn("image cache: {}", written.message());
    return;
  }
  TouchStamp(id, entry.last_use_ns);
}

void ImageCache::TouchStamp(const std::string& id, int64_t now_ns) const {
  std::string name = id;
  std::replace(name.begin(), name.end(), '/', '-');
  const std::string stamp = cache_dir_ + "/" + std::string(kStampDir) + "/" + name;
  const timespec times[2] = {{now_ns / 1'000'000'000, now_ns % 1'000'000'000},
                             {now_ns / 1'000'000'000, now_ns % 1'000'000'000}};
  if (utimensat(AT_FDCWD, stamp.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) {
    spdlog::warn("image cache: {}", Errno("cannot stamp " + stamp));
  }
}

Result<CachedImage> ImageCache::Acquire(std::string_view ref, uid_t uid, gid_t gid,
                                        const std::vector<gid_t>& groups) {
  Result<std::string> key = ImageCacheKey(ref);
  if (!key.ok()) return key.status();
  const std::string id = std::to_string(uid) + "/" + *key;
  const std::string entry_dir = cache_dir_ + "/" + id;
  CachedImage image;
  image.rootfs = entry_dir + "/rootfs";
  image.key = *key;

  std::unique_lock lock(mutex_);
  for (;;) {
    if (auto it = entries_.find(id); it != entries_.end()) {
      Result<ImageConfig> config =
          IsComplete(entry_dir) ? LoadImageConfig(entry_dir) : Result<ImageConfig>(NotFound(""));
      if (config.ok()) {
        Entry& entry = it->second;
        ++entry.users;
        entry.last_use_ns = NowNs();
        entry.ref = std::string(ref);
        TouchStamp(id, entry.last_use_ns);
        lock.unlock();
        spdlog::info("{} for uid {}: cache hit", Shown(ref), uid);
        image.config = std::move(*config);
        image.hit = true;
        return image;
      }
      if (it->second.users > 0) {
        return Status(StatusCode::kCorruption,
                      Shown(ref) + ": the cached image in " + entry_dir + " is damaged");
      }
      // Damaged or removed by hand while nobody used it: import it again.
      spdlog::warn("{} for uid {}: the cached image in {} is damaged; importing it again",
                   Shown(ref), uid, entry_dir);
      entries_.erase(it);
      continue;
    }
    auto pending = imports_.find(id);
    if (pending == imports_.end()) break;
    // Another step imports this image: share its outcome.
    std::shared_ptr<Import> import = pending->second;
    import_done_.wait(lock, [&] { return import->done; });
    if (!import->status.ok()) return import->status;
  }
  auto import = std::make_shared<Import>();
  imports_[id] = import;
  lock.unlock();

  const auto started = std::chrono::steady_clock::now();
  uint64_t bytes = 0;
  Status status = RunImport(ref, uid, gid, groups, *key, &bytes);
  Result<ImageConfig> config =
      status.ok() ? LoadImageConfig(entry_dir) : Result<ImageConfig>(status);
  if (status.ok() && !config.ok()) {
    status = Status(config.status().code(), Shown(ref) + ": " + config.status().message());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  lock.lock();
  imports_.erase(id);
  import->done = true;
  import->status = status;
  import_done_.notify_all();
  if (!status.ok()) return status;
  Entry& entry = entries_[id];
  entry = Entry{std::string(ref), bytes, NowNs(), 1};
  WriteStamp(id, entry);
  std::vector<Victim> victims = ChooseVictims();
  lock.unlock();

  spdlog::info("{} for uid {}: imported in {:.3f} s ({:.1f} MiB)", Shown(ref), uid, seconds,
               MiB(bytes));
  for (const Victim& victim : victims) {
    Status removed = RemoveTree(victim.doomed_path);
    spdlog::info("image cache: evicted {} ({}, {:.1f} MiB){}", Shown(victim.ref), victim.id,
                 MiB(victim.bytes), removed.ok() ? "" : "; " + removed.message());
  }
  image.config = std::move(*config);
  return image;
}

std::vector<ImageCache::Victim> ImageCache::ChooseVictims() {
  std::vector<Victim> victims;
  if (max_bytes_ == 0) return victims;
  uint64_t total = 0;
  for (const auto& [id, entry] : entries_) total += entry.bytes;
  while (total > max_bytes_) {
    // Least recently used first; the id breaks ties, so the choice does not
    // depend on the map's history.
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.users > 0) continue;
      if (oldest == entries_.end() || it->second.last_use_ns < oldest->second.last_use_ns) {
        oldest = it;
      }
    }
    if (oldest == entries_.end()) break;  // All in use: over the limit until released.
    const std::string& id = oldest->first;
    const std::string key = id.substr(id.find('/') + 1);
    Victim victim{oldest->second.ref, id,
                  cache_dir_ + "/" + id.substr(0, id.find('/')) + "/" + key +
                      std::string(kPartial) +
                      fmt::format("evicted-{}-{}", getpid(), ++partial_sequence_),
                  oldest->second.bytes};
    // Renamed now, under the lock, so that an Acquire from here on imports
    // afresh; removed later, outside it.
    if (rename((cache_dir_ + "/" + id).c_str(), victim.doomed_path.c_str()) != 0) {
      spdlog::warn("image cache: {}", Errno("cannot evict " + cache_dir_ + "/" + id));
      victim.doomed_path.clear();
    }
    std::string stamp_name = id;
    std::replace(stamp_name.begin(), stamp_name.end(), '/', '-');
    unlink((cache_dir_ + "/" + std::string(kStampDir) + "/" + stamp_name).c_str());
    total -= std::min(total, oldest->second.bytes);
    entries_.erase(oldest);
    if (!victim.doomed_path.empty()) victims.push_back(std::move(victim));
  }
  return victims;
}

void ImageCache::Release(uid_t uid, const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(std::to_string(uid) + "/" + key);
  if (it == entries_.end() || it->second.users == 0) {
    spdlog::warn("image cache: release of {}/{}, which is not in use", uid, key);
    return;
  }
  --it->second.users;
}

uint64_t ImageCache::TotalBytes() const {
  std::lock_guard lock(mutex_);
  uint64_t total = 0;
  for (const auto& [id, entry] : entries_) total += entry.bytes;
  return total;
}

}  // namespace rota::noded::container
