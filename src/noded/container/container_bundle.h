#pragma once

// The OCI runtime configuration (config.json) of one task's container: what
// crun is told to make. Pure; the values come from step_container.h.
//
// The container shares the host's network, hostname, IPC and process ids, as
// pyxis' enroot containers do (MPI and NCCL see the node as it is, and the
// task's cage and proctrack see its processes). It gets a mount namespace,
// and, for a user other than root, a user namespace mapping only that user
// (to itself, or to root inside with remap-root): no subordinate ids needed.
// No cgroup is made: the task is already in its cage when crun starts.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rota::noded {

struct BundleMount {
  std::string source;                // On the host
  std::string target;                // Inside
  std::vector<std::string> options;  // mount(8) words: bind, rbind, ro, nosuid, rprivate, ...
};

// A program the runtime runs once the container exists, before its process
// starts (OCI "prestart"), with the container's state on its standard input.
struct BundleHook {
  std::string path;               // Absolute, on the host
  std::vector<std::string> args;  // args[0] included
};

struct BundleSpec {
  std::string rootfs;  // Absolute path of the container's root on the host
  bool readonly = false;
  std::vector<std::string> args;  // The process, args[0] looked up in env's PATH inside
  std::vector<std::string> env;   // NAME=value
  std::string cwd = "/";
  uint32_t uid = 0;  // The job's user and group on the host
  uint32_t gid = 0;
  bool remap_root = false;          // The user is uid 0 inside
  std::vector<BundleMount> mounts;  // After the standard ones: user mounts, devices, home
  std::vector<BundleHook> prestart;
};

// What starts one task in its container: the host command, and the
// config.json the runtime reads (where a TaskProlog's variables are passed
// in, stepd/task_starter.h).
struct ContainerCommand {
  std::vector<std::string> argv;
  std::string config;  // config.json's path
};

// config.json for `spec`.
nlohmann::json OciRuntimeConfig(const BundleSpec& spec);

}  // namespace rota::noded
