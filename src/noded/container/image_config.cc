#include "noded/container/image_config.h"

#include "noded/container/image_files.h"
#include "noded/container/image_json.h"

namespace rota::noded::container {
namespace {

// An image config is a few KiB; a limit keeps a hostile file from costing
// rotad memory.
constexpr uint64_t kMaxConfigBytes = 4 << 20;

// A list of strings, or empty for null or missing; false for anything else.
bool StringList(const Json& object, const char* key, std::vector<std::string>* out) {
  out->clear();
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return true;
  if (!it->is_array()) return false;
  for (const Json& item : *it) {
    if (!item.is_string()) return false;
    out->push_back(item.get<std::string>());
  }
  return true;
}

bool String(const Json& object, const char* key, std::string* out) {
  out->clear();
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  *out = it->get<std::string>();
  return true;
}

}  // namespace

std::string ImageConfigToJson(const ImageConfig& config) {
  Json json = {{"env", config.env},
               {"entrypoint", config.entrypoint},
               {"cmd", config.cmd},
               {"working_dir", config.working_dir}};
  return json.dump(2) + "\n";
}

Result<ImageConfig> ImageConfigFromJson(std::string_view text) {
  Result<Json> json = ParseJson(text, kImageConfigFile);
  ImageConfig config;
  if (!json.ok() || !json->is_object() || !StringList(*json, "env", &config.env) ||
      !StringList(*json, "entrypoint", &config.entrypoint) ||
      !StringList(*json, "cmd", &config.cmd) ||
      !String(*json, "working_dir", &config.working_dir)) {
    return Status(StatusCode::kCorruption, std::string(kImageConfigFile) + " is damaged");
  }
  return config;
}

Result<ImageConfig> ImageConfigFromImageJson(std::string_view text, std::string_view what) {
  Result<Json> json = ParseJson(text, what);
  if (!json.ok()) return json.status();
  if (!json->is_object()) return InvalidArgument(std::string(what) + " is not a JSON object");
  ImageConfig config;
  auto it = json->find("config");
  if (it == json->end() || it->is_null()) return config;  // An image may say nothing.
  if (!it->is_object() || !StringList(*it, "Env", &config.env) ||
      !StringList(*it, "Entrypoint", &config.entrypoint) || !StringList(*it, "Cmd", &config.cmd) ||
      !String(*it, "WorkingDir", &config.working_dir)) {
    return InvalidArgument(std::string(what) +
                           ": config.Env, Entrypoint, Cmd or WorkingDir is not of its type");
  }
  return config;
}

Status SaveImageConfig(const ImageConfig& config, const std::string& dir) {
  return WriteFileReplacing(dir + "/" + std::string(kImageConfigFile), ImageConfigToJson(config));
}

Result<ImageConfig> LoadImageConfig(const std::string& dir) {
  Result<std::string> text =
      ReadSmallFile(dir + "/" + std::string(kImageConfigFile), kMaxConfigBytes, false);
  if (!text.ok()) return text.status();
  return ImageConfigFromJson(*text);
}

}  // namespace rota::noded::container
