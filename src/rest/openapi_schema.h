#pragma once

// Small builders for the OpenAPI document's schemas and paths, so that each
// area's part reads as a list of fields rather than as nested JSON.

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "rest/rest_json.h"

namespace rota::rest::openapi {

inline Json Str() { return {{"type", "string"}}; }
inline Json Int() { return {{"type", "integer"}, {"format", "int64"}}; }
inline Json Num() { return {{"type", "number"}, {"format", "double"}}; }
inline Json Bool() { return {{"type", "boolean"}}; }
inline Json Arr(Json items) { return {{"type", "array"}, {"items", std::move(items)}}; }
inline Json Nullable(Json schema) {
  schema["nullable"] = true;
  return schema;
}
inline Json Ref(std::string_view schema) {
  return {{"$ref", "#/components/schemas/" + std::string(schema)}};
}
// An object with these properties; `free_form`: other keys may appear too
// (an environment, a map keyed by node name).
inline Json Obj(std::initializer_list<std::pair<const char*, Json>> properties,
                bool free_form = false) {
  Json props = Json::object();
  for (const auto& [name, schema] : properties) props[name] = schema;
  Json out = {{"type", "object"}, {"properties", std::move(props)}};
  if (free_form) out["additionalProperties"] = true;
  return out;
}
// The envelope every answer shares, with `extra` added.
inline Json Answer(std::string_view meta_and_errors_from,
                   std::initializer_list<std::pair<const char*, Json>> extra) {
  Json out = Obj({{"meta", Ref(std::string(meta_and_errors_from) + "_meta")},
                  {"errors", Arr(Ref(std::string(meta_and_errors_from) + "_error"))}});
  for (const auto& [name, schema] : extra) out["properties"][name] = schema;
  return out;
}

struct Param {
  const char* name;
  const char* in;  // "path" or "query"
  Json schema;
  const char* description;
};

// One operation: its id, a line of summary, its parameters, the schema of a
// 200 answer (null: none), and of a request body (null: none).
inline Json Operation(std::string_view operation_id, std::string_view summary,
                      std::initializer_list<Param> params, const Json& answer,
                      const Json& request_body = nullptr) {
  Json op = {{"operationId", operation_id}, {"summary", summary}};
  Json list = Json::array();
  for (const Param& p : params) {
    list.push_back({{"name", p.name},
                    {"in", p.in},
                    {"required", std::string_view(p.in) == "path"},
                    {"description", p.description},
                    {"schema", p.schema}});
  }
  if (!list.empty()) op["parameters"] = std::move(list);
  if (!request_body.is_null()) {
    op["requestBody"] = {{"required", true},
                         {"content", {{"application/json", {{"schema", request_body}}}}}};
  }
  Json ok = {{"description", "success"}};
  if (!answer.is_null()) ok["content"] = {{"application/json", {{"schema", answer}}}};
  op["responses"] = {{"200", ok}, {"default", {{"description", "an error, in \"errors\""}}}};
  return op;
}

}  // namespace rota::rest::openapi
