#include "noded/container/oci_bundle.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "conf/diagnostics.h"

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

Result<ContainerCommand> OciBundleCommand(const OciConf& oci, OciBundleTask task) {
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
  for (const std::string& file : task.host_files) {
    config["mounts"].push_back(
        {{"destination", file}, {"type", "bind"}, {"source", file}, {"options", {"bind", "ro"}}});
  }
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
  return ContainerCommand{{"/bin/sh", "-c", ExpandOciPattern(oci.run, task.pattern)},
                          task.task_dir + "/config.json"};
}

Result<ContainerCommand> NodeOciBundleCommand(const std::string& slurm_conf_path,
                                              const std::string& containers_dir,
                                              OciBundleTask task) {
  conf::Diagnostics diags;
  const std::string path =
      (std::filesystem::path(slurm_conf_path).parent_path() / "oci.conf").string();
  Result<OciConf> oci = LoadOciConf(path, diags);
  for (const conf::Diagnostic& d : diags.all()) spdlog::warn("{}", d.ToString());
  if (!oci.ok()) return FailedPrecondition("--container: this node has no " + path);
  if (diags.has_errors()) return FailedPrecondition("--container: " + path + " has errors");
  if (oci->run.empty()) return FailedPrecondition("--container: " + path + " has no RunTimeRun");
  const std::string job_dir = containers_dir + "/job_" + std::to_string(task.pattern.job_id);
  for (const std::string& dir : {containers_dir, job_dir}) {
    if (mkdir(dir.c_str(), 0711) != 0 && errno != EEXIST) {
      return IoError("cannot create " + dir + ": " + std::strerror(errno));
    }
  }
  task.task_dir = job_dir + "/oci_" + std::to_string(task.pattern.step_id) + "_" +
                  std::to_string(task.pattern.task_id);
  return OciBundleCommand(*oci, std::move(task));
}

}  // namespace rota::noded
