#include "noded/container/container_runtime.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/strings.h"

namespace rota::noded {
namespace {

// `name` in PATH or the usual directories; empty when none is executable.
std::string FindProgram(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    for (std::string_view dir : Split(path, ':')) dirs.emplace_back(dir);
  }
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) dirs.emplace_back(dir);
  for (const std::string& dir : dirs) {
    const std::string candidate = dir + "/" + name;
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// nvidia-container-cli's flag for each driver capability a container may ask
// for (NVIDIA_DRIVER_CAPABILITIES, as NVIDIA's container toolkit reads it).
constexpr const char* kCapabilities[] = {"compute",  "compat32", "display",
                                         "graphics", "utility",  "video"};

std::vector<std::string> CapabilityFlags(std::string_view capabilities) {
  std::vector<std::string> flags;
  const std::string_view asked = Trim(capabilities);
  for (const char* capability : kCapabilities) {
    bool wanted = asked == "all";
    if (asked.empty())
      wanted =
          std::string_view(capability) == "compute" || std::string_view(capability) == "utility";
    for (std::string_view word : Split(asked, ',')) wanted = wanted || Trim(word) == capability;
    if (wanted) flags.push_back(std::string("--") + capability);
  }
  return flags;
}

}  // namespace

ContainerRuntime FindContainerRuntime() {
  ContainerRuntime runtime;
  if (std::string crun = FindProgram("crun"); !crun.empty()) runtime.program = crun;
  runtime.driver_cli = FindProgram("nvidia-container-cli");
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  runtime.driver_hook = (self.parent_path() / "rota-container-hook").string();
  return runtime;
}

std::optional<BundleHook> GpuDriverHook(const ContainerRuntime& runtime,
                                        const std::vector<std::string>& gpus,
                                        std::string_view capabilities, bool rootless,
                                        const std::string& rootfs) {
  if (runtime.driver_cli.empty() || gpus.empty()) return std::nullopt;
  BundleHook hook;
  hook.path = runtime.driver_hook;
  hook.args = {runtime.driver_hook, runtime.driver_cli};
  // Rootless, the CLI works as the user and cannot load the driver's
  // modules; as root it loads them if they are not yet.
  hook.args.emplace_back(rootless ? "--user" : "--load-kmods");
  // --no-cgroups: the task's cage already holds the device rules.
  hook.args.insert(hook.args.end(), {"configure", "--no-cgroups", "--ldconfig=@/sbin/ldconfig"});
  hook.args.push_back("--device=" + Join(gpus, ","));
  for (std::string& flag : CapabilityFlags(capabilities)) hook.args.push_back(std::move(flag));
  hook.args.emplace_back(kContainerPidArgument);
  hook.args.push_back(rootfs);
  return hook;
}

Result<int> ContainerPidOfState(std::string_view state_json) {
  const nlohmann::json state = nlohmann::json::parse(state_json, nullptr, false);
  if (state.is_discarded() || !state.is_object()) {
    return InvalidArgument("the container state on standard input is not a JSON object");
  }
  const auto pid = state.find("pid");
  if (pid == state.end() || !pid->is_number_integer() || pid->get<int64_t>() <= 0) {
    return InvalidArgument("the container state has no process id (\"pid\")");
  }
  return static_cast<int>(pid->get<int64_t>());
}

std::vector<std::string> WithContainerPid(std::vector<std::string> args, int pid) {
  for (std::string& arg : args) {
    if (arg == kContainerPidArgument) arg = "--pid=" + std::to_string(pid);
  }
  return args;
}

}  // namespace rota::noded
