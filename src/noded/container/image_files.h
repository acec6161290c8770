#pragma once

// The file system chores of image import and the image cache: reading small
// files that may be anybody's, removing trees without following links,
// measuring them, finding helper programs. rotad calls some of these as root
// on directories a user owns, so none follows a symbolic link where that
// would let the user point it elsewhere.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::noded::container {

// "what: strerror(errno)".
std::string Errno(const std::string& what);

// The whole of `path`, a regular file of at most `max_bytes`. Opened without
// blocking (a FIFO in its place is refused, not waited on); with
// `follow_links` false a symbolic link is refused too.
// Errors: kNotFound, kInvalidArgument (not a regular file, too big), kIoError.
Result<std::string> ReadSmallFile(const std::string& path, uint64_t max_bytes,
                                  bool follow_links = true);

// Writes `text` to `path` through a temporary file beside it and a rename,
// so a reader sees the old content or the new, never a part.
Status WriteFileReplacing(const std::string& path, const std::string& text);

// Removes `path` and, for a directory, everything in it. Works from opened
// directories (openat, unlinkat), never through a symbolic link: a link in
// the tree is removed, not what it points to, even if the tree's owner swaps
// a directory for a link while this runs. Directories without write
// permission are made writable first (their owner, or root, may). A missing
// `path` is not an error.
Status RemoveTree(const std::string& path);

// Bytes `path` takes on disk (allocated blocks), its tree included, links not
// followed. Unreadable parts count as nothing.
uint64_t DiskUsage(const std::string& path);

// `raw`, a path inside an archive or an image, cleaned: "." components,
// empty ones and a trailing '/' dropped; "" for the top itself.
// Errors: kInvalidArgument for an absolute path or one with a ".."
// component, which would reach outside the directory it is written into.
Result<std::string> CleanRelativePath(std::string_view raw);

// The executable `name` in $PATH, then in `extra_dirs`; empty when none.
std::string FindProgram(const std::string& name, const std::vector<std::string>& extra_dirs = {});

}  // namespace rota::noded::container
