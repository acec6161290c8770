#pragma once

// Reading and writing the small control files of cgroupfs, shared by the v1
// and v2 cages. cgroupfs answers a write with the kernel's verdict, so every
// write is one write(2) whose errno is reported as it came.

#include <string>

#include "common/status.h"

namespace rota::noded::cgroup_files {

// "what: strerror(errno)".
std::string Errno(const std::string& what);

// Writes `text` to `path` in one write(2). Creates the file when missing (the
// plain files of unit tests; cgroupfs files exist already).
Status WriteFile(const std::string& path, const std::string& text);

// The whole file; "" when it cannot be read.
std::string ReadFile(const std::string& path);

// mkdir 0755; an existing directory is fine.
Status MakeDir(const std::string& path);

// Removes the cgroup `dir` and those below it, deepest first; a missing one is
// fine. The kernel may hold a cgroup a moment after its last task exited:
// EBUSY is retried for a second.
Status RemoveTree(const std::string& dir);

}  // namespace rota::noded::cgroup_files
