// rota-task TASK_PROLOG COMMAND [ARG...]: runs the TaskProlog in the task's
// own process, then becomes the task (task_starter.h). Started by rotad and
// rota-stepd, never by users.
#include <unistd.h>

#include <string>
#include <vector>

#include "noded/stepd/task_starter.h"

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  std::vector<std::string> command(argv + 2, argv + argc);
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  // Returns only when the command could not be started.
  return rota::noded::StartTaskAfterProlog(argv[1], command, std::move(env));
}
