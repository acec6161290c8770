#include "noded/container/oci_image.h"

#include <climits>
#include <cstdlib>

#include "noded/container/image_digest.h"
#include "noded/container/image_files.h"
#include "noded/container/image_json.h"

namespace rota::noded::container {
namespace {

// Manifests and indexes are KiB; the limit keeps rotad, which reads them as
// root for the cache key, from reading a hostile file without end.
constexpr uint64_t kMaxJsonBytes = 16 << 20;
// Indexes may nest; this deep is already more than registries produce.
constexpr int kMaxIndexDepth = 4;

constexpr std::string_view kOciIndex = "application/vnd.oci.image.index.v1+json";
constexpr std::string_view kDockerList =
    "application/vnd.docker.distribution.manifest.list.v2+json";
constexpr std::string_view kOciManifest = "application/vnd.oci.image.manifest.v1+json";
constexpr std::string_view kDockerManifest = "application/vnd.docker.distribution.manifest.v2+json";

bool IsIndexType(std::string_view media_type) {
  return media_type == kOciIndex || media_type == kDockerList;
}

// The JSON blob `digest` of the layout, checked against its digest.
Result<Json> ReadJsonBlob(const std::string& layout, const std::string& digest,
                          const std::string& what) {
  Result<std::string> path = BlobPath(layout, digest);
  if (!path.ok()) return InvalidArgument(what + ": " + path.status().message());
  Result<std::string> text = ReadSmallFile(*path, kMaxJsonBytes);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return NotFound(what + " " + digest + " is missing from " + layout);
    }
    return Status(text.status().code(), what + " " + digest + ": " + text.status().message());
  }
  ROTA_RETURN_IF_ERROR(VerifyDigest(*path, digest, what + " " + digest));
  return ParseJson(*text, what + " " + digest);
}

// The descriptor to follow among `manifests` (an index's list): the only
// one, or the one for linux on this node's architecture.
Result<Json> ChooseDescriptor(const Json& index, const std::string& what) {
  auto list = index.is_object() ? index.find("manifests") : index.end();
  if (list == index.end() || !list->is_array() || list->empty()) {
    return InvalidArgument(what + " lists no manifests");
  }
  bool any_platform = false;
  std::string platforms;
  for (const Json& descriptor : *list) {
    auto platform = descriptor.is_object() ? descriptor.find("platform") : descriptor.end();
    if (platform == descriptor.end() || !platform->is_object()) continue;
    any_platform = true;
    const std::string os = StringAt(*platform, "os");
    const std::string arch = StringAt(*platform, "architecture");
    if (os == "linux" && arch == NodeArchitecture()) return descriptor;
    if (os != "unknown") platforms += (platforms.empty() ? "" : ", ") + os + "/" + arch;
  }
  // Without platforms (skopeo's oci: layouts list one manifest per tag), the
  // first is the image.
  if (!any_platform) return list->front();
  return NotFound(what + " has no image for linux/" + std::string(NodeArchitecture()) +
                  " (it has " + platforms + ")");
}

// Follows index.json and nested indexes to the descriptor of one manifest.
Result<Json> ManifestDescriptor(const std::string& layout) {
  Result<std::string> text = ReadSmallFile(layout + "/index.json", kMaxJsonBytes);
  if (!text.ok()) return text.status();
  Result<Json> index = ParseJson(*text, layout + "/index.json");
  if (!index.ok()) return index.status();
  std::string what = layout + "/index.json";
  for (int depth = 0; depth <= kMaxIndexDepth; ++depth) {
    Result<Json> descriptor = ChooseDescriptor(*index, what);
    if (!descriptor.ok()) return descriptor.status();
    const std::string digest = StringAt(*descriptor, "digest");
    if (digest.empty()) return InvalidArgument(what + ": a manifest without a digest");
    std::string media_type = StringAt(*descriptor, "mediaType");
    if (media_type.empty() || IsIndexType(media_type)) {
      // A descriptor without a media type says what it is only in its blob.
      Result<Json> blob = ReadJsonBlob(layout, digest, "image index");
      if (!blob.ok()) return blob.status();
      const bool is_index = IsIndexType(media_type) || IsIndexType(StringAt(*blob, "mediaType")) ||
                            (blob->is_object() && blob->contains("manifests"));
      if (!is_index) return descriptor;
      index = std::move(blob);
      what = "image index " + digest;
      continue;
    }
    if (media_type != kOciManifest && media_type != kDockerManifest) {
      return InvalidArgument(what + ": manifest " + digest + " is of type " + media_type +
                             ", not an image");
    }
    return descriptor;
  }
  return InvalidArgument(layout + ": image indexes nest deeper than " +
                         std::to_string(kMaxIndexDepth));
}

}  // namespace

