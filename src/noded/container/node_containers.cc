#include "noded/container/node_containers.h"

#include <filesystem>

namespace rota::noded {

Result<ContainerImage> CachedImages::Acquire(const std::string& ref, uid_t uid, gid_t gid,
                                             const std::vector<gid_t>& groups) {
  Result<container::CachedImage> cached = cache_->Acquire(ref, uid, gid, groups);
  if (!cached.ok()) return cached.status();
  ContainerImage image;
  image.rootfs = cached->rootfs;
  image.env = cached->config.env;
  image.entrypoint = cached->config.entrypoint;
  image.cmd = cached->config.cmd;
  image.working_dir = cached->config.working_dir;
  image.key = cached->key;
  return image;
}

NodeContainers MakeNodeContainers(const std::string& spool_dir, uint64_t cache_bytes,
                                  const std::string& importer) {
  const std::string dir = NodeContainersDir(spool_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir + "/images", ec);
  NodeContainers made;
  made.images = std::make_unique<CachedImages>(
      std::make_unique<container::ImageCache>(dir + "/images", cache_bytes, importer));
  made.store = std::make_unique<ContainerStore>(dir, FindContainerRuntime(), made.images.get());
  return made;
}

std::string ImageImporterProgram() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "rota-image").string();
}

}  // namespace rota::noded
