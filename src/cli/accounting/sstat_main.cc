// sstat: live figures of running job steps, read from the node daemons that
// run them (docs/accounting.md, "sstat").
#include <getopt.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "api/auth_settings.h"
#include "api/methods.h"
#include "cli/accounting/sstat_fields.h"
#include "cli/accounting/sstat_option_table.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/client/node_caller.h"
#include "cli/slurm_version.h"
#include "conf/config_loader.h"
#include "step_rpc.pb.h"
#include "step_stats.pb.h"

namespace {

using rota::cli::SacctLayout;
using rota::cli::SstatSelection;
using rota::cli::SstatStep;

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: sstat [options] -j job[.stepid]\n"
               "  -a, --allsteps           every running step of a job named without a step\n"
               "  -e, --helpformat         list the fields -o takes\n"
               "  -j, --jobs=LIST          job[.step] list; a step of 'batch' is the batch step\n"
               "  -n, --noheader           no header\n"
               "  -o, --format=LIST        fields, e.g. JobID,AveCPU,MaxRSS,TRESUsageInAve%%60\n"
               "  -p, --parsable           '|' after every field\n"
               "  -P, --parsable2          '|' between fields\n"
               "      --noconvert          memory in the unit it was measured in (K)\n"
               "  -v, --verbose            say which steps had no figures\n"
               "  -V, --version            Slurm's version line\n"
               "  -h, --help, --usage      this text\n");
}

