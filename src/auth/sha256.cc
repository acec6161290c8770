#include "auth/sha256.h"

#include <openssl/sha.h>

namespace rota::auth {

Sha256Digest Sha256(std::string_view bytes) {
  Sha256Digest digest;
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest.data());
  return digest;
}

}  // namespace rota::auth
