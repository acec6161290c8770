#pragma once

// Unpacks image layers (tar files, compressed or not) onto a root file
// system, bottom layer first, the way a container runtime would stack them:
// OCI whiteouts remove what lower layers put there (".wh.NAME" removes NAME,
// ".wh..wh..opq" empties its directory of lower layers' entries).
//
// Runs as the ordinary user who will own the result (rota-image), so it
// restores no ownership, skips device nodes and sockets, and drops setuid and
// setgid bits. It never writes through a symbolic link: an entry whose path
// leads through one, an absolute path or a ".." component fails the layer.
//
// Changes the process's working directory while a layer is applied (the
// secure extraction of libarchive works on relative paths), and restores it:
// use from a single-threaded program.

#include <sys/types.h>

#include <map>
#include <set>
#include <string>

#include "common/status.h"

namespace rota::noded::container {

class LayerApplier {
 public:
  // REQUIRES: `rootfs` is an existing directory.
  explicit LayerApplier(std::string rootfs);

  // Unpacks the tar file `layer_path` over what is there; `name` names the
  // layer in errors. With `whiteouts` false, ".wh." names are plain files
  // (for unpacking something that is not a layer, such as a docker archive).
  Status Apply(const std::string& layer_path, const std::string& name, bool whiteouts = true);

  // Gives the directories their modes from the layers. Until then each is
  // kept writable and searchable for its owner, so that a later layer can
  // write into a directory an earlier one made read-only.
  Status Finish();

 private:
  // The lower layers' `relative` (a path the current layer did not write)
  // removed, when it exists as such, not behind a symbolic link.
  Status RemoveLower(const std::string& relative);
  // The lower layers' entries in directory `relative` removed.
  Status ClearLower(const std::string& relative);
  // Whether every directory above `relative` is a real directory in the
  // rootfs (none a symbolic link, none missing).
  bool ParentsAreDirectories(const std::string& relative) const;

  std::string rootfs_;
  std::map<std::string, mode_t> dir_modes_;  // Relative path -> mode its layer gave.
  std::set<std::string> this_layer_;         // Paths the current layer wrote, with parents.
};

}  // namespace rota::noded::container
