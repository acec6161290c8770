// rota-image: imports a container image for rotad, as the job's user.
//
//   rota-image import REF DEST_DIR
//
// Exit 0 when DEST_DIR/rootfs and DEST_DIR/image.json are complete; else the
// reason on standard error (one line, naming the image) and exit 1. rotad's
// image cache (image_cache.h) runs it in a directory of its own and renames
// the result into place, so a failed or killed import is never taken for an
// image.

#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "noded/container/image_import.h"

int main(int argc, char** argv) {
  if (argc != 4 || std::string(argv[1]) != "import") {
    std::fprintf(stderr, "usage: rota-image import REF DEST_DIR\n");
    return 2;
  }
  // The rootfs is the user's, readable as the image made it, not as the
  // caller's umask would.
  umask(022);
  rota::Status status = rota::noded::container::ImportImage(argv[2], argv[3]);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.message().c_str());
    return 1;
  }
  return 0;
}
