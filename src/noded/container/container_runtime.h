#pragma once

// The programs a container is run with on this node: the OCI runtime (crun)
// and, when libnvidia-container is installed, its nvidia-container-cli, which
// crun runs through rota-container-hook just before a container with GPUs
// starts, so that the host's driver libraries and tools (libcuda,
// nvidia-smi) appear inside, matching the host's kernel module
// (docs/containers.md). The driver's device files are bind-mounted by Rota
// itself whether or not the CLI is there.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "noded/container/container_bundle.h"

namespace rota::noded {

struct ContainerRuntime {
  std::string program = "crun";
  std::string driver_cli{};   // nvidia-container-cli; empty: not installed, nothing injected
  std::string driver_hook{};  // rota-container-hook
};

// crun and nvidia-container-cli as found in PATH or the usual directories
// (crun: "crun" when none), and rota-container-hook beside the running daemon.
ContainerRuntime FindContainerRuntime();

// The argument of the hook's command line that rota-container-hook replaces
// with the container's process id (which only exists once crun has made it).
inline constexpr std::string_view kContainerPidArgument = "--pid=@PID@";

// The prestart hook that gives a container the driver's user-space side for
// `gpus` (the ids nvidia-container-cli knows them by: UUIDs, or indices),
// with the driver capabilities `capabilities` asks for (the container's
// NVIDIA_DRIVER_CAPABILITIES; empty: compute and utility, "all": every one).
// `rootless`: crun runs as the job's user, so the CLI cannot load kernel
// modules and works in its user mode. Nothing (nullopt) when there is no CLI
// or no GPU.
std::optional<BundleHook> GpuDriverHook(const ContainerRuntime& runtime,
                                        const std::vector<std::string>& gpus,
                                        std::string_view capabilities, bool rootless,
                                        const std::string& rootfs);

// For rota-container-hook: the container's process id from the state crun
// writes on the hook's standard input (OCI runtime spec, "State").
Result<int> ContainerPidOfState(std::string_view state_json);

// `args` with kContainerPidArgument given `pid`.
std::vector<std::string> WithContainerPid(std::vector<std::string> args, int pid);

}  // namespace rota::noded
