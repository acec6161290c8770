// The low-level SHA-256 functions are deprecated in OpenSSL 3 in favour of EVP,
// whose start-up cost short-lived commands cannot afford (see sha256.h).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "auth/sha256.h"

#include <openssl/sha.h>

#include <cstring>

namespace rota::auth {
namespace {

constexpr size_t kBlockSize = 64;

void Update(SHA256_CTX& ctx, std::string_view bytes) {
  SHA256_Update(&ctx, bytes.data(), bytes.size());
}

}  // namespace

Sha256Digest Sha256(std::string_view bytes) {
  Sha256Digest digest;
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  Update(ctx, bytes);
  SHA256_Final(digest.data(), &ctx);
  return digest;
}

// RFC 2104: H((K ^ opad) || H((K ^ ipad) || message)).
Sha256Digest HmacSha256(std::string_view key, std::string_view message) {
  std::array<uint8_t, kBlockSize> block{};
  if (key.size() > kBlockSize) {
    Sha256Digest hashed = Sha256(key);
    std::memcpy(block.data(), hashed.data(), hashed.size());
  } else {
    std::memcpy(block.data(), key.data(), key.size());
  }
  std::array<uint8_t, kBlockSize> inner_pad;
  std::array<uint8_t, kBlockSize> outer_pad;
  for (size_t i = 0; i < kBlockSize; ++i) {
    inner_pad[i] = block[i] ^ 0x36;
    outer_pad[i] = block[i] ^ 0x5c;
  }
  Sha256Digest inner;
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, inner_pad.data(), inner_pad.size());
  Update(ctx, message);
  SHA256_Final(inner.data(), &ctx);
  Sha256Digest mac;
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, outer_pad.data(), outer_pad.size());
  SHA256_Update(&ctx, inner.data(), inner.size());
  SHA256_Final(mac.data(), &ctx);
  return mac;
}

}  // namespace rota::auth