std::string_view NodeArchitecture() {
#if defined(__x86_64__)
  return "amd64";
#elif defined(__aarch64__)
  return "arm64";
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return "ppc64le";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "amd64";
#endif
}

Result<std::string> OciManifestDigest(const std::string& layout_dir) {
  Result<Json> descriptor = ManifestDescriptor(layout_dir);
  if (!descriptor.ok()) return descriptor.status();
  return StringAt(*descriptor, "digest");
}

Result<ImageParts> ReadOciLayout(const std::string& layout_dir) {
  Result<Json> descriptor = ManifestDescriptor(layout_dir);
  if (!descriptor.ok()) return descriptor.status();
  ImageParts parts;
  parts.manifest_digest = StringAt(*descriptor, "digest");
  Result<Json> manifest = ReadJsonBlob(layout_dir, parts.manifest_digest, "manifest");
  if (!manifest.ok()) return manifest.status();
  const std::string what = "manifest " + parts.manifest_digest;
  auto config = manifest->is_object() ? manifest->find("config") : manifest->end();
  if (config == manifest->end()) return InvalidArgument(what + " names no config");
  parts.config_digest = StringAt(*config, "digest");
  Result<std::string> config_path = BlobPath(layout_dir, parts.config_digest);
  if (!config_path.ok()) return InvalidArgument(what + ": " + config_path.status().message());
  parts.config_path = *config_path;
  auto layers = manifest->find("layers");
  if (layers == manifest->end() || !layers->is_array()) {
    return InvalidArgument(what + " lists no layers");
  }
  for (const Json& layer : *layers) {
    ImageLayer part;
    part.digest = StringAt(layer, "digest");
    part.name = "layer " + part.digest;
    Result<std::string> path = BlobPath(layout_dir, part.digest);
    if (!path.ok()) return InvalidArgument(what + ": " + path.status().message());
    part.path = *path;
    parts.layers.push_back(std::move(part));
  }
  return parts;
}

Result<ImageParts> ReadDockerArchive(const std::string& archive_dir) {
  const std::string manifest_path = archive_dir + "/manifest.json";
  Result<std::string> text = ReadSmallFile(manifest_path, kMaxJsonBytes);
  if (!text.ok()) return text.status();
  Result<Json> manifest = ParseJson(*text, "the archive's manifest.json");
  if (!manifest.ok()) return manifest.status();
  if (!manifest->is_array() || manifest->empty() || !manifest->front().is_object()) {
    return InvalidArgument("the archive's manifest.json lists no image");
  }
  const Json& image = manifest->front();

  char real_dir[PATH_MAX];
  if (realpath(archive_dir.c_str(), real_dir) == nullptr) {
    return IoError(Errno("cannot resolve " + archive_dir));
  }
  // A path of manifest.json, resolved inside the archive: docker writes
  // repeated layers as links to the first copy, which may be followed, but
  // not out of the archive.
  auto inside = [&](const std::string& raw, const std::string& what) -> Result<std::string> {
    Result<std::string> clean = CleanRelativePath(raw);
    if (!clean.ok() || clean->empty()) {
      return InvalidArgument("the archive's manifest.json: " + what + " '" + raw +
                             "' is not a path inside the archive");
    }
    char resolved[PATH_MAX];
    const std::string path = archive_dir + "/" + *clean;
    if (realpath(path.c_str(), resolved) == nullptr) {
      return NotFound("the archive has no " + what + " '" + raw + "'");
    }
    if (!std::string_view(resolved).starts_with(std::string(real_dir) + "/")) {
      return InvalidArgument("the archive's " + what + " '" + raw + "' leads outside it");
    }
    return std::string(resolved);
  };

  ImageParts parts;
  Result<std::string> config = inside(StringAt(image, "Config"), "config");
  if (!config.ok()) return config.status();
  parts.config_path = *config;
  auto layers = image.find("Layers");
  if (layers == image.end() || !layers->is_array()) {
    return InvalidArgument("the archive's manifest.json lists no layers");
  }
  for (const Json& layer : *layers) {
    const std::string raw = layer.is_string() ? layer.get<std::string>() : "";
    Result<std::string> path = inside(raw, "layer");
    if (!path.ok()) return path.status();
    parts.layers.push_back(ImageLayer{*path, "", "layer " + raw});
  }
  return parts;
}

}  // namespace rota::noded::container
