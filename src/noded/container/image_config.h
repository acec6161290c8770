#pragma once

// What an image says about running it (the "config" of an OCI or docker image
// config): the environment, entrypoint, command and working directory that a
// container starts with unless the step says otherwise. A squashfs image has
// none: all empty.

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::noded::container {

struct ImageConfig {
  std::vector<std::string> env;  // NAME=value
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd;
  std::string working_dir;  // Empty: the image names none.

  bool operator==(const ImageConfig&) const = default;
};

// The file beside an imported rootfs that holds its ImageConfig.
inline constexpr std::string_view kImageConfigFile = "image.json";

// ImageConfig as this folder stores it:
// {"env":[...],"entrypoint":[...],"cmd":[...],"working_dir":"..."}.
std::string ImageConfigToJson(const ImageConfig& config);
// Errors: kCorruption when `text` is not such JSON.
Result<ImageConfig> ImageConfigFromJson(std::string_view text);

// The ImageConfig in an OCI image config or a docker image config blob:
// config.Env, config.Entrypoint, config.Cmd, config.WorkingDir (each may be
// missing or null). Errors: kInvalidArgument naming `what`.
Result<ImageConfig> ImageConfigFromImageJson(std::string_view text, std::string_view what);

// Writes `config` to dir/image.json (replacing it whole).
Status SaveImageConfig(const ImageConfig& config, const std::string& dir);
// Reads dir/image.json back, not through a symbolic link (rotad reads it as
// root from a directory the user owns). Errors: kNotFound, kCorruption.
Result<ImageConfig> LoadImageConfig(const std::string& dir);

}  // namespace rota::noded::container
