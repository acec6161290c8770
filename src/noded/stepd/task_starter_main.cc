// rota-task [--container-config=PATH] TASK_PROLOG COMMAND [ARG...]: runs the
// TaskProlog in the task's own process, then becomes the task (task_starter.h).
// Started by rotad and rota-stepd, never by users.
#include <unistd.h>

#include <string>
#include <string_view>
#include <vector>

#include "noded/stepd/task_starter.h"

int main(int argc, char** argv) {
  constexpr std::string_view kConfigFlag = "--container-config=";
  int first = 1;
  std::string container_config;
  if (argc > 1 && std::string_view(argv[1]).starts_with(kConfigFlag)) {
    container_config = argv[1] + kConfigFlag.size();
    first = 2;
  }
  if (argc < first + 2) return 2;
  std::vector<std::string> command(argv + first + 1, argv + argc);
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  // Returns only when the command could not be started.
  return rota::noded::StartTaskAfterProlog(argv[first], command, std::move(env), container_config);
}
