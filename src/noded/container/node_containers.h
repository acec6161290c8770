#pragma once

// rotad's containers: the image cache (image_cache.h) behind the store's
// ImageSource, and the store itself, under SlurmdSpoolDir/containers.

#include <memory>
#include <string>

#include "noded/container/container_store.h"
#include "noded/container/image_cache.h"

namespace rota::noded {

// The image cache as the store sees it.
class CachedImages final : public ImageSource {
 public:
  explicit CachedImages(std::unique_ptr<container::ImageCache> cache) : cache_(std::move(cache)) {}
  Result<ContainerImage> Acquire(const std::string& ref, uid_t uid, gid_t gid,
                                 const std::vector<gid_t>& groups) override;
  void Release(uid_t uid, const std::string& key) override { cache_->Release(uid, key); }

 private:
  std::unique_ptr<container::ImageCache> cache_;
};

// What rotad keeps for its jobs' containers.
struct NodeContainers {
  std::unique_ptr<CachedImages> images;
  std::unique_ptr<ContainerStore> store;
};

// Images in `spool_dir`/containers/images (at most `cache_bytes` of them
// kept), containers in `spool_dir`/containers, imported by `importer`
// (rota-image) and run by crun.
NodeContainers MakeNodeContainers(const std::string& spool_dir, uint64_t cache_bytes,
                                  const std::string& importer);

// Where rota-image is: beside the running daemon.
std::string ImageImporterProgram();

}  // namespace rota::noded
