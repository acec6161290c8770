// rota-container-hook: an OCI prestart hook for crun (container_runtime.h).
//
//   rota-container-hook PROGRAM ARG...
//
// Reads the container's state from standard input, as the runtime writes it
// for its hooks, and runs PROGRAM with ARG..., the argument --pid=@PID@ given
// the container's process id. nvidia-container-cli needs that id to enter
// the container's namespaces, and it is known only once crun has made the
// container, so it cannot be written in config.json beforehand.

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "noded/container/container_runtime.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: rota-container-hook PROGRAM ARG... < container-state.json\n");
    return 2;
  }
  const std::string state(std::istreambuf_iterator<char>(std::cin), {});
  rota::Result<int> pid = rota::noded::ContainerPidOfState(state);
  if (!pid.ok()) {
    std::fprintf(stderr, "rota-container-hook: %s\n", pid.status().message().c_str());
    return 1;
  }
  std::vector<std::string> args =
      rota::noded::WithContainerPid(std::vector<std::string>(argv + 1, argv + argc), *pid);
  std::vector<char*> exec_args;
  for (std::string& arg : args) exec_args.push_back(arg.data());
  exec_args.push_back(nullptr);
  execv(exec_args[0], exec_args.data());
  std::fprintf(stderr, "rota-container-hook: cannot run %s: %s\n", argv[1], std::strerror(errno));
  return 1;
}
