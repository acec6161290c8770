#pragma once

// SHA-256 and HMAC-SHA256, the primitives credentials are built from.
//
// They use OpenSSL's low-level SHA-256 rather than the EVP interface: in
// OpenSSL 3, the first EVP call loads and initialises the provider machinery,
// which costs about 2 ms — most of the run time of a command like sbatch.

#include <array>
#include <cstdint>
#include <string_view>

namespace rota::auth {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest Sha256(std::string_view bytes);
Sha256Digest HmacSha256(std::string_view key, std::string_view message);

}  // namespace rota::auth
