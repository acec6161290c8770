#include "model/dependency.h"

#include <fmt/format.h>

#include "common/strings.h"

namespace rota::model {
namespace {

struct TypeName {
  DependencyType type;
  std::string_view name;
};
constexpr TypeName kTypes[] = {
    {DependencyType::kAfter, "after"},         {DependencyType::kAfterAny, "afterany"},
    {DependencyType::kAfterOk, "afterok"},     {DependencyType::kAfterNotOk, "afternotok"},
    {DependencyType::kAfterCorr, "aftercorr"}, {DependencyType::kSingleton, "singleton"},
};

Status Bad(std::string_view text, std::string_view why) {
  return InvalidArgument(fmt::format("invalid dependency \"{}\": {}", text, why));
}

}  // namespace

std::string_view DependencyTypeName(DependencyType t) {
  for (const TypeName& n : kTypes) {
    if (n.type == t) return n.name;
  }
  return "?";
}

Result<Dependency> ParseDependency(std::string_view text) {
  Dependency dep;
  bool has_comma = text.find(',') != std::string_view::npos;
  dep.any = text.find('?') != std::string_view::npos;
  if (has_comma && dep.any) return Bad(text, "',' and '?' cannot be mixed");
  if (Trim(text).empty()) return Bad(text, "empty");
  for (std::string_view clause : Split(text, dep.any ? '?' : ',')) {
    std::vector<std::string_view> parts = Split(clause, ':');
    const TypeName* type = nullptr;
    for (const TypeName& n : kTypes) {
      if (EqualsIgnoreCase(parts[0], n.name)) type = &n;
    }
    if (type == nullptr) return Bad(text, fmt::format("unknown type '{}'", parts[0]));
    if (type->type == DependencyType::kSingleton) {
      if (parts.size() != 1) return Bad(text, "singleton takes no job id");
      DependencyTerm singleton;
      singleton.type = DependencyType::kSingleton;
      dep.terms.push_back(singleton);
      continue;
    }
    if (parts.size() < 2) return Bad(text, fmt::format("{} needs a job id", type->name));
    for (size_t i = 1; i < parts.size(); ++i) {
      std::string_view id = parts[i];
      DependencyTerm term;
      term.type = type->type;
      if (size_t plus = id.find('+'); plus != std::string_view::npos) {
        std::optional<uint64_t> minutes = ParseUint(id.substr(plus + 1));
        if (!minutes || type->type != DependencyType::kAfter) return Bad(text, "bad +time");
        term.delay_secs = static_cast<int64_t>(*minutes) * 60;
        id = id.substr(0, plus);
      }
      if (size_t under = id.find('_'); under != std::string_view::npos) {
        std::optional<uint64_t> task = ParseUint(id.substr(under + 1));
        if (!task || *task > UINT32_MAX) return Bad(text, fmt::format("bad job id '{}'", parts[i]));
        term.array_task_id = static_cast<uint32_t>(*task);
        id = id.substr(0, under);
      }
      std::optional<uint64_t> job = ParseUint(id);
      if (!job || *job == 0 || *job > UINT32_MAX) {
        return Bad(text, fmt::format("bad job id '{}'", parts[i]));
      }
      term.job_id = static_cast<uint32_t>(*job);
      dep.terms.push_back(term);
    }
  }
  return dep;
}

}  // namespace rota::model
