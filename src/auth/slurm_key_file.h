#pragma once

// The auth/slurm shared secret: slurm.key, read once at start-up.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::auth {

// Key material, wiped from memory when the last holder lets go.
class SlurmKey {
 public:
  static constexpr size_t kMinBytes = 32;       // 256 bits, HMAC-SHA256's strength.
  static constexpr size_t kMaxBytes = 1 << 20;  // Refuse to slurp a wrong, huge file.

  // REQUIRES: kMinBytes <= bytes.size() <= kMaxBytes (tests build keys directly).
  explicit SlurmKey(std::string_view bytes);
  ~SlurmKey();
  SlurmKey(const SlurmKey&) = delete;
  SlurmKey& operator=(const SlurmKey&) = delete;

  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Reads the key file at `path`. Refuses (kPermissionDenied, naming the path and
// mode) a file that anyone but its owner may read or write: the mode must be
// exactly 0400 or 0600, since whoever reads the key can forge any identity.
// Refuses (kInvalidArgument) a key shorter than SlurmKey::kMinBytes, and
// anything that is not a regular file. When open(2) itself fails, `*open_errno`
// (if not null) is its errno (EACCES: the caller may not read the key, see
// MakeIssuer); otherwise 0.
Result<std::shared_ptr<const SlurmKey>> LoadSlurmKey(const std::string& path,
                                                     int* open_errno = nullptr);

}  // namespace rota::auth
