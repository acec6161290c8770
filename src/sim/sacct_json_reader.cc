#include "sim/sacct_json_reader.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/sacct_trace_builder.h"

namespace rota::sim {
namespace {

using Json = nlohmann::json;

std::optional<int64_t> Integer(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int64_t>();
  // Slurm 23.02 on: {"set": true, "infinite": false, "number": N}.
  if (it->is_object() && it->value("set", true) && !it->value("infinite", false)) {
    auto n = it->find("number");
    if (n != it->end() && n->is_number_integer()) return n->get<int64_t>();
  }
  return std::nullopt;
}

std::string Text(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// tres.allocated as a TRES string: Slurm's {type, name, count} list, or the
// plain string older Rota versions wrote.
std::string AllocatedTres(const Json& job, uint64_t* cpus) {
  auto tres = job.find("tres");
  if (tres == job.end() || !tres->is_object()) return "";
  auto allocated = tres->find("allocated");
  if (allocated == tres->end()) return "";
  if (allocated->is_string()) return allocated->get<std::string>();
  if (!allocated->is_array()) return "";
  std::string out;
  for (const Json& entry : *allocated) {
    if (!entry.is_object()) continue;
    const std::string type = Text(entry, "type");
    const std::string name = Text(entry, "name");
    std::optional<int64_t> count = Integer(entry, "count");
    if (!count || *count < 0) continue;
    if (type == "cpu") *cpus = static_cast<uint64_t>(*count);
    if (!out.empty()) out += ',';
    out += name.empty() ? type : type + "/" + name;
    out += '=' + std::to_string(*count);
  }
  return out;
}

}  // namespace

bool LooksLikeJson(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

Result<Trace> ParseSacctJson(std::string_view text, uint64_t max_jobs) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument("sacct --json export: not valid JSON");
  auto jobs = doc.find("jobs");
  if (jobs == doc.end() || !jobs->is_array()) {
    return InvalidArgument("sacct --json export: no \"jobs\" list");
  }
  SacctTraceBuilder builder(max_jobs);
  for (const Json& job : *jobs) {
    auto time = job.is_object() ? job.find("time") : job.end();
    if (!job.is_object() || time == job.end() || !time->is_object()) {
      builder.CountMalformed();
      continue;
    }
    std::optional<int64_t> submit = Integer(*time, "submission");
    if (!submit) {
      builder.CountMalformed();
      continue;
    }
    SacctRecord r;
    r.submit = *submit;
    std::optional<int64_t> start = Integer(*time, "start");
    std::optional<int64_t> end = Integer(*time, "end");
    if (start && end && *start > 0 && *end > 0) r.runtime_s = *end - *start;
    if (std::optional<int64_t> minutes = Integer(*time, "limit"); minutes && *minutes > 0) {
      r.requested_s = *minutes * 60;
    }
    uint64_t tres_cpus = 0;
    r.tres = AllocatedTres(job, &tres_cpus);
    r.cpus = tres_cpus;
    if (auto required = job.find("required"); required != job.end() && required->is_object()) {
      if (std::optional<int64_t> n = Integer(*required, "CPUs"); n && *n > 0) {
        r.cpus = static_cast<uint64_t>(*n);
      }
    }
    if (std::optional<int64_t> n = Integer(job, "allocation_nodes"); n && *n > 0) {
      r.nodes = static_cast<uint32_t>(*n);
    }
    if (std::optional<int64_t> id = Integer(job, "job_id"); id && *id > 0) {
      r.id = static_cast<uint64_t>(*id);
    }
    r.user = Text(job, "user");
    r.partition = Text(job, "partition");
    if (!builder.Add(r)) break;
  }
  return std::move(builder).Finish();
}

}  // namespace rota::sim
