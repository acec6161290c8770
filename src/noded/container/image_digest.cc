#include "noded/container/image_digest.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "noded/container/image_files.h"

namespace rota::noded::container {
namespace {

std::string Hex(const unsigned char* bytes, unsigned int size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 0xf]);
  }
  return out;
}

struct ParsedDigest {
  const EVP_MD* md = nullptr;
  std::string_view algorithm;
  std::string_view hex;
};

Result<ParsedDigest> ParseDigest(std::string_view digest) {
  const size_t colon = digest.find(':');
  ParsedDigest parsed;
  if (colon != std::string_view::npos) {
    parsed.algorithm = digest.substr(0, colon);
    parsed.hex = digest.substr(colon + 1);
  }
  size_t hex_size = 0;
  if (parsed.algorithm == "sha256") {
    parsed.md = EVP_sha256();
    hex_size = 64;
  } else if (parsed.algorithm == "sha512") {
    parsed.md = EVP_sha512();
    hex_size = 128;
  }
  bool hex_ok = parsed.md != nullptr && parsed.hex.size() == hex_size;
  for (char c : parsed.hex) hex_ok = hex_ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (!hex_ok) {
    return InvalidArgument("'" + std::string(digest) +
                           "' is not a digest of the form sha256:<64 hex digits>");
  }
  return parsed;
}

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), out, &size, EVP_sha256(), nullptr);
  return Hex(out, size);
}

Result<std::string> BlobPath(const std::string& layout_dir, std::string_view digest) {
  Result<ParsedDigest> parsed = ParseDigest(digest);
  if (!parsed.ok()) return parsed.status();
  return layout_dir + "/blobs/" + std::string(parsed->algorithm) + "/" + std::string(parsed->hex);
}

Status VerifyDigest(const std::string& path, std::string_view digest, std::string_view what) {
  Result<ParsedDigest> parsed = ParseDigest(digest);
  if (!parsed.ok()) return parsed.status();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(Errno("cannot open " + std::string(what)));
  DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (context == nullptr || EVP_DigestInit_ex(context.get(), parsed->md, nullptr) != 1) {
    close(fd);
    return Internal("cannot start a digest");
  }
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status error = IoError(Errno("cannot read " + std::string(what)));
      close(fd);
      return error;
    }
    if (n == 0) break;
    EVP_DigestUpdate(context.get(), buf, static_cast<size_t>(n));
  }
  close(fd);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_DigestFinal_ex(context.get(), out, &size);
  const std::string actual = Hex(out, size);
  if (actual != parsed->hex) {
    return Status(StatusCode::kCorruption, std::string(what) + " does not match its digest " +
                                               std::string(digest) + " (its content hashes to " +
                                               std::string(parsed->algorithm) + ":" + actual + ")");
  }
  return Status::Ok();
}

}  // namespace rota::noded::container
