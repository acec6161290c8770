#include "noded/gpu/discovery/gpu_type_name.h"

#include <cctype>

#include "common/strings.h"

namespace rota::noded {
namespace {

bool KeptInType(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::string GpuTypeFromProductName(std::string_view product) {
  std::string lower = ToLower(Trim(product));
  std::string_view rest = lower;
  constexpr std::string_view kVendor = "nvidia ";
  if (rest.substr(0, kVendor.size()) == kVendor) rest.remove_prefix(kVendor.size());
  std::string out;
  bool pending_space = false;
  for (char c : rest) {
    if (IsSpace(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (!KeptInType(c)) continue;
    if (pending_space) out += '_';
    pending_space = false;
    out += c;
  }
  return out;
}

std::string MigProfileFromName(std::string_view mig_device_name) {
  constexpr std::string_view kMarker = " MIG ";
  size_t at = mig_device_name.find(kMarker);
  if (at == std::string_view::npos) return "";
  return GpuTypeFromProductName(mig_device_name.substr(at + kMarker.size()));
}

}  // namespace rota::noded
