#include "cli/submit/container_options.h"

#include <array>
#include <utility>

#include "common/strings.h"

namespace rota::cli {
namespace {

using Toggle = wire::ContainerSpec::Toggle;

// How an option sets the spec.
enum class Kind { kImage, kMounts, kWorkdir, kName, kSave, kEnv, kBundle, kToggleOn, kToggleOff };

struct ContainerOption {
  std::string_view name;
  Kind kind;
  // For the switches: which one.
  Toggle (wire::ContainerSpec::*get)() const = nullptr;
  void (wire::ContainerSpec::*set)(Toggle) = nullptr;
};

using C = wire::ContainerSpec;
constexpr std::array kOptions = {
    ContainerOption{"container-image", Kind::kImage},
    ContainerOption{"container-mounts", Kind::kMounts},
    ContainerOption{"container-workdir", Kind::kWorkdir},
    ContainerOption{"container-name", Kind::kName},
    ContainerOption{"container-save", Kind::kSave},
    ContainerOption{"container-env", Kind::kEnv},
    ContainerOption{"container", Kind::kBundle},
    ContainerOption{"container-writable", Kind::kToggleOn, &C::writable, &C::set_writable},
    ContainerOption{"container-readonly", Kind::kToggleOff, &C::writable, &C::set_writable},
    ContainerOption{"container-mount-home", Kind::kToggleOn, &C::mount_home, &C::set_mount_home},
    ContainerOption{"no-container-mount-home", Kind::kToggleOff, &C::mount_home,
                    &C::set_mount_home},
    ContainerOption{"container-remap-root", Kind::kToggleOn, &C::remap_root, &C::set_remap_root},
    ContainerOption{"no-container-remap-root", Kind::kToggleOff, &C::remap_root,
                    &C::set_remap_root},
    ContainerOption{"container-entrypoint", Kind::kToggleOn, &C::entrypoint, &C::set_entrypoint},
    ContainerOption{"no-container-entrypoint", Kind::kToggleOff, &C::entrypoint,
                    &C::set_entrypoint},
};

const ContainerOption* Find(std::string_view name) {
  for (const ContainerOption& option : kOptions) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

// The mount flags pyxis passes on to the mount: bind propagation and
// read-only or not. Anything else is refused here rather than on the node.
bool IsMountFlag(std::string_view flag) {
  static constexpr std::array<std::string_view, 10> kFlags = {
      "ro", "rw", "bind", "rbind", "private", "rprivate", "slave", "rslave", "shared", "rshared"};
  for (std::string_view known : kFlags) {
    if (flag == known) return true;
  }
  return false;
}

Status ParseMounts(std::string_view value, C& spec) {
  spec.clear_mounts();
  for (std::string_view entry : Split(value, ',')) {
    if (entry.empty()) continue;
    std::vector<std::string_view> parts = Split(entry, ':');
    // SRC alone mounts the path at the same place, as pyxis allows.
    if (parts.size() > 3 || parts[0].empty()) {
      return InvalidArgument("mount '" + std::string(entry) + "' is not SRC[:DST[:FLAGS]]");
    }
    wire::ContainerMount* mount = spec.add_mounts();
    mount->set_source(std::string(parts[0]));
    const std::string_view target = parts.size() > 1 ? parts[1] : parts[0];
    if (target.empty() || (target[0] != '/' && target[0] != '.')) {
      return InvalidArgument("mount '" + std::string(entry) +
                             "': its destination must start with / (or .)");
    }
    mount->set_target(std::string(target));
    if (parts.size() == 3) {
      for (std::string_view flag : Split(parts[2], '+')) {
        if (!IsMountFlag(flag)) {
          return InvalidArgument("mount '" + std::string(entry) + "': unknown flag '" +
                                 std::string(flag) + "'");
        }
        mount->add_flags(std::string(flag));
      }
    }
  }
  return Status::Ok();
}

Status ParseName(std::string_view value, C& spec) {
  const size_t colon = value.rfind(':');
  std::string_view name = value.substr(0, colon);
  C::NameFlag flag = C::AUTO;
  if (colon != std::string_view::npos) {
    const std::string_view text = value.substr(colon + 1);
    if (text == "auto") {
      flag = C::AUTO;
    } else if (text == "create") {
      flag = C::CREATE;
    } else if (text == "exec") {
      flag = C::EXEC;
    } else if (text == "no_exec") {
      flag = C::NO_EXEC;
    } else {
      return InvalidArgument("'" + std::string(text) +
                             "' is not a container name flag (auto, create, exec, no_exec)");
    }
  }
  // The name becomes a directory on the node.
  if (name.empty() || name.find('/') != std::string_view::npos || name == "." || name == "..") {
    return InvalidArgument("'" + std::string(name) + "' is not a container name");
  }
  spec.set_name(std::string(name));
  spec.set_name_flag(flag);
  return Status::Ok();
}

std::string SpankVariable(std::string_view option) {
  std::string name = "SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_" + std::string(option);
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

}  // namespace

bool IsContainerOption(std::string_view name) { return Find(name) != nullptr; }

Status ApplyContainerOption(std::string_view name, std::string_view value, C& spec) {
  const ContainerOption* option = Find(name);
  if (option == nullptr) return NotFound("not a container option: " + std::string(name));
  switch (option->kind) {
    case Kind::kImage:
      if (value.empty()) return InvalidArgument("the image is empty");
      spec.set_image(std::string(value));
      return Status::Ok();
    case Kind::kMounts:
      return ParseMounts(value, spec);
    case Kind::kWorkdir:
      if (value.empty() || value[0] != '/') {
        return InvalidArgument("'" + std::string(value) + "' is not an absolute path");
      }
      spec.set_workdir(std::string(value));
      return Status::Ok();
    case Kind::kName:
      return ParseName(value, spec);
    case Kind::kSave:
      if (value.empty()) return InvalidArgument("the file to save to is empty");
      spec.set_save(std::string(value));
      return Status::Ok();
    case Kind::kEnv:
      spec.clear_env();
      for (std::string_view variable : Split(value, ',')) {
        if (!variable.empty()) spec.add_env(std::string(variable));
      }
      return Status::Ok();
    case Kind::kBundle:
      if (value.empty()) return InvalidArgument("the bundle path is empty");
      spec.set_bundle(std::string(value));
      return Status::Ok();
    case Kind::kToggleOn:
      (spec.*option->set)(C::ON);
      return Status::Ok();
    case Kind::kToggleOff:
      (spec.*option->set)(C::OFF);
      return Status::Ok();
  }
  return Status::Ok();
}

std::map<std::string, std::string> ContainerSpankEnvironment(const C& spec) {
  std::map<std::string, std::string> env;
  if (spec.image().empty()) return env;
  env[SpankVariable("container-image")] = spec.image();
  if (!spec.workdir().empty()) env[SpankVariable("container-workdir")] = spec.workdir();
  if (!spec.name().empty()) {
    static constexpr std::array<std::string_view, 4> kFlags = {"auto", "create", "exec", "no_exec"};
    env[SpankVariable("container-name")] =
        spec.name() + ":" + std::string(kFlags[static_cast<size_t>(spec.name_flag())]);
  }
  if (spec.mounts_size() > 0) {
    std::vector<std::string> mounts;
    for (const wire::ContainerMount& mount : spec.mounts()) {
      std::string text = mount.source() + ":" + mount.target();
      if (mount.flags_size() > 0)
        text += ":" + Join({mount.flags().begin(), mount.flags().end()}, "+");
      mounts.push_back(std::move(text));
    }
    env[SpankVariable("container-mounts")] = Join(mounts, ",");
  }
  if (spec.env_size() > 0)
    env[SpankVariable("container-env")] = Join({spec.env().begin(), spec.env().end()}, ",");
  for (const ContainerOption& option : kOptions) {
    if (option.get == nullptr) continue;
    const bool on = option.kind == Kind::kToggleOn;
    if ((spec.*option.get)() == (on ? C::ON : C::OFF)) env[SpankVariable(option.name)] = "";
  }
  return env;
}

Result<C> ContainerSpecFromSpankEnvironment(
    const std::map<std::string, std::string, std::less<>>& env) {
  C spec;
  for (const ContainerOption& option : kOptions) {
    auto it = env.find(SpankVariable(option.name));
    if (it == env.end()) continue;
    ROTA_RETURN_IF_ERROR(ApplyContainerOption(option.name, it->second, spec));
  }
  if (spec.image().empty()) return C();
  return spec;
}

}  // namespace rota::cli
