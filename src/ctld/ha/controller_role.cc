#include "ctld/ha/controller_role.h"

#include <unistd.h>

#include <climits>

#include "common/strings.h"

namespace rota::ctld {

std::string ShortHostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  std::string host(name);
  return host.substr(0, host.find('.'));
}

Result<size_t> ControllerIndex(const conf::ClusterConfig& config, std::string_view host) {
  const auto& controllers = config.settings.controllers;
  if (controllers.size() <= 1) return size_t{0};
  std::vector<std::string> names;
  // Compared up to the first dot on both sides: a line may name the host
  // fully qualified and the host know itself by its short name, or the reverse.
  const auto short_name = [](std::string_view name) { return name.substr(0, name.find('.')); };
  for (size_t i = 0; i < controllers.size(); ++i) {
    if (short_name(controllers[i].name) == short_name(host)) return i;
    names.push_back(controllers[i].name);
  }
  return InvalidArgument("this host (" + std::string(host) +
                         ") is none of the SlurmctldHost lines (" + Join(names, ", ") +
                         "): a controller runs on the host its line names");
}

}  // namespace rota::ctld
