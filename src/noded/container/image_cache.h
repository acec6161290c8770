#pragma once

// rotad's per-node cache of imported container images. A step that names an
// image gets a rootfs unpacked from it, imported once per user and image and
// then shared by that user's steps, as enroot's and pyxis' caches are.
//
// Layout under cache_dir (made by rotad, root, mode 0711):
//   <uid>/                 the user's, mode 0700: rootfs files are theirs
//   <uid>/<key>/rootfs     a complete image (rota-image renamed into place)
//   <uid>/<key>/image.json its ImageConfig
//   <uid>/<key>.partial-*  an import under way, or one a crash left
//   .last-use/<uid>-<key>  root's: size in bytes and ref; its mtime is the
//                          entry's last Acquire, which survives a restart
//
// The import itself runs rota-image as the user (with the user's groups), so
// the user can only import what they can read, and owns the result. rotad as
// root only stats image files and reads OCI index JSON for the key.
//
// Keys: for a file (squashfs, docker archive), its kind, canonical path,
// size and mtime; for an OCI layout, its canonical path and manifest digest;
// for a registry image, the reference text: a tag that moves in the registry
// is not noticed until the entry is evicted.
//
// Thread-safe. Acquire blocks for as long as an import takes (minutes for a
// large pull): call it from a worker thread, not an event loop.

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "noded/container/image_config.h"

namespace rota::noded::container {

struct CachedImage {
  std::string rootfs;  // Owned by the user; read-only use by convention (overlay lower).
  ImageConfig config;
  bool hit = false;  // False when this Acquire imported it.
  std::string key;   // For Release.
};

// The cache key of `ref` (image_ref.h): hex SHA-256 as described above.
// Errors: those of ClassifyImage, or reading an OCI layout's index.
Result<std::string> ImageCacheKey(std::string_view ref);

class ImageCache {
 public:
  // `max_bytes`: the disk all users' complete entries may take before
  // least-recently-used ones not in use are evicted (0: no limit).
  // `importer_program`: the path of rota-image. Removes imports a crash left
  // (*.partial-*) and reads what the cache holds; problems are logged, and
  // Acquire reports them if they persist.
  ImageCache(std::string cache_dir, uint64_t max_bytes, std::string importer_program,
             std::chrono::seconds import_timeout = std::chrono::hours(2));
  ImageCache(const ImageCache&) = delete;
  ImageCache& operator=(const ImageCache&) = delete;

  // The rootfs of `ref` for the user `uid` (primary group `gid`,
  // supplementary `groups`), imported as that user when not cached. Two
  // Acquires of one image for one user import it once; the second waits.
  // The entry is in use, and never evicted, until Release(uid, key).
  // REQUIRES: a path `ref` is absolute (a relative one is taken from rotad's
  // working directory). rotad is root, or `uid` is its own.
  // Errors name the image: "image 'REF': <why>".
  Result<CachedImage> Acquire(std::string_view ref, uid_t uid, gid_t gid,
                              const std::vector<gid_t>& groups);

  // Ends one Acquire's use of the entry.
  void Release(uid_t uid, const std::string& key);

  // Disk taken by complete entries, all users (for diagnostics and tests).
  uint64_t TotalBytes() const;

 private:
  struct Entry {
    std::string ref;          // As last acquired; for messages.
    uint64_t bytes = 0;       // Measured after import.
    int64_t last_use_ns = 0;  // Wall clock, as in the stamp's mtime.
    int users = 0;            // Acquires not yet released.
  };
  struct Import {
    bool done = false;
    Status status;
  };
  struct Victim {
    std::string ref;
    std::string id;
    std::string doomed_path;  // Renamed out of the way, removed outside the lock.
    uint64_t bytes = 0;
  };

  void Recover();
  Status EnsureUserDir(uid_t uid, gid_t gid) const;
  // Runs the importer into a partial directory and renames the result into
  // place; `bytes` gets its size. Called without the lock.
  Status RunImport(std::string_view ref, uid_t uid, gid_t gid, const std::vector<gid_t>& groups,
                   const std::string& key, uint64_t* bytes);
  void WriteStamp(const std::string& id, const Entry& entry) const;
  void TouchStamp(const std::string& id, int64_t now_ns) const;
  // Picks and renames away unused entries, oldest first, until the total is
  // within max_bytes_.
  std::vector<Victim> ChooseVictims();  // REQUIRES: mutex_ held.
  std::string PartialName(const std::string& key);

  const std::string cache_dir_;
  const uint64_t max_bytes_;
  const std::string importer_;
  const std::chrono::seconds import_timeout_;

  mutable std::mutex mutex_;
  std::condition_variable import_done_;
  std::map<std::string, Entry> entries_;                    // "<uid>/<key>"; GUARDED_BY(mutex_)
  std::map<std::string, std::shared_ptr<Import>> imports_;  // GUARDED_BY(mutex_)
  uint64_t partial_sequence_ = 0;                           // GUARDED_BY(mutex_)
};

}  // namespace rota::noded::container
