#pragma once

// Reading the manifests of the two image formats that come as files: an OCI
// image layout (index.json, blobs/) and a `docker save` archive once it is
// unpacked (manifest.json). Both give what to import: the image config and
// the layers, bottom first.

#include <string>
#include <vector>

#include "common/status.h"

namespace rota::noded::container {

struct ImageLayer {
  std::string path;    // The layer's tar file (compressed or not).
  std::string digest;  // What its content must hash to; empty: not checked.
  std::string name;    // For messages: "layer sha256:ab12..." or "layer abc/layer.tar".
};

struct ImageParts {
  std::string manifest_digest;  // OCI: the chosen manifest's; empty for a docker archive.
  std::string config_path;      // The image config JSON.
  std::string config_digest;    // Empty: not checked.
  std::vector<ImageLayer> layers;
};

// The architecture OCI calls this node's ("amd64", "arm64", ...): the one a
// multi-platform image index is read for.
std::string_view NodeArchitecture();

// The manifest that index.json of `layout_dir` leads to, following nested
// image indexes (the one for linux/NodeArchitecture() when an index lists
// several platforms), and its config and layers. Each JSON blob it reads is
// checked against its digest. Errors name the layout and the blob.
Result<ImageParts> ReadOciLayout(const std::string& layout_dir);

// Only the digest of that manifest: what identifies the image in a layout,
// read without the manifest itself (the image cache's key).
Result<std::string> OciManifestDigest(const std::string& layout_dir);

// The first image of manifest.json in `archive_dir`, a `docker save` tar
// unpacked there. Its paths must stay inside `archive_dir`.
Result<ImageParts> ReadDockerArchive(const std::string& archive_dir);

}  // namespace rota::noded::container
