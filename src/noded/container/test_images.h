#pragma once

// Small container images for this folder's tests, built from the node's
// static busybox: a rootfs directory, a squashfs of it, an OCI image layout
// of two layers (the second with whiteouts) and a docker archive of the same
// layers. Tests only.

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace rota::noded::container::testing {

inline constexpr char kPrettyName[] = "Rota Test Linux 7 (busybox)";
inline constexpr char kBusybox[] = "/bin/busybox";

struct TarEntry {
  enum class Type { kFile, kDir, kSymlink, kHardlink, kCharDevice };
  std::string path;
  Type type = Type::kFile;
  std::string data;  // File content, or the link's target.
  mode_t mode = 0644;
};

// Writes `entries` as a tar (gzip-compressed when `gzip`) to `path`.
void WriteTar(const std::string& path, const std::vector<TarEntry>& entries, bool gzip);

std::string ReadWholeFile(const std::string& path);
void WriteWholeFile(const std::string& path, const std::string& data);

// The image's bottom layer: busybox, bin/sh -> busybox, a hard link to it,
// a setuid copy, etc/os-release naming `pretty_name`, etc/motd, opt/old, a
// read-only directory and a device node.
std::vector<TarEntry> BaseLayer(const std::string& pretty_name = kPrettyName);
// The top layer: removes etc/motd (.wh.motd), empties opt/ of the base
// layer's entries (.wh..wh..opq, after opt/new of its own), writes into the
// read-only directory.
std::vector<TarEntry> TopLayer();

// The config blob of the layered images: Env, Entrypoint, Cmd, WorkingDir.
std::string ImageConfigJson();

// Builds images under `dir`; each returns the image's path.
class ImageBuilder {
 public:
  explicit ImageBuilder(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // busybox, bin/sh, etc/os-release and dev/null in a squashfs (mksquashfs).
  std::string Squashfs(const std::string& name, const std::string& pretty_name = kPrettyName);
  // An OCI image layout of `layers` (gzip'ed), blobs named by their sha256.
  std::string OciLayout(const std::string& name, const std::vector<std::vector<TarEntry>>& layers);
  std::string OciLayout(const std::string& name) {
    return OciLayout(name, {BaseLayer(), TopLayer()});
  }
  // A `docker save` tar of the base and top layers (uncompressed).
  std::string DockerArchive(const std::string& name);

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// The blob of `layout` that the manifest names as layer `index`.
std::string LayerBlobPath(const std::string& layout, int index);

}  // namespace rota::noded::container::testing
