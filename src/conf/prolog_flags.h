#pragma once

// What slurm.conf's PrologFlags ask of the controller and the node daemons.

#include <algorithm>
#include <string>
#include <vector>

namespace rota::conf {

// PrologFlags=Alloc or Contain (which implies Alloc): every node of a job is
// prepared when the job starts (its cgroup, with an extern step under
// Contain, and the Prolog), not when a step first runs there.
inline bool PrepareEveryNode(const std::vector<std::string>& prolog_flags) {
  return std::any_of(prolog_flags.begin(), prolog_flags.end(),
                     [](const std::string& f) { return f == "Alloc" || f == "Contain"; });
}

}  // namespace rota::conf
