#include "common/daemon_command_line.h"

namespace rota {

std::optional<int> ParseDaemonCommandLine(int argc, char** argv, const char* program,
                                          void (*usage)(FILE*), const DaemonOptions& own,
                                          DaemonCommandLine& out) {
  std::vector<option> long_options = own.long_options;
  long_options.push_back({"config", required_argument, nullptr, 'f'});
  long_options.push_back({"help", no_argument, nullptr, 'h'});
  long_options.push_back({nullptr, 0, nullptr, 0});
  const std::string short_options = "f:hDv" + own.short_options;
  optind = 1;  // From the start, whoever parsed before (tests parse many times)
  int c;
  while ((c = getopt_long(argc, argv, short_options.c_str(), long_options.data(), nullptr)) != -1) {
    switch (c) {
      case 'f':
        out.slurm_conf_path = optarg;
        break;
      case 'D':
        break;
      case 'v':
        out.log_level = "debug";
        break;
      case 'h':
        usage(stdout);
        return 0;
      case '?':
      case ':':
        usage(stderr);
        return 1;
      default:
        own.apply(c, optarg);
    }
  }
  if (optind < argc) {
    std::fprintf(stderr, "%s: unexpected argument '%s'\n", program, argv[optind]);
    return 1;
  }
  return std::nullopt;
}

}  // namespace rota
