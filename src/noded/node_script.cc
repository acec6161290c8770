#include "noded/node_script.h"

#include <glob.h>
#include <sys/wait.h>

#include "common/captured_program.h"
#include "common/strings.h"

namespace rota::noded {
namespace {

std::string FirstLine(const std::string& output) {
  for (std::string_view line : Split(output, '\n')) {
    std::string_view t = Trim(line);
    if (!t.empty()) return std::string(t.substr(0, 200));
  }
  return "";
}

}  // namespace

ScriptOutcome RunNodeScript(const std::string& program, const std::vector<std::string>& environment,
                            std::chrono::seconds timeout, std::string_view what) {
  const std::string name(what);
  CapturedRun run = RunCaptured({program}, environment, timeout);
  const int status = run.wait_status;
  if (!run.start_error.empty()) return {false, name + ": " + run.start_error};
  if (run.timed_out) return {false, name + " timed out"};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {true, ""};
  std::string line = FirstLine(run.output);
  if (!line.empty()) return {false, line};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return {false, name + " could not be run"};
  return {false, WIFEXITED(status)
                     ? name + " exited with status " + std::to_string(WEXITSTATUS(status))
                     : name + " killed by signal " + std::to_string(WTERMSIG(status))};
}

std::vector<std::string> ExpandScriptPattern(const std::string& pattern) {
  if (pattern.find_first_of("*?[") == std::string::npos) return {pattern};
  std::vector<std::string> paths;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) paths.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  return paths;  // Sorted by glob: the order an administrator expects.
}

}  // namespace rota::noded
