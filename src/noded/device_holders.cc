#include "noded/device_holders.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>

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

// Runs at the end of every GPU job, so it stays on plain readdir/readlink:
// std::filesystem's iterators cost several times more per descriptor.
std::vector<pid_t> ProcessesHolding(const std::string& path, const std::string& proc_root) {
  char resolved[PATH_MAX];
  std::string target = realpath(path.c_str(), resolved) != nullptr ? resolved : path;
  std::vector<pid_t> holders;
  Dir procs(opendir(proc_root.c_str()));
  if (!procs) return holders;
  std::string fd_dir;
  char link[PATH_MAX];
  while (dirent* p = readdir(procs.get())) {
    if (!AllDigits(p->d_name)) continue;
    fd_dir = proc_root + "/" + p->d_name + "/fd";
    Dir fds(opendir(fd_dir.c_str()));
    if (!fds) continue;  // Gone, or not ours to read.
    while (dirent* f = readdir(fds.get())) {
      if (!AllDigits(f->d_name)) continue;
      std::string entry = fd_dir + "/" + f->d_name;
      ssize_t n = readlink(entry.c_str(), link, sizeof link - 1);
      if (n <= 0) continue;
      if (static_cast<size_t>(n) == target.size() && std::memcmp(link, target.data(), n) == 0) {
        holders.push_back(static_cast<pid_t>(atoi(p->d_name)));
        break;
      }
    }
  }
  std::sort(holders.begin(), holders.end());
  return holders;
}

}  // namespace rota::noded
