#include "cli/step/step_commands.h"

#include <fmt/format.h>

#include <csignal>
#include <iostream>

#include "api/auth_settings.h"
#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "cli/client/node_caller.h"
#include "common/duration.h"
#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::cli {

std::optional<std::pair<uint32_t, uint32_t>> ParseStepId(std::string_view text) {
  size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::optional<uint64_t> job = ParseUint(text.substr(0, dot));
  std::optional<uint64_t> step = ParseUint(text.substr(dot + 1));
  if (!job || !step || *job == 0 || *job > UINT32_MAX || *step > UINT32_MAX) return std::nullopt;
  return std::make_pair(static_cast<uint32_t>(*job), static_cast<uint32_t>(*step));
}

std::string FormatStepTable(const std::vector<wire::JobStepRecord>& steps, int64_t now,
                            bool header) {
  // Field widths of Slurm's default step format: %.15i %.8j %.9P %.8u %.9M %N.
  auto cut = [](const std::string& s, size_t width) {
    return s.size() > width ? s.substr(0, width) : s;
  };
  std::string out;
  if (header)
    out = fmt::format("{:>15} {:>8} {:>9} {:>8} {:>9} {}\n", "STEPID", "NAME", "PARTITION", "USER",
                      "TIME", "NODELIST");
  for (const wire::JobStepRecord& s : steps) {
    std::string user = s.user().empty() ? std::to_string(s.uid()) : s.user();
    std::vector<std::string> nodes(s.nodes().begin(), s.nodes().end());
    out += fmt::format("{:>15} {:>8} {:>9} {:>8} {:>9} {}\n",
                       cut(fmt::format("{}.{}", s.job_id(), s.step_id()), 15), cut(s.name(), 8),
                       cut(s.partition(), 9), cut(user, 8),
                       FormatDurationSqueue(std::max<int64_t>(0, now - s.start_time())),
                       CompressHostlist(nodes));
  }
  return out;
}

int ListStepsCommand(const std::string& slurm_conf, const std::vector<std::string>& job_ids,
                     bool header) {
  wire::ListStepsRequest request;
  std::vector<std::pair<uint32_t, uint32_t>> only;  // JOBID.STEPID filters
  for (const std::string& id : job_ids) {
    if (auto step = ParseStepId(id)) {
      only.push_back(*step);
      request.add_job_ids(step->first);
    } else if (std::optional<uint64_t> job = ParseUint(id); job && *job <= UINT32_MAX) {
      request.add_job_ids(static_cast<uint32_t>(*job));
    } else {
      std::cerr << "squeue: error: Invalid job id: " << id << "\n";
      return 1;
    }
  }
  auto client = ControllerClient::Create(slurm_conf);
  if (!client.ok()) {
    std::cerr << "squeue: error: " << client.status().message() << "\n";
    return 1;
  }
  wire::ListStepsResponse answer;
  if (Status s = (*client)->Call(api::kListSteps, request, &answer); !s.ok()) {
    std::cerr << "squeue: error: " << s.message() << "\n";
    return 1;
  }
  std::vector<wire::JobStepRecord> steps;
  for (const wire::JobStepRecord& s : answer.steps()) {
    bool wanted = only.empty();
    for (const auto& [job, step] : only)
      wanted = wanted || (s.job_id() == job && s.step_id() == step);
    // A plain job id among the filters shows all its steps.
    for (const std::string& id : job_ids) {
      if (!ParseStepId(id) && ParseUint(id) == s.job_id()) wanted = true;
    }
    if (wanted) steps.push_back(s);
  }
  std::cout << FormatStepTable(steps, answer.now(), header);
  return 0;
}

int CancelStepCommand(const std::string& slurm_conf, uint32_t job_id, uint32_t step_id, int signal,
                      bool quiet) {
  auto fail = [&](const std::string& why) {
    if (!quiet) {
      std::cerr << "scancel: error: Kill job error on job step id " << job_id << "." << step_id
                << ": " << why << "\n";
    }
    return 1;
  };
  auto client = ControllerClient::Create(slurm_conf);
  if (!client.ok()) return fail(client.status().message());
  wire::ListStepsRequest request;
  request.add_job_ids(job_id);
  request.set_step_id(step_id);
  request.set_step_id_given(true);
  wire::ListStepsResponse answer;
  if (Status s = (*client)->Call(api::kListSteps, request, &answer); !s.ok()) {
    return fail(s.message());
  }
  if (answer.steps_size() == 0) return fail("Invalid job id specified");
  auto issuer = auth::MakeIssuer(api::AuthSettingsFor((*client)->config()));
  if (!issuer.ok()) return fail(issuer.status().message());
  NodeCaller nodes((*client)->config(), **issuer);
  wire::SignalTasksRequest signal_request;
  signal_request.set_job_id(job_id);
  signal_request.set_step_id(step_id);
  signal_request.set_signal(signal == 0 ? SIGKILL : signal);
  int code = 0;
  for (const std::string& node : answer.steps(0).nodes()) {
    Status s = nodes.Call(node, api::kSignalTasks, signal_request, std::chrono::seconds(10));
    if (!s.ok()) code = fail(node + ": " + s.message());
  }
  return code;
}

}  // namespace rota::cli
