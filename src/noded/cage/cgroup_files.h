#pragma once

// Reading and writing the small control files of cgroupfs, shared by the v1
// and v2 cages. cgroupfs answers a write with the kernel's verdict, so every
// write is one write(2) whose errno is reported as it came.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::noded::cgroup_files {

// "what: strerror(errno)".
std::string Errno(const std::string& what);

// Writes `text` to `path` in one write(2). Creates the file when missing (the
// plain files of unit tests; cgroupfs files exist already).
Status WriteFile(const std::string& path, const std::string& text);

// The whole file; "" when it cannot be read.
std::string ReadFile(const std::string& path);

// The value of `key` in a flat-keyed file ("populated 1\nfrozen 0\n");
// nullopt when the file or the key is missing.
std::optional<uint64_t> KeyedValue(const std::string& path, std::string_view key);

// mkdir 0755; an existing directory is fine.
Status MakeDir(const std::string& path);

// Removes the cgroup `dir` and those below it, deepest first; a missing one is
// fine. The kernel may hold a cgroup a moment after its last task exited:
// EBUSY is retried for a second.
Status RemoveTree(const std::string& dir);

}  // namespace rota::noded::cgroup_files
