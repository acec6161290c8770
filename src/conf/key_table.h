#pragma once

// A table of the keys one kind of configuration line understands, each with
// the code that stores its value into a target struct. Parsers declare their
// keys as data and share one loop that applies a line to a target, reports
// "Key=Value is not ..." errors at the line, and warns about unknown keys
// (sites carry keys for features Rota does not have yet).

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/strings.h"
#include "conf/config_reader.h"
#include "conf/diagnostics.h"
#include "conf/value_parsers.h"

namespace rota::conf {

template <typename Target>
struct KeyHandler {
  std::string_view name;  // Canonical spelling, e.g. "PriorityWeightAge".
  std::function<Status(Target&, std::string_view)> apply;
};

template <typename Target>
class KeyTable {
 public:
  KeyTable(std::initializer_list<KeyHandler<Target>> handlers) : handlers_(handlers) {}

  const KeyHandler<Target>* Find(std::string_view key) const {
    for (const KeyHandler<Target>& h : handlers_) {
      if (EqualsIgnoreCase(h.name, key)) return &h;
    }
    return nullptr;
  }

  // Applies one pair. Returns false when the key is unknown (nothing reported).
  bool Apply(const KeyValue& kv, Target& target, const SourceLocation& where,
             Diagnostics& diags) const {
    const KeyHandler<Target>* h = Find(kv.key);
    if (h == nullptr) return false;
    Status s = h->apply(target, kv.value);
    if (!s.ok()) diags.Error(where, fmt::format("{}={} {}", kv.key, kv.value, s.message()));
    return true;
  }

 private:
  std::vector<KeyHandler<Target>> handlers_;
};

// Handlers for the common value kinds, bound to a member of Target.
template <typename T>
auto StringField(std::string T::*field) {
  return [field](T& t, std::string_view v) {
    t.*field = std::string(v);
    return Status::Ok();
  };
}
template <typename T>
auto Uint32Field(uint32_t T::*field) {
  return [field](T& t, std::string_view v) { return ParseUint32Value(v, t.*field); };
}
template <typename T>
auto PortField(uint16_t T::*field) {
  return [field](T& t, std::string_view v) { return ParsePortValue(v, t.*field); };
}
template <typename T>
auto SecondsField(DurationSecs T::*field) {
  return [field](T& t, std::string_view v) { return ParseSecondsValue(v, t.*field); };
}
template <typename T>
auto TimeField(DurationSecs T::*field) {
  return [field](T& t, std::string_view v) { return ParseTimeValue(v, t.*field); };
}
template <typename T>
auto BoolField(bool T::*field) {
  return [field](T& t, std::string_view v) { return ParseBoolValue(v, t.*field); };
}
// Keys with no default: unset unless the file gives them; `parse` reads the value.
template <typename T, typename V>
auto OptionalParsedField(std::optional<V> T::*field, Status (*parse)(std::string_view, V&)) {
  return [field, parse](T& t, std::string_view v) {
    V value{};
    Status s = parse(v, value);
    if (s.ok()) t.*field = value;
    return s;
  };
}
template <typename T>
auto OptionalUint32Field(std::optional<uint32_t> T::*field) {
  return OptionalParsedField(field, &ParseUint32Value);
}
template <typename T>
auto OptionalMemoryField(std::optional<MemoryMb> T::*field) {
  return OptionalParsedField(field, &ParseMemoryValue);
}
template <typename T>
auto OptionalTimeField(std::optional<DurationSecs> T::*field) {
  return OptionalParsedField(field, &ParseTimeValue);
}
template <typename T>
auto ListField(std::vector<std::string> T::*field) {
  return [field](T& t, std::string_view v) {
    t.*field = ParseListValue(v);
    return Status::Ok();
  };
}
template <typename T>
auto ChoiceField(std::string T::*field, Choices choices) {
  return
      [field, choices](T& t, std::string_view v) { return ParseChoiceValue(v, choices, t.*field); };
}
template <typename T>
auto ChoiceListField(std::vector<std::string> T::*field, Choices choices) {
  return [field, choices](T& t, std::string_view v) {
    return ParseChoiceListValue(v, choices, t.*field);
  };
}

}  // namespace rota::conf
