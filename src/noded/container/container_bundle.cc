#include "noded/container/container_bundle.h"

namespace rota::noded {
namespace {

nlohmann::json Mount(std::string_view target, std::string_view type, std::string_view source,
                     std::vector<std::string> options) {
  return {{"destination", target}, {"type", type}, {"source", source}, {"options", options}};
}

// What every container gets: the host's /proc and /sys (a new proc would
// need a process namespace of its own), a private /dev with its own
// pseudo-terminals and shared memory, and the host's name resolution.
nlohmann::json StandardMounts() {
  nlohmann::json mounts = nlohmann::json::array();
  mounts.push_back(Mount("/proc", "bind", "/proc", {"rbind", "nosuid", "noexec", "nodev"}));
  mounts.push_back(Mount("/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755"}));
  mounts.push_back(Mount("/dev/pts", "devpts", "devpts",
                         {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}));
  mounts.push_back(Mount("/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777"}));
  mounts.push_back(Mount("/sys", "bind", "/sys", {"rbind", "nosuid", "noexec", "nodev", "ro"}));
  for (const char* file : {"/etc/hosts", "/etc/resolv.conf"}) {
    mounts.push_back(Mount(file, "bind", file, {"bind", "ro"}));
  }
  return mounts;
}

}  // namespace

nlohmann::json OciRuntimeConfig(const BundleSpec& spec) {
  const bool user_namespace = spec.uid != 0;
  const uint32_t inside_uid = spec.remap_root ? 0 : spec.uid;
  const uint32_t inside_gid = spec.remap_root ? 0 : spec.gid;
  // Root inside (the job's own root, or a remapped user) keeps the default
  // set a runtime gives, only over its own namespace when remapped; anyone
  // else has none.
  std::vector<std::string> caps;
  if (inside_uid == 0) caps = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"};
  nlohmann::json process = {
      {"terminal", false},
      {"user", {{"uid", inside_uid}, {"gid", inside_gid}}},
      {"args", spec.args},
      {"env", spec.env},
      {"cwd", spec.cwd.empty() ? "/" : spec.cwd},
      {"noNewPrivileges", true},
      {"capabilities",
       {{"bounding", caps},
        {"effective", caps},
        {"permitted", caps},
        {"inheritable", nlohmann::json::array()},
        {"ambient", nlohmann::json::array()}}},
  };
  nlohmann::json mounts = StandardMounts();
  for (const BundleMount& m : spec.mounts)
    mounts.push_back(Mount(m.target, "bind", m.source, m.options));
  nlohmann::json namespaces = nlohmann::json::array({{{"type", "mount"}}});
  nlohmann::json linux = {{"namespaces", namespaces}};
  if (user_namespace) {
    linux["namespaces"].push_back({{"type", "user"}});
    linux["uidMappings"] = {{{"containerID", inside_uid}, {"hostID", spec.uid}, {"size", 1}}};
    linux["gidMappings"] = {{{"containerID", inside_gid}, {"hostID", spec.gid}, {"size", 1}}};
  }
  nlohmann::json config = {{"ociVersion", "1.0.2"},
                           {"process", process},
                           {"root", {{"path", spec.rootfs}, {"readonly", spec.readonly}}},
                           {"mounts", mounts},
                           {"linux", linux}};
  for (const BundleHook& hook : spec.prestart) {
    config["hooks"]["prestart"].push_back({{"path", hook.path}, {"args", hook.args}});
  }
  return config;
}

}  // namespace rota::noded
