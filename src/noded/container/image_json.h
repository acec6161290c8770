#pragma once

// JSON parsing for this folder's .cc files (not part of any interface).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::noded::container {

using Json = nlohmann::json;

// Parses without exceptions, and without the parser's message, which quotes
// the text it stopped at: rotad parses files as root that it would not show
// to the user who named them. Errors: kInvalidArgument naming `what`.
inline Result<Json> ParseJson(std::string_view text, std::string_view what) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return InvalidArgument(std::string(what) + " is not valid JSON");
  return json;
}

// The string at `key` of `object`, or empty when it is missing or not a string.
inline std::string StringAt(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace rota::noded::container