// One step to read: where it runs.
struct Target {
  uint32_t job_id = 0;
  std::string step;  // "batch", "0"
  std::vector<std::string> nodes;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace rota::cli::sstat_options;
  bool all_steps = false, no_header = false, no_convert = false, verbose = false;
  SacctLayout layout = SacctLayout::kAligned;
  std::string format, jobs_text;
  int c, long_index = 0;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'a':
        all_steps = true;
        break;
      case 'o':
        if (!format.empty()) format += ',';
        format += optarg;
        break;
      case 'e':
        std::cout << rota::cli::SstatHelpFormat();
        return 0;
      case 'j':
        if (!jobs_text.empty()) jobs_text += ',';
        jobs_text += optarg;
        break;
      case 'n':
        no_header = true;
        break;
      case 'p':
        layout = SacctLayout::kParsable;
        break;
      case 'P':
        layout = SacctLayout::kParsable2;
        break;
      case kNoConvert:
        no_convert = true;
        break;
      case 'v':
        verbose = true;
        break;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      case 'h':
      case kUsage:
        Usage(stdout);
        return 0;
      default:
        if (rota::cli::ReportRefusedOption("sstat", c, kLong, long_index, kRefused)) return 1;
        Usage(stderr);
        return 1;
    }
  }
  // As Slurm's sstat, job ids may also follow the options.
  for (; optind < argc; ++optind) {
    if (!jobs_text.empty()) jobs_text += ',';
    jobs_text += argv[optind];
  }
  auto selections = rota::cli::ParseSstatJobs(jobs_text);
  if (!selections.ok()) {
    std::cerr << "sstat: error: " << selections.status().message() << "\n";
    return 1;
  }
  if (selections->empty()) {
    std::cerr << "sstat: error: You didn't give me any jobs to stat.\n";
    return 1;
  }
  auto columns = rota::cli::ParseSstatFormat(
      format.empty() ? std::string(rota::cli::kSstatDefaultFormat) : format);
  if (!columns.ok()) {
    std::cerr << "sstat: error: " << columns.status().message() << "\n";
    return 1;
  }

  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "sstat: error: " << client.status().message() << "\n";
    return 1;
  }
  rota::wire::ListStepsRequest ask;
  for (const SstatSelection& s : *selections) ask.add_job_ids(s.job_id);
  ask.set_with_jobs(true);
  rota::wire::ListStepsResponse listed;
  if (auto s = (*client)->Call(rota::api::kListSteps, ask, &listed); !s.ok()) {
    std::cerr << "sstat: error: " << s.message() << "\n";
    return 1;
  }
  auto job_of = [&](uint32_t id) -> const rota::wire::JobLaunch* {
    for (const rota::wire::JobLaunch& j : listed.jobs()) {
      if (j.job_id() == id) return &j;
    }
    return nullptr;
  };
  // The job's running srun steps, by step id.
  auto steps_of = [&](uint32_t id) {
    std::vector<const rota::wire::JobStepRecord*> steps;
    for (const rota::wire::JobStepRecord& s : listed.steps()) {
      if (s.job_id() == id && s.state() == rota::wire::JOB_STATE_RUNNING) steps.push_back(&s);
    }
    std::sort(steps.begin(), steps.end(),
              [](const auto* a, const auto* b) { return a->step_id() < b->step_id(); });
    return steps;
  };
  auto batch_of = [&](const rota::wire::JobLaunch* job) -> std::optional<Target> {
    if (job == nullptr || job->state() != rota::wire::JOB_STATE_RUNNING ||
        job->spec().interactive() || job->nodes().empty()) {
      return std::nullopt;
    }
    return Target{job->job_id(), "batch", {job->nodes(0)}};
  };
  auto srun_target = [](const rota::wire::JobStepRecord& s) {
    return Target{s.job_id(), std::to_string(s.step_id()), {s.nodes().begin(), s.nodes().end()}};
  };

  std::vector<Target> targets;
  for (const SstatSelection& sel : *selections) {
    const rota::wire::JobLaunch* job = job_of(sel.job_id);
    switch (sel.kind) {
      case SstatSelection::Kind::kBatch:
        if (job == nullptr) {
          std::cerr << "sstat: error: couldn't get info for job " << sel.job_id << "\n";
        } else if (auto t = batch_of(job)) {
          targets.push_back(*t);
        } else if (verbose) {
          std::cerr << "sstat: " << sel.job_id << ".batch is not running\n";
        }
        break;
      case SstatSelection::Kind::kExtern:
        std::cerr << "sstat: error: " << sel.job_id << ".extern: the extern step is not measured\n";
        break;
      case SstatSelection::Kind::kStep: {
        bool found = false;
        for (const auto* s : steps_of(sel.job_id)) {
          if (s->step_id() == sel.step_id) {
            targets.push_back(srun_target(*s));
            found = true;
          }
        }
        if (!found && verbose) {
          std::cerr << "sstat: " << sel.job_id << "." << sel.step_id << " is not running\n";
        }
        break;
      }
      case SstatSelection::Kind::kDefault: {
        std::vector<Target> running;
        if (auto t = batch_of(job)) running.push_back(*t);
        for (const auto* s : steps_of(sel.job_id)) running.push_back(srun_target(*s));
        if (running.empty()) {
          std::cerr << "sstat: error: no steps running for job " << sel.job_id << "\n";
        } else if (all_steps) {
          targets.insert(targets.end(), running.begin(), running.end());
        } else {
          // The lowest srun step running, else the batch step (Slurm's
          // lowest step; Rota never picks the unmeasured extern step).
          targets.push_back(running.size() > 1 && running[0].step == "batch" ? running[1]
                                                                             : running[0]);
        }
        break;
      }
    }
  }

  auto issuer = rota::auth::MakeIssuer(rota::api::AuthSettingsFor((*client)->config()));
  if (!issuer.ok()) {
    std::cerr << "sstat: error: " << issuer.status().message() << "\n";
    return 1;
  }
  rota::cli::NodeCaller nodes((*client)->config(), **issuer);
  std::vector<SstatStep> steps;
  for (const Target& t : targets) {
    rota::wire::StepStatsRequest request;
    request.set_job_id(t.job_id);
    if (t.step == "batch") {
      request.set_batch(true);
    } else {
      request.add_step_ids(static_cast<uint32_t>(std::stoul(t.step)));
    }
    SstatStep step{t.job_id, t.step, {}};
    for (const std::string& node : t.nodes) {
      rota::wire::StepStatsResponse answer;
      rota::Status s =
          nodes.Call(node, rota::api::kStepStats, request, &answer, std::chrono::seconds(10));
      if (!s.ok()) {
        std::cerr << "sstat: error: problem getting step_layout for " << t.job_id << "." << t.step
                  << ": " << node << ": " << s.message() << "\n";
        continue;
      }
      for (const rota::wire::StepLiveFigures& f : answer.steps()) step.nodes.push_back(f);
    }
    if (step.nodes.empty()) {
      if (verbose) std::cerr << "sstat: " << t.job_id << "." << t.step << " has no figures\n";
      continue;
    }
    steps.push_back(std::move(step));
  }
  rota::cli::SstatContext ctx;
  ctx.no_convert = no_convert;
  std::cout << rota::cli::RenderSstat(*columns, layout, no_header, steps, ctx);
  return 0;
}
