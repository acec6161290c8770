// The /slurmdb/v0.0.38 half of rotarestd's OpenAPI document. Every field
// the handlers of slurmdb_api.cc, slurmdb_jobs.cc and slurmdb_entities.cc
// write is declared here with its JSON type; a field that can be null says
// "nullable". Nested objects are spelled out in place, so that a schema
// reads whole without following references.

#include <string>

#include "rest/openapi_document.h"

namespace rota::rest {
namespace {

constexpr char kPrefix[] = "/slurmdb/v0.0.38";
constexpr char kSchemaPrefix[] = "#/components/schemas/";

Json Scalar(const char* type, const char* description, bool nullable) {
  Json s = {{"type", type}};
  if (description[0] != '\0') s["description"] = description;
  if (nullable) s["nullable"] = true;
  return s;
}

Json Str(const char* description = "", bool nullable = false) {
  return Scalar("string", description, nullable);
}
Json Int(const char* description = "", bool nullable = false) {
  return Scalar("integer", description, nullable);
}
Json Num(const char* description = "", bool nullable = false) {
  return Scalar("number", description, nullable);
}
Json NullableStr(const char* description = "") { return Str(description, true); }
Json NullableInt(const char* description = "") { return Int(description, true); }

Json Arr(Json items, const char* description = "") {
  Json s = {{"type", "array"}, {"items", std::move(items)}};
  if (description[0] != '\0') s["description"] = description;
  return s;
}

Json Obj(Json properties, const char* description = "") {
  Json s = {{"type", "object"}, {"properties", std::move(properties)}};
  if (description[0] != '\0') s["description"] = description;
  return s;
}

Json Names(const char* description) { return Arr(Str(), description); }

Json Meta() {
  return Obj(
      {{"plugin",
        Obj({{"type", Str("plugin type: openapi/dbv0.0.38")}, {"name", Str("plugin name")}})},
       {"Slurm", Obj({{"version", Obj({{"major", Int()}, {"micro", Int()}, {"minor", Int()}})},
                      {"release", Str("the Slurm release this API follows")}})}},
      "who answered");
}

Json Errors() {
  return Arr(
      Obj({{"error", Str("what went wrong")}, {"errno", Int("Slurm's error number for it")}}),
      "why the request was not (fully) served; empty on success");
}

// An answer: the envelope plus `key` holding an array of `item`.
Json Answer(const char* key, Json item, const char* description) {
  return Obj({{"meta", Meta()}, {"errors", Errors()}, {key, Arr(std::move(item), description)}});
}

Json TresList(const char* description = "") {
  return Arr(Obj({{"type", Str("cpu, mem, node, billing, gres, license, ...")},
                  {"name", Str("the GRES or license name, empty for the fixed kinds")},
                  {"id", Int("Slurm's TRES id (1001 and up for the site's own)")},
                  {"count", Int("amount; memory in megabytes")}}),
             description);
}

Json ExitCode() {
  return Obj({{"status", Str("SUCCESS, FAILED or SIGNALED")},
              {"return_code", Int("exit status")},
              {"signal", Obj({{"signal_id", Int()}, {"name", Str("short name, e.g. KILL")}},
                             "present when a signal ended it")}});
}

Json ShortAssociation() {
  return Obj({{"account", Str()},
              {"cluster", Str()},
              {"partition", NullableStr("always null: Rota has no partition associations")},
              {"user", NullableStr("null for an account's own association")}});
}

Json Coordinator() { return Obj({{"name", Str()}, {"direct", Int()}}); }

Json Step() {
  Json max_usage = Arr(Obj({{"type", Str()},
                            {"name", Str()},
                            {"id", Int()},
                            {"count", Int("bytes for memory")},
                            {"task", Int("the task that used the most")},
                            {"node", Str("where that task ran")}}));
  return Obj(
      {{"step", Obj({{"id", Str("JOBID.STEP: 42.batch, 42.extern, 42.0")}, {"name", Str()}})},
       {"state", Str()},
       {"exit_code", ExitCode()},
       {"nodes", Obj({{"count", Int()}, {"range", Str("hostlist")}})},
       {"time", Obj({{"elapsed", Int("seconds")},
                     {"end", Int("Unix seconds, 0 while running")},
                     {"start", Int("Unix seconds")}})},
       {"tres",
        Obj({{"allocated", TresList()},
             {"requested", Obj({{"max", max_usage}}, "present when usage was measured")}})}});
}

Json Job() {
  return Obj({{"account", Str()},
              {"allocation_nodes", Int("nodes allocated")},
              {"array", Obj({{"job_id", Int("0 when not an array task")},
                             {"task_id", NullableInt("null when not an array task")}})},
              {"cluster", Str()},
              {"exit_code", ExitCode()},
              {"job_id", Int()},
              {"name", Str()},
              {"nodes", Str("hostlist, or \"None assigned\"")},
              {"partition", Str()},
              {"qos", Str()},
              {"required", Obj({{"CPUs", Int()}, {"memory", Int("megabytes")}})},
              {"restarts", Int("Rota: the attempt (requeues before this one)")},
              {"state", Obj({{"current", Str()}, {"reason", Str()}})},
              {"time", Obj({{"elapsed", Int("seconds")},
                            {"eligible", Int("Unix seconds")},
                            {"end", Int("Unix seconds, 0 while running")},
                            {"start", Int("Unix seconds, 0 if it never started")},
                            {"submission", Int("Unix seconds")},
                            {"suspended", Int("seconds")},
                            {"limit", Int("minutes, 0 for UNLIMITED")}})},
              {"tres", Obj({{"allocated", TresList()}, {"requested", TresList()}})},
              {"user", Str()},
              {"steps", Arr(Step())},
              {"association", ShortAssociation()},
              {"flags", Names("always empty")},
              {"group", Str("group name, or the gid when it has none")},
              {"kill_request_user", NullableStr("who cancelled it; null when nobody did")},
              {"wckey", Obj({{"wckey", Str()}, {"flags", Names("always empty")}})},
              {"working_directory", Str()}},
             "one attempt of a job");
}

Json Association() {
  Json max = Obj({{"jobs", Obj({{"per", Obj({{"count", NullableInt("GrpJobs")},
                                             {"accruing", NullableInt("always null")},
                                             {"submitted", NullableInt("GrpSubmitJobs")},
                                             {"wall_clock", NullableInt("MaxWall, minutes")}})},
                                {"active", NullableInt("MaxJobs")},
                                {"accruing", NullableInt("always null")},
                                {"total", NullableInt("MaxSubmitJobs")}})},
                  {"tres", Obj({{"total", TresList("GrpTRES")},
                                {"group", Obj({{"minutes", TresList("GrpTRESMins")},
                                               {"active", TresList("GrpTRESRunMins")}})},
                                {"minutes", Obj({{"per", Obj({{"job", TresList("always empty")}})},
                                                 {"total", TresList("always empty")}})},
                                {"per", Obj({{"job", TresList("always empty")},
                                             {"node", TresList("always empty")}})}})},
                  {"per", Obj({{"account", Obj({{"wall_clock", NullableInt("always null")}})}})}});
  return Obj({{"account", Str()},
              {"cluster", Str()},
              {"default", Obj({{"qos", NullableStr("the default QOS that applies")}})},
              {"flags", Names("DEFAULT on a user's default account")},
              {"max", max},
              {"is_default", Int("1 on a user's default account")},
              {"min", Obj({{"priority_threshold", NullableInt("always null")}})},
              {"parent_account", NullableStr("the parent of an account; null for users and root")},
              {"partition", NullableStr("always null")},
              {"priority", NullableInt()},
              {"qos", Names("the QOS that apply, inherited down the tree")},
              {"shares_raw", Int("Fairshare; 2147483647 for Fairshare=parent")},
              {"user", NullableStr("null for an account's own association")}},
             "an account's own association or a user's with an account");
}

Json Account() {
  return Obj({{"associations", Arr(ShortAssociation(), "its own and its users'")},
              {"coordinators", Arr(Coordinator(), "always empty: Rota has no coordinators")},
              {"description", Str()},
              {"name", Str()},
              {"organization", Str()},
              {"flags", Names("always empty")}});
}

Json User() {
  return Obj({{"administrator_level", Str("None, Operator or Administrator")},
              {"associations", Arr(ShortAssociation())},
              {"coordinators", Arr(Coordinator(), "always empty")},
              {"default", Obj({{"account", NullableStr()}, {"wckey", NullableStr("always null")}})},
              {"flags", Names("always empty")},
              {"name", Str()}});
}

Json Qos() {
  Json empty = TresList("always empty");
  Json max =
      Obj({{"active_jobs",
            Obj({{"accruing", NullableInt("always null")}, {"count", NullableInt("GrpJobs")}})},
           {"tres", Obj({{"total", TresList("GrpTRES")},
                         {"minutes", Obj({{"per", Obj({{"qos", TresList("GrpTRESRunMins")},
                                                       {"job", empty},
                                                       {"account", empty},
                                                       {"user", empty}})}})},
                         {"per", Obj({{"account", empty},
                                      {"job", TresList("MaxTRESPerJob")},
                                      {"node", empty},
                                      {"user", TresList("MaxTRESPerUser")}})}})},
           {"wall_clock", Obj({{"per", Obj({{"qos", NullableInt("always null")},
                                            {"job", NullableInt("MaxWall, minutes")}})}})},
           {"jobs",
            Obj({{"active_jobs", Obj({{"per", Obj({{"account", NullableInt("always null")},
                                                   {"user", NullableInt("MaxJobsPerUser")}})}})},
                 {"per", Obj({{"account", NullableInt("always null")},
                              {"user", NullableInt("MaxSubmitJobsPerUser")}})}})},
           {"accruing", Obj({{"per", Obj({{"account", NullableInt("always null")},
                                          {"user", NullableInt("always null")}})}})}});
  Json limits = Obj({{"grace_time", NullableInt("GraceTime, seconds")},
                     {"max", max},
                     {"factor", Num("always null", true)},
                     {"min", Obj({{"priority_threshold", NullableInt("always null")},
                                  {"tres", Obj({{"per", Obj({{"job", empty}})}})}})}});
  return Obj({{"description", Str()},
              {"flags", Names("DENY_LIMIT, NO_DECAY, ... as slurmrestd names them")},
              {"limits", limits},
              {"name", Str()},
              {"preempt", Obj({{"list", Names("the QOS this one may preempt")},
                               {"mode", Names("SUSPEND, REQUEUE, CANCEL, GANG; empty for OFF")},
                               {"exempt_time", NullableInt("PreemptExemptTime, seconds")}})},
              {"priority", Int()},
              {"usage_factor", Num()},
              {"usage_threshold", Num("always null", true)}});
}

Json PathParameter(const char* name, const char* description) {
  return {{"name", name},
          {"in", "path"},
          {"required", true},
          {"description", description},
          {"schema", {{"type", "string"}}}};
}

Json QueryParameter(const char* name, const char* type, const char* description) {
  return {{"name", name},
          {"in", "query"},
          {"required", false},
          {"description", description},
          {"schema", {{"type", type}}}};
}

Json Content(const std::string& schema) {
  return {{"application/json", {{"schema", {{"$ref", kSchemaPrefix + schema}}}}}};
}

Json Get(const char* operation_id, const char* summary, Json parameters,
         const std::string& schema) {
  Json get = {{"tags", Json::array({"slurmdb"})},
              {"operationId", operation_id},
              {"summary", summary},
              {"parameters", std::move(parameters)},
              {"responses",
               {{"200", {{"description", "the records asked for"}, {"content", Content(schema)}}},
                {"default",
                 {{"description", "refused: errors says why"},
                  {"content", Content("dbv0.0.38_errors")}}}}}};
  return {{"get", std::move(get)}};
}

Json JobsParameters() {
  const char* time_forms =
      ": Unix seconds, YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], HH:MM[:SS], now[+-N], ...";
  auto time = [&](const char* name, const char* what) {
    return QueryParameter(name, "string", (std::string(what) + time_forms).c_str());
  };
  Json p = Json::array();
  p.push_back(time("start_time", "jobs active at or after this time"));
  p.push_back(time("end_time", "jobs active at or before this time"));
  p.push_back(time("submit_time", "jobs submitted at or after this time (not with start_time)"));
  p.push_back(QueryParameter("account", "string", "comma list of accounts"));
  p.push_back(QueryParameter("users", "string", "comma list of users"));
  p.push_back(QueryParameter("cluster", "string", "comma list of clusters"));
  p.push_back(QueryParameter("partition", "string", "comma list of partitions"));
  p.push_back(QueryParameter("qos", "string", "comma list of QOS"));
  p.push_back(QueryParameter("state", "string", "comma list of job states, names or numbers"));
  p.push_back(QueryParameter("job_name", "string", "comma list of job names"));
  p.push_back(QueryParameter("wckey", "string", "comma list of wckeys"));
  p.push_back(QueryParameter("reason", "string", "comma list of pending reasons"));
  p.push_back(QueryParameter("groups", "string", "comma list of groups (names or gids)"));
  p.push_back(QueryParameter("node", "string", "hostlist: jobs that ran on one of these nodes"));
  p.push_back(QueryParameter("step", "string", "comma list of jobs or steps: 28, 30_2, 28.batch"));
  p.push_back(QueryParameter("cpus_min", "integer", "at least this many CPUs allocated"));
  p.push_back(QueryParameter("cpus_max", "integer", "at most this many CPUs allocated"));
  p.push_back(QueryParameter("nodes_min", "integer", "at least this many nodes allocated"));
  p.push_back(QueryParameter("nodes_max", "integer", "at most this many nodes allocated"));
  p.push_back(QueryParameter("exit_code", "integer", "jobs that exited with this status"));
  p.push_back(QueryParameter("skip_steps", "boolean", "leave the steps out"));
  p.push_back(QueryParameter("disable_wait_for_result", "boolean", "accepted, no effect"));
  p.push_back(QueryParameter("format", "string", "accepted, no effect"));
  return p;
}

Json WithDeleted() {
  return Json::array({QueryParameter("with_deleted", "boolean",
                                     "accepted, no effect: Rota keeps nothing deleted")});
}

}  // namespace

Json OpenApiSlurmdbPart() {
  const std::string p = kPrefix;
  Json paths;
  paths[p + "/jobs/"] = Get("slurmdbd_get_jobs", "list job records from accounting",
                            JobsParameters(), "dbv0.0.38_job_info");
  paths[p + "/job/{job_id}"] =
      Get("slurmdbd_get_job", "every recorded attempt of one job",
          Json::array({PathParameter("job_id", "job id, array task (30_2) or step (28.batch)")}),
          "dbv0.0.38_job_info");
  paths[p + "/associations/"] =
      Get("slurmdbd_get_associations", "list associations",
          Json::array({QueryParameter("cluster", "string", "only this cluster's"),
                       QueryParameter("account", "string", "only this account's"),
                       QueryParameter("user", "string", "only this user's"),
                       QueryParameter("partition", "string", "only this partition's")}),
          "dbv0.0.38_associations_info");
  paths[p + "/accounts/"] =
      Get("slurmdbd_get_accounts", "list accounts", WithDeleted(), "dbv0.0.38_account_info");
  Json account_params = WithDeleted();
  account_params.insert(account_params.begin(), PathParameter("account_name", "account name"));
  paths[p + "/account/{account_name}"] =
      Get("slurmdbd_get_account", "one account", account_params, "dbv0.0.38_account_info");
  paths[p + "/users/"] =
      Get("slurmdbd_get_users", "list users", WithDeleted(), "dbv0.0.38_user_info");
  Json user_params = WithDeleted();
  user_params.insert(user_params.begin(), PathParameter("user_name", "user name"));
  paths[p + "/user/{user_name}"] =
      Get("slurmdbd_get_user", "one user", user_params, "dbv0.0.38_user_info");
  paths[p + "/qos/"] = Get("slurmdbd_get_qos", "list QOS", WithDeleted(), "dbv0.0.38_qos_info");
  Json qos_params = WithDeleted();
  qos_params.insert(qos_params.begin(), PathParameter("qos_name", "QOS name"));
  paths[p + "/qos/{qos_name}"] =
      Get("slurmdbd_get_single_qos", "one QOS", qos_params, "dbv0.0.38_qos_info");

  Json schemas;
  schemas["dbv0.0.38_errors"] = Obj({{"meta", Meta()}, {"errors", Errors()}}, "a refusal");
  schemas["dbv0.0.38_job_info"] = Answer("jobs", Job(), "job attempts, by job id then attempt");
  schemas["dbv0.0.38_associations_info"] =
      Answer("associations", Association(), "by account, each account's own first");
  schemas["dbv0.0.38_account_info"] = Answer("accounts", Account(), "by name");
  schemas["dbv0.0.38_user_info"] = Answer("users", User(), "by name");
  schemas["dbv0.0.38_qos_info"] = Answer("qos", Qos(), "by name");
  return {{"paths", std::move(paths)}, {"schemas", std::move(schemas)}};
}

}  // namespace rota::rest
