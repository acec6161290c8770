#include "noded/gpu/device_holders.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>

namespace rota::noded {
namespace {

bool AllDigits(const char* s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s) {
    if (*s < '0' || *s > '9') return false;
  }
  return true;
}

struct DirCloser {
  void operator()(DIR* d) const { closedir(d); }
};
using Dir = std::unique_ptr<DIR, DirCloser>;

}  // namespace

// Runs at the end of every GPU job, so it stays on plain readdir/readlinkat:
// std::filesystem's iterators cost several times more per descriptor, and a
// full path per descriptor made the kernel walk /proc/PID/fd/ again for each.
// One walk serves all of a job's GPUs.
std::vector<std::vector<pid_t>> ProcessesHoldingAny(const std::vector<std::string>& paths,
                                                    const std::string& proc_root) {
  std::vector<std::string> targets;
  for (const std::string& path : paths) {
    char resolved[PATH_MAX];
    targets.push_back(realpath(path.c_str(), resolved) != nullptr ? resolved : path);
  }
  std::vector<std::vector<pid_t>> holders(paths.size());
  Dir procs(opendir(proc_root.c_str()));
  if (!procs || targets.empty()) return holders;
  std::vector<bool> held(targets.size());
  char link[PATH_MAX];
  while (dirent* p = readdir(procs.get())) {
    if (!AllDigits(p->d_name)) continue;
    const std::string fd_dir = std::string(p->d_name) + "/fd";
    int dir_fd = openat(dirfd(procs.get()), fd_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) continue;  // Gone, or not ours to read.
    Dir fds(fdopendir(dir_fd));
    if (!fds) {
      close(dir_fd);
      continue;
    }
    std::fill(held.begin(), held.end(), false);
    size_t found = 0;
    while (found < targets.size()) {
      dirent* f = readdir(fds.get());
      if (f == nullptr) break;
      if (!AllDigits(f->d_name)) continue;
      ssize_t n = readlinkat(dir_fd, f->d_name, link, sizeof link - 1);
      if (n <= 0) continue;
      const std::string_view linked(link, static_cast<size_t>(n));
      for (size_t i = 0; i < targets.size(); ++i) {
        if (held[i] || linked != targets[i]) continue;
        held[i] = true;
        ++found;
        holders[i].push_back(static_cast<pid_t>(atoi(p->d_name)));
      }
    }
  }
  for (std::vector<pid_t>& h : holders) std::sort(h.begin(), h.end());
  return holders;
}

std::vector<pid_t> ProcessesHolding(const std::string& path, const std::string& proc_root) {
  return ProcessesHoldingAny({path}, proc_root).front();
}

}  // namespace rota::noded
