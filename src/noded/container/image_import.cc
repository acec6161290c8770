#include "noded/container/image_import.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <vector>

#include "common/captured_program.h"
#include "noded/container/image_digest.h"
#include "noded/container/image_files.h"
#include "noded/container/image_layer.h"
#include "noded/container/image_ref.h"
#include "noded/container/oci_image.h"

extern char** environ;

namespace rota::noded::container {
namespace {

// Pulling or unpacking a large image takes minutes; one that takes longer
// than this is stuck.
constexpr std::chrono::hours kToolTimeout{2};
constexpr uint64_t kMaxConfigBytes = 16 << 20;
// Debian installs unsquashfs in /usr/bin, others in /usr/sbin or /sbin: a
// daemon's PATH may lack any of them.
const std::vector<std::string> kToolDirs = {"/usr/bin", "/usr/sbin", "/sbin", "/bin"};

std::vector<std::string> Environment() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

// The last lines of a tool's output, for an error message.
std::string OutputTail(const std::string& output) {
  constexpr size_t kMaxLines = 8;
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    // Progress bars redraw with '\r'; only the last drawing counts.
    if (size_t cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
    if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  if (lines.size() > kMaxLines) lines.erase(lines.begin(), lines.end() - kMaxLines);
  std::string tail;
  for (const std::string& line : lines) tail += (tail.empty() ? "" : "; ") + line;
  return tail.empty() ? "no output" : tail;
}

std::string Describe(const CapturedRun& run) {
  if (!run.start_error.empty()) return run.start_error;
  if (run.timed_out) return "timed out: " + OutputTail(run.output);
  if (WIFSIGNALED(run.wait_status)) {
    return "killed by signal " + std::to_string(WTERMSIG(run.wait_status)) + ": " +
           OutputTail(run.output);
  }
  return "exit " + std::to_string(WEXITSTATUS(run.wait_status)) + ": " + OutputTail(run.output);
}

bool Succeeded(const CapturedRun& run) {
  return run.start_error.empty() && !run.timed_out && WIFEXITED(run.wait_status) &&
         WEXITSTATUS(run.wait_status) == 0;
}

// unsquashfs exits 2 for errors it went on after. Device nodes it could not
// make as an ordinary user are such, and are skipped as in layers; any
// other is a failed import.
bool OnlyDeviceErrors(const CapturedRun& run) {
  if (!run.start_error.empty() || run.timed_out || !WIFEXITED(run.wait_status) ||
      WEXITSTATUS(run.wait_status) != 2) {
    return false;
  }
  size_t start = 0;
  while (start < run.output.size()) {
    size_t end = run.output.find('\n', start);
    if (end == std::string::npos) end = run.output.size();
    std::string line = run.output.substr(start, end - start);
    std::transform(line.begin(), line.end(), line.begin(), ::tolower);
    start = end + 1;
    const bool error_line =
        line.find("could not") != std::string::npos || line.find("failed") != std::string::npos ||
        line.find("error") != std::string::npos || line.find("fatal") != std::string::npos;
    if (error_line && line.find("device") == std::string::npos) return false;
  }
  return true;
}

Status UnpackSquashfs(const std::string& file, const std::string& rootfs) {
  const std::string unsquashfs = FindProgram("unsquashfs", kToolDirs);
  if (unsquashfs.empty()) {
    return FailedPrecondition(
        "it is a squashfs file, and unsquashfs (squashfs-tools) is not "
        "installed on this node");
  }
  // Without -no-xattrs, an ordinary user fails on security.* attributes.
  CapturedRun run = RunCaptured({unsquashfs, "-no-progress", "-no-xattrs", "-d", rootfs, file},
                                Environment(), kToolTimeout);
  if (!Succeeded(run) && !OnlyDeviceErrors(run)) {
    return InvalidArgument("unsquashfs failed (" + Describe(run) + ")");
  }
  return Status::Ok();
}

Result<ImageConfig> ReadImageConfig(const ImageParts& parts) {
  if (!parts.config_digest.empty()) {
    ROTA_RETURN_IF_ERROR(
        VerifyDigest(parts.config_path, parts.config_digest, "config " + parts.config_digest));
  }
  Result<std::string> text = ReadSmallFile(parts.config_path, kMaxConfigBytes);
  if (!text.ok()) return text.status();
  return ImageConfigFromImageJson(*text, "the image config");
}

Status ApplyLayers(const ImageParts& parts, const std::string& rootfs) {
  if (mkdir(rootfs.c_str(), 0755) != 0) return IoError(Errno("cannot make " + rootfs));
  LayerApplier applier(rootfs);
  for (const ImageLayer& layer : parts.layers) {
    // Checked before unpacking: a layer that is not what its manifest says
    // writes nothing.
    if (!layer.digest.empty()) {
      ROTA_RETURN_IF_ERROR(VerifyDigest(layer.path, layer.digest, layer.name));
    }
    ROTA_RETURN_IF_ERROR(applier.Apply(layer.path, layer.name));
  }
  return applier.Finish();
}

Status ImportOciLayout(const std::string& layout, const std::string& rootfs, ImageConfig* config) {
  Result<ImageParts> parts = ReadOciLayout(layout);
  if (!parts.ok()) return parts.status();
  Result<ImageConfig> read = ReadImageConfig(*parts);
  if (!read.ok()) return read.status();
  *config = std::move(*read);
  return ApplyLayers(*parts, rootfs);
}

Status ImportDockerArchive(const std::string& file, const std::string& dest,
                           const std::string& rootfs, ImageConfig* config) {
  // Unpacked beside the rootfs first: a docker archive lists its layers in
  // manifest.json, which may come last in the tar.
  const std::string unpacked = dest + "/.docker-archive";
  auto import = [&]() -> Status {
    if (mkdir(unpacked.c_str(), 0700) != 0) return IoError(Errno("cannot make " + unpacked));
    LayerApplier unpacker(unpacked);
    ROTA_RETURN_IF_ERROR(unpacker.Apply(file, "the archive", /*whiteouts=*/false));
    ROTA_RETURN_IF_ERROR(unpacker.Finish());
    Result<ImageParts> parts = ReadDockerArchive(unpacked);
    if (!parts.ok()) return parts.status();
    Result<ImageConfig> read = ReadImageConfig(*parts);
    if (!read.ok()) return read.status();
    *config = std::move(*read);
    return ApplyLayers(*parts, rootfs);
  };
  Status status = import();
  Status removed = RemoveTree(unpacked);
  return status.ok() ? removed : status;
}

Status PullAndImport(std::string_view ref, const std::string& dest, const std::string& rootfs,
                     ImageConfig* config) {
  Result<std::string> source = RegistrySource(ref);
  if (!source.ok()) return source.status();
  const std::string skopeo = FindProgram("skopeo");
  if (skopeo.empty()) {
    return FailedPrecondition("image '" + std::string(ref) +
                              "' is in a registry, and pulling needs skopeo, which is not "
                              "installed on this node (or import it to a squashfs file first)");
  }
  const std::string pulled = dest + "/pull";
  // skopeo runs as the job's user, with that user's registry logins.
  CapturedRun run = RunCaptured({skopeo, "copy", *source, "oci:" + pulled + ":latest"},
                                Environment(), kToolTimeout);
  Status status = Succeeded(run)
                      ? ImportOciLayout(pulled, rootfs, config)
                      : Status(StatusCode::kUnavailable,
                               "skopeo could not pull " + *source + " (" + Describe(run) + ")");
  Status removed = RemoveTree(pulled);
  return status.ok() ? removed : status;
}

Status ImportKind(ImageKind kind, std::string_view ref, const std::string& dest,
                  const std::string& rootfs, ImageConfig* config) {
  const std::string path(ref);
  switch (kind) {
    case ImageKind::kSquashfs:
      return UnpackSquashfs(path, rootfs);
    case ImageKind::kOciLayout:
      return ImportOciLayout(path, rootfs, config);
    case ImageKind::kDockerArchive:
      return ImportDockerArchive(path, dest, rootfs, config);
    case ImageKind::kRegistry:
      return PullAndImport(ref, dest, rootfs, config);
  }
  return Internal("unknown image kind");
}

}  // namespace

Status ImportImage(std::string_view ref, const std::string& dest_dir) {
  const std::string prefix = "image '" + std::string(ref) + "'";
  auto named = [&](const Status& s) {
    if (s.ok() || s.message().starts_with(prefix)) return s;
    return Status(s.code(), prefix + ": " + s.message());
  };
  Result<ImageKind> kind = ClassifyImage(ref);
  if (!kind.ok()) return named(kind.status());

  const std::string dest = std::filesystem::absolute(dest_dir).lexically_normal().string();
  if (mkdir(dest.c_str(), 0755) != 0 && errno != EEXIST) {
    return named(IoError(Errno("cannot make " + dest)));
  }
  const std::string rootfs = dest + "/rootfs";
  struct stat st {};
  if (lstat(rootfs.c_str(), &st) == 0) {
    return named(FailedPrecondition(rootfs + " exists already"));
  }
  ImageConfig config;
  Status status = ImportKind(*kind, ref, dest, rootfs, &config);
  // image.json last: with it, the import is complete.
  if (status.ok()) status = SaveImageConfig(config, dest);
  if (!status.ok()) {
    (void)RemoveTree(rootfs);
    (void)RemoveTree(dest + "/" + std::string(kImageConfigFile));
  }
  return named(status);
}

}  // namespace rota::noded::container
