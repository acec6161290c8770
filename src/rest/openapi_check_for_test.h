#pragma once

// Checks an answer against rotarestd's OpenAPI document: every field the
// answer has is declared, with the declared type; null only where the schema
// says nullable; arrays item by item; $refs followed. Returns what is wrong,
// one line per problem ("jobs[0].time_limit: string where integer"), empty
// when the answer fits. Used by the tests that hold the document and the
// handlers to each other.

#include <string>
#include <vector>

#include "rest/rest_json.h"

namespace rota::rest {

inline const Json& ResolveSchema(const Json& doc, const Json& schema) {
  if (schema.is_object() && schema.contains("$ref")) {
    std::string ref = schema["$ref"].get<std::string>();
    const std::string prefix = "#/components/schemas/";
    static const Json kMissing = Json{{"type", "missing"}};
    if (ref.rfind(prefix, 0) != 0) return kMissing;
    const Json& schemas = doc["components"]["schemas"];
    auto it = schemas.find(ref.substr(prefix.size()));
    return it == schemas.end() ? kMissing : ResolveSchema(doc, *it);
  }
  return schema;
}

inline void CheckValue(const Json& doc, const Json& schema_in, const Json& value,
                       const std::string& where, std::vector<std::string>& problems) {
  const Json& schema = ResolveSchema(doc, schema_in);
  const std::string type = schema.value("type", "");
  if (type == "missing") {
    problems.push_back(where + ": its schema is missing from the document");
    return;
  }
  if (value.is_null()) {
    if (!schema.value("nullable", false)) problems.push_back(where + ": null where not nullable");
    return;
  }
  auto wrong = [&](const char* want) {
    problems.push_back(where + ": " + std::string(value.type_name()) + " where " + want);
  };
  if (type == "string") {
    if (!value.is_string()) wrong("string");
  } else if (type == "integer") {
    if (!value.is_number_integer()) wrong("integer");
  } else if (type == "number") {
    if (!value.is_number()) wrong("number");
  } else if (type == "boolean") {
    if (!value.is_boolean()) wrong("boolean");
  } else if (type == "array") {
    if (!value.is_array()) return wrong("array");
    for (size_t i = 0; i < value.size(); ++i) {
      CheckValue(doc, schema["items"], value[i], where + "[" + std::to_string(i) + "]", problems);
    }
  } else if (type == "object") {
    if (!value.is_object()) return wrong("object");
    const Json props = schema.value("properties", Json::object());
    const Json extra = schema.value("additionalProperties", Json(false));
    for (const auto& [name, field] : value.items()) {
      const std::string at = where.empty() ? name : where + "." + name;
      if (props.contains(name)) {
        CheckValue(doc, props[name], field, at, problems);
      } else if (extra.is_object()) {
        CheckValue(doc, extra, field, at, problems);
      } else if (!(extra.is_boolean() && extra.get<bool>())) {
        problems.push_back(at + ": not declared in the document");
      }
    }
    for (const Json& required : schema.value("required", Json::array())) {
      if (!value.contains(required.get<std::string>())) {
        problems.push_back(where + ": required " + required.get<std::string>() + " is missing");
      }
    }
  } else {
    problems.push_back(where + ": the schema names no type");
  }
}

// `answer` against the 200 schema of `method` `path` (as the document spells
// the path) in `doc`.
inline std::vector<std::string> CheckAnswer(const Json& doc, const std::string& path,
                                            const std::string& method, const Json& answer) {
  std::vector<std::string> problems;
  const Json* op = nullptr;
  if (doc["paths"].contains(path) && doc["paths"][path].contains(method)) {
    op = &doc["paths"][path][method];
  }
  if (op == nullptr) return {method + " " + path + " is not in the document"};
  const Json& content = (*op)["responses"]["200"].value("content", Json::object());
  if (!content.contains("application/json")) return {method + " " + path + " declares no JSON"};
  CheckValue(doc, content["application/json"]["schema"], answer, "", problems);
  return problems;
}

}  // namespace rota::rest
