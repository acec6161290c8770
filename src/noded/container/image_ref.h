#pragma once

// What a step's --container-image names: a file or directory on the node, or
// an image in a registry, in the forms pyxis and enroot accept.
//
// A reference that starts with '/' or '.' is a path: relative ones are
// resolved against this process's working directory, so a caller with a
// step's working directory in mind makes them absolute first. Anything else
// is a registry reference, [docker://][USER@][REGISTRY#]IMAGE[:TAG] or
// IMAGE@sha256:<hex>, as enroot writes them.

#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::noded::container {

enum class ImageKind {
  kSquashfs,       // A squashfs file (enroot's and pyxis' own .sqsh images).
  kOciLayout,      // A directory in the OCI image layout (skopeo copy ... oci:DIR).
  kDockerArchive,  // A tar file as `docker save` writes it.
  kRegistry,       // An image to pull from a registry.
};

// "squashfs", "oci-layout", "docker-archive", "registry".
std::string_view ImageKindName(ImageKind kind);

// True when `ref` names a path rather than a registry image.
bool IsImagePath(std::string_view ref);

// What `ref` is. Files are told apart by content, not name: a squashfs starts
// with "hsqs", a docker archive is a tar (possibly compressed) with
// manifest.json at its top, an OCI layout is a directory with oci-layout and
// index.json. Only reads headers: cheap enough for every step.
// Errors: kNotFound for a path that does not exist; kInvalidArgument for an
// existing path of none of these formats, or a reference that is neither a
// path nor a registry name; kPermissionDenied, kIoError. Each names `ref`.
Result<ImageKind> ClassifyImage(std::string_view ref);

// The source skopeo pulls a registry reference from: "docker://" and the
// reference with enroot's REGISTRY#IMAGE written REGISTRY/IMAGE
// ("nvcr.io#nvidia/pytorch:24.01-py3" -> "docker://nvcr.io/nvidia/pytorch:24.01-py3").
// Errors: kInvalidArgument for USER@ credentials (not supported: the user's
// own skopeo login is used) or a malformed reference.
Result<std::string> RegistrySource(std::string_view ref);

}  // namespace rota::noded::container
