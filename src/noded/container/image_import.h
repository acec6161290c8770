#pragma once

// Importing a container image into a directory: its root file system
// unpacked into DEST/rootfs and its ImageConfig written to DEST/image.json.
// This is the work of rota-image, which rotad runs as the job's user so that
// the user owns the rootfs (as with enroot) and reads the image with the
// user's own permissions.
//
// Squashfs files are unpacked by unsquashfs; OCI image layouts and docker
// archives by LayerApplier (image_layer.h), their blobs checked against their
// digests; registry images are pulled with skopeo into an OCI layout first.

#include <string>
#include <string_view>

#include "common/status.h"
#include "noded/container/image_config.h"

namespace rota::noded::container {

// Imports `ref` (image_ref.h) into `dest_dir`, which is made when missing.
// Takes as long as unpacking (or pulling) takes.
// REQUIRES: dest_dir/rootfs does not exist; the process is single-threaded
// (LayerApplier changes the working directory for a while).
// On failure nothing of the import is left in dest_dir: no rootfs, no
// image.json. Errors name the image: "image 'REF' ...".
Status ImportImage(std::string_view ref, const std::string& dest_dir);

}  // namespace rota::noded::container
