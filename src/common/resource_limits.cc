#include "common/resource_limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <limits>

#include "common/strings.h"

namespace rota {
namespace {

struct Named {
  std::string_view name;
  int resource;
};

constexpr Named kLimits[] = {
    {"AS", RLIMIT_AS},         {"CORE", RLIMIT_CORE},   {"CPU", RLIMIT_CPU},
    {"DATA", RLIMIT_DATA},     {"FSIZE", RLIMIT_FSIZE}, {"MEMLOCK", RLIMIT_MEMLOCK},
    {"NOFILE", RLIMIT_NOFILE}, {"NPROC", RLIMIT_NPROC}, {"RSS", RLIMIT_RSS},
    {"STACK", RLIMIT_STACK},
};

bool Listed(const std::vector<std::string>& list, std::string_view name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& item) { return EqualsIgnoreCase(item, name); });
}

}  // namespace

const std::vector<std::string_view>& ResourceLimitNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const Named& l : kLimits) out.push_back(l.name);
    return out;
  }();
  return names;
}

std::optional<int> ResourceOfLimit(std::string_view name) {
  for (const Named& l : kLimits) {
    if (EqualsIgnoreCase(l.name, name)) return l.resource;
  }
  return std::nullopt;
}

std::vector<std::string> PropagatedLimitNames(const std::vector<std::string>& propagate,
                                              const std::vector<std::string>& except) {
  std::vector<std::string> out;
  const bool all = propagate.empty() || Listed(propagate, "ALL");
  if (!all && Listed(propagate, "NONE")) return out;
  for (const Named& l : kLimits) {
    if (all ? !Listed(except, l.name) : Listed(propagate, l.name)) out.emplace_back(l.name);
  }
  return out;
}

std::vector<CapturedLimit> CaptureSoftLimits(const std::vector<std::string>& names) {
  std::vector<CapturedLimit> out;
  for (const std::string& name : names) {
    std::optional<int> resource = ResourceOfLimit(name);
    rlimit r{};
    if (!resource || getrlimit(static_cast<__rlimit_resource_t>(*resource), &r) != 0) continue;
    out.push_back({name, r.rlim_cur == RLIM_INFINITY ? std::numeric_limits<uint64_t>::max()
                                                     : static_cast<uint64_t>(r.rlim_cur)});
  }
  return out;
}

}  // namespace rota
