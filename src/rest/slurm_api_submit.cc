// POST /slurm/v0.0.38/job/submit: {"script": "...", "job": {properties}}.
// The properties become sbatch's options and go through sbatch's own parser,
// so a job submitted over REST is checked and shaped exactly as one from
// sbatch. As slurmrestd, #SBATCH lines in the script are not read: the
// properties say everything, and "environment" is the job's whole environment.
#include <unistd.h>

#include <mutex>

#include "api/methods.h"
#include "cli/submit/batch_script.h"
#include "cli/submit/job_options.h"
#include "common/strings.h"
#include "common/user_names.h"
#include "rest/slurm_api.h"

namespace rota::rest {
namespace {

constexpr ApiFlavor kFlavor = ApiFlavor::kSlurm;

enum class Kind {
  kText,   // A string (numbers are taken too): --option=VALUE
  kFlag,   // true: --option; false: nothing
  kYesNo,  // true: --option=yes; false: --option=no
  kOnOff,  // true: --option; false: --no-option (requeue)
};

struct Property {
  std::string_view name;    // v0.0.38_job_properties
  std::string_view option;  // sbatch's long option
  Kind kind = Kind::kText;
};

constexpr Property kProperties[] = {
    {"account", "account"},
    {"account_gather_freqency", "acctg-freq"},  // sic: slurmrestd's spelling
    {"account_gather_frequency", "acctg-freq"},
    {"array", "array"},
    {"batch_features", "batch"},
    {"burst_buffer", "bb"},
    {"cluster_constraints", "cluster-constraint"},
    {"comment", "comment"},
    {"constraints", "constraint"},
    {"core_specification", "core-spec"},
    {"cores_per_socket", "cores-per-socket"},
    {"cpu_binding", "cpu-bind"},
    {"cpu_binding_hint", "hint"},
    {"cpu_frequency", "cpu-freq"},
    {"cpus_per_gpu", "cpus-per-gpu"},
    {"cpus_per_task", "cpus-per-task"},
    {"current_working_directory", "chdir"},
    {"deadline", "deadline"},
    {"delay_boot", "delay-boot"},
    {"dependency", "dependency"},
    {"distribution", "distribution"},
    {"get_user_environment", "get-user-env", Kind::kFlag},
    {"gres", "gres"},
    {"gres_flags", "gres-flags"},
    {"gpu_binding", "gpu-bind"},
    {"gpu_frequency", "gpu-freq"},
    {"gpus", "gpus"},
    {"gpus_per_node", "gpus-per-node"},
    {"gpus_per_socket", "gpus-per-socket"},
    {"gpus_per_task", "gpus-per-task"},
    {"hold", "hold", Kind::kFlag},
    {"kill_on_invalid_dependency", "kill-on-invalid-dep", Kind::kYesNo},
    {"licenses", "licenses"},
    {"mail_type", "mail-type"},
    {"mail_user", "mail-user"},
    {"mcs_label", "mcs-label"},
    {"memory_binding", "mem-bind"},
    {"memory_per_cpu", "mem-per-cpu"},
    {"memory_per_gpu", "mem-per-gpu"},
    {"memory_per_node", "mem"},
    {"minimum_cpus_per_node", "mincpus"},
    {"minimum_nodes", "use-min-nodes", Kind::kFlag},
    {"name", "job-name"},
    {"nice", "nice"},
    {"no_kill", "no-kill", Kind::kFlag},
    {"open_mode", "open-mode"},
    {"partition", "partition"},
    {"priority", "priority"},
    {"qos", "qos"},
    {"requeue", "requeue", Kind::kOnOff},
    {"reservation", "reservation"},
    {"signal", "signal"},
    {"sockets_per_node", "sockets-per-node"},
    {"spread_job", "spread-job", Kind::kFlag},
    {"standard_error", "error"},
    {"standard_input", "input"},
    {"standard_output", "output"},
    {"tasks", "ntasks"},
    {"tasks_per_core", "ntasks-per-core"},
    {"tasks_per_node", "ntasks-per-node"},
    {"tasks_per_socket", "ntasks-per-socket"},
    {"thread_specification", "thread-spec"},
    {"threads_per_core", "threads-per-core"},
    {"time_limit", "time"},
    {"time_minimum", "time-min"},
    {"wait_all_nodes", "wait-all-nodes", Kind::kYesNo},
    {"wckey", "wckey"},
};

// Read elsewhere: the environment, the script's arguments, the begin time,
// the node count and exclusive, whose JSON forms need more than a table row.
constexpr std::string_view kSpecial[] = {"environment", "argv", "begin_time", "nodes", "exclusive"};

Status PropertyError(std::string_view name, std::string_view want) {
  return InvalidArgument("job property " + std::string(name) + " must be " + std::string(want));
}

Result<std::string> ScalarText(std::string_view name, const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  return PropertyError(name, "a string or an integer");
}

// ParseJobOptions drives glibc's getopt_long, which keeps global state.
std::mutex& ParserLock() {
  static std::mutex lock;
  return lock;
}

std::string HomeOf(const std::string& user) {
  std::optional<UserRecord> entry = UserByName(user);
  return entry && !entry->home.empty() ? entry->home : "/";
}

}  // namespace

Result<std::vector<std::string>> JobPropertiesAsOptions(const Json& job, int64_t now) {
  std::vector<std::string> options;
  for (const auto& [name, value] : job.items()) {
    if (std::find(std::begin(kSpecial), std::end(kSpecial), name) != std::end(kSpecial)) continue;
    auto row = std::find_if(std::begin(kProperties), std::end(kProperties),
                            [&](const Property& p) { return p.name == name; });
    if (row == std::end(kProperties)) {
      return InvalidArgument("unknown job property: " + name);
    }
    const std::string option = "--" + std::string(row->option);
    if (row->kind == Kind::kText) {
      Result<std::string> text = ScalarText(name, value);
      if (!text.ok()) return text.status();
      options.push_back(option + "=" + *text);
      continue;
    }
    if (!value.is_boolean()) return PropertyError(name, "true or false");
    const bool on = value.get<bool>();
    switch (row->kind) {
      case Kind::kFlag:
        if (on) options.push_back(option);
        break;
      case Kind::kYesNo:
        options.push_back(option + (on ? "=yes" : "=no"));
        break;
      case Kind::kOnOff:
        options.push_back(on ? option : "--no-" + std::string(row->option));
        break;
      case Kind::kText:
        break;
    }
  }
  if (job.contains("nodes")) {
    const Json& nodes = job["nodes"];
    if (nodes.is_array() && !nodes.empty() && nodes.size() <= 2 &&
        std::all_of(nodes.begin(), nodes.end(),
                    [](const Json& n) { return n.is_number_integer() && n.get<int64_t>() > 0; })) {
      std::string text = std::to_string(nodes[0].get<int64_t>());
      if (nodes.size() == 2) text += "-" + std::to_string(nodes[1].get<int64_t>());
      options.push_back("--nodes=" + text);
    } else {
      Result<std::string> text = ScalarText("nodes", nodes);
      if (!text.ok()) return PropertyError("nodes", "[min, max], a count or a range");
      options.push_back("--nodes=" + *text);
    }
  }
  if (job.contains("exclusive")) {
    const Json& e = job["exclusive"];
    std::string text = e.is_boolean() ? (e.get<bool>() ? "true" : "false")
                                      : (e.is_string() ? e.get<std::string>() : "?");
    if (text == "true") {
      options.push_back("--exclusive");
    } else if (text == "user" || text == "mcs") {
      options.push_back("--exclusive=" + text);
    } else if (text != "false") {
      return PropertyError("exclusive", "user, mcs, true or false");
    }
  }
  if (job.contains("begin_time")) {
    const Json& b = job["begin_time"];
    if (!b.is_number_integer()) return PropertyError("begin_time", "a Unix time");
    // sbatch's --begin takes no Unix time; the same instant as an offset.
    const int64_t begin = b.get<int64_t>();
    if (begin > now) options.push_back("--begin=now+" + std::to_string(begin - now));
  }
  return options;
}

HttpResponse SubmitJob(const HttpRequest& request, const PathParams&, Backend& backend) {
  auto fail = [](const Status& s) {
    return ErrorAnswer(kFlavor, 400, s.message(), kEslurmRestFailParsing);
  };
  Result<Json> body = ParseJsonBody(request);
  if (!body.ok()) return fail(body.status());
  if (body->contains("jobs")) {
    return fail(InvalidArgument("heterogeneous jobs (\"jobs\") are not supported"));
  }
  if (!body->contains("script") || !(*body)["script"].is_string()) {
    return fail(InvalidArgument("the submission needs a \"script\" (a string)"));
  }
  const std::string script = (*body)["script"].get<std::string>();
  if (Status s = cli::CheckBatchScript(script); !s.ok()) return fail(s);
  const Json job = body->contains("job") ? (*body)["job"] : Json::object();
  if (!job.is_object()) return fail(InvalidArgument("\"job\" must be an object"));

  cli::JobOptionsContext context;
  context.now = backend.now();
  context.max_script_bytes = backend.config().settings.scheduler.max_script_size;
  if (job.contains("environment")) {
    const Json& env = job["environment"];
    if (env.is_object()) {
      for (const auto& [name, value] : env.items()) {
        Result<std::string> text = ScalarText("environment", value);
        if (!text.ok()) return fail(text.status());
        context.env[name] = *text;
      }
    } else if (env.is_array()) {  // ["NAME=value", ...], as later versions take it
      for (const Json& entry : env) {
        if (!entry.is_string()) return fail(PropertyError("environment", "an object of strings"));
        const std::string text = entry.get<std::string>();
        const size_t eq = text.find('=');
        if (eq == std::string::npos || eq == 0) {
          return fail(InvalidArgument("environment entry without NAME=: " + text));
        }
        context.env[text.substr(0, eq)] = text.substr(eq + 1);
      }
    } else {
      return fail(PropertyError("environment", "an object of strings"));
    }
  } else {
    // slurmrestd refuses a job without one: nothing would say what PATH is.
    return fail(InvalidArgument("job property environment is required"));
  }
  context.cwd =
      job.contains("current_working_directory") && job["current_working_directory"].is_string()
          ? job["current_working_directory"].get<std::string>()
          : HomeOf(backend.user_name());
  Result<std::vector<std::string>> options = JobPropertiesAsOptions(job, context.now);
  if (!options.ok()) return fail(options.status());

  Result<cli::ParsedJobOptions> parsed = [&] {
    std::lock_guard<std::mutex> hold(ParserLock());
    return cli::ParseJobOptions(cli::Command::kSbatch, {*options, {}}, context);
  }();
  if (!parsed.ok()) return fail(parsed.status());
  wire::SubmitJobRequest submit;
  wire::JobSpec& spec = *submit.mutable_spec();
  spec = parsed->spec;
  spec.set_script(script);
  if (spec.name().empty()) spec.set_name("rest");
  if (job.contains("argv")) {
    const Json& argv = job["argv"];
    if (!argv.is_array()) return fail(PropertyError("argv", "a list of strings"));
    spec.clear_argv();
    for (const Json& a : argv) {
      if (!a.is_string()) return fail(PropertyError("argv", "a list of strings"));
      spec.add_argv(a.get<std::string>());
    }
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  spec.set_submit_host(host);
  auto answer =
      ParseAnswer<wire::SubmitJobResponse>(backend.CallController(api::kSubmitJob, submit));
  if (!answer.ok()) return StatusAnswer(kFlavor, answer.status());
  Json out = Envelope(kFlavor);
  out["job_id"] = answer->job_id();
  out["step_id"] = "BATCH";
  out["job_submit_user_msg"] = answer->message();
  return JsonAnswer(out);
}

}  // namespace rota::rest
