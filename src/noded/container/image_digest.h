#pragma once

// Content digests as OCI images name their blobs ("sha256:<hex>"), and the
// hex SHA-256 of text that the image cache uses for its keys.

#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::noded::container {

// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// The path of the blob `digest` names in the OCI image layout `layout_dir`
// (blobs/<algorithm>/<hex>). Only sha256 and sha512 with hex of the right
// length are accepted, so a digest cannot name a path outside blobs/.
// Errors: kInvalidArgument naming the digest.
Result<std::string> BlobPath(const std::string& layout_dir, std::string_view digest);

// Checks that the file `path` hashes to `digest` ("sha256:<hex>" or
// "sha512:<hex>"). Errors: kCorruption naming `what` and both digests on a
// mismatch; kInvalidArgument for a digest of another form; kIoError.
Status VerifyDigest(const std::string& path, std::string_view digest, std::string_view what);

}  // namespace rota::noded::container
