#pragma once

// Running the built programs from a test: where they are, and a command line
// run through the shell with its output captured. Test-only.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace rota::testing {

// The built programs: $ROTA_BIN_DIR, else the build tree's bin/.
inline std::string BinDir() {
  const char* env = std::getenv("ROTA_BIN_DIR");
  return env != nullptr ? env : ROTA_BINARY_DIR "/bin";
}

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout (and stderr when asked)
};

// One word for sh, whatever it holds.
inline std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `command_line` with sh; its stdout, and its exit code (-1 when it did
// not exit).
inline CommandResult RunShell(const std::string& command_line) {
  CommandResult r;
  FILE* p = popen(command_line.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs built `program` with `args`, under `env` ("NAME=value" words for
// env(1)), stdin from /dev/null, stderr with stdout.
inline CommandResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                                const std::vector<std::string>& env = {}) {
  std::string cmd = "env";
  for (const std::string& e : env) cmd += " " + ShellQuote(e);
  cmd += " " + ShellQuote(BinDir() + "/" + program);
  for (const std::string& a : args) cmd += " " + ShellQuote(a);
  return RunShell(cmd + " </dev/null 2>&1");
}

}  // namespace rota::testing
