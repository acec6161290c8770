// scontrol: view and change the cluster. This build knows the daemon-free
// subcommands; the ones that talk to rotactld arrive with the controller.
#include <iostream>
#include <string>
#include <vector>

#include "cli/scontrol_hostlist.h"
#include "common/strings.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << "Usage: scontrol show hostnames|hostlist|hostlistsorted EXPRESSION\n";
    return 1;
  }
  if (rota::EqualsIgnoreCase(args[0], "show") && args.size() >= 2) {
    const std::string& entity = args[1];
    for (const char* e : {"hostnames", "hostlist", "hostlistsorted"}) {
      if (rota::EqualsIgnoreCase(entity, e)) {
        return rota::cli::ShowHostlist(e, {args.begin() + 2, args.end()}, std::cout, std::cerr);
      }
    }
  }
  std::string command;
  for (const std::string& a : args) command += (command.empty() ? "" : " ") + a;
  std::cerr << "scontrol: error: '" << command
            << "' needs rotactld, which this build does not provide yet\n";
  return 1;
}
