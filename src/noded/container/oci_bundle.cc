#include "noded/container/oci_bundle.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace rota::noded {
namespace {

// rotad reads the file as root: only what the user could read themselves.
bool ReadableBy(const struct stat& st, uid_t uid, gid_t gid) {
  if (uid == 0) return true;
  if (st.st_uid == uid) return (st.st_mode & S_IRUSR) != 0;
  if (st.st_gid == gid) return (st.st_mode & S_IRGRP) != 0;
  return (st.st_mode & S_IROTH) != 0;
}

}  // namespace

Result<std::vector<std::string>> OciBundleCommand(const OciConf& oci, OciBundleTask task) {
  const std::string source = task.bundle + "/config.json";
  struct stat st {};
  if (task.bundle.empty() || task.bundle[0] != '/') {
    return InvalidArgument("--container=" + task.bundle + ": the bundle path is not absolute");
  }
  if (stat(source.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return NotFound("--container: " + source + " does not exist");
  }
  if (!ReadableBy(st, task.uid, task.gid)) {
    return InvalidArgument("--container: " + source + " is not readable by the job's user");
  }
  std::ifstream in(source);
  nlohmann::json config = nlohmann::json::parse(in, nullptr, false);
  if (config.is_discarded() || !config.is_object() || !config.contains("root") ||
      !config["root"].is_object()) {
    return InvalidArgument("--container: " + source + " is not an OCI runtime configuration");
  }
  // The task's process; the rest (mounts, namespaces, user) is the bundle's.
  nlohmann::json& process = config["process"];
  if (!process.is_object()) process = nlohmann::json::object();
  process["args"] = task.argv;
  std::vector<std::string> env;
  const std::optional<std::regex> exclude =
      oci.env_exclude.empty() ? std::nullopt : std::optional<std::regex>(oci.env_exclude);
  for (const std::string& entry : task.env) {
    if (exclude && std::regex_match(entry.substr(0, entry.find('=')), *exclude)) continue;
    env.push_back(entry);
  }
  process["env"] = env;
  if (!process.contains("cwd")) process["cwd"] = "/";
  std::string root = config["root"].value("path", "rootfs");
  if (root.empty() || root[0] != '/') root = task.bundle + "/" + root;
  config["root"]["path"] = root;

  if (mkdir(task.task_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return IoError("cannot create " + task.task_dir + ": " + std::strerror(errno));
  }
  if (chown(task.task_dir.c_str(), task.uid, task.gid) != 0) {
    return IoError("cannot set the owner of " + task.task_dir + ": " + std::strerror(errno));
  }
  {
    std::ofstream out(task.task_dir + "/config.json", std::ios::trunc);
    out << config.dump(1);
    if (!out) return IoError("cannot write " + task.task_dir + "/config.json");
  }
  task.pattern.bundle = task.task_dir;
  task.pattern.rootfs = root;
  return std::vector<std::string>{"/bin/sh", "-c", ExpandOciPattern(oci.run, task.pattern)};
}

}  // namespace rota::noded
