// squeue: list jobs.
#include <getopt.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/cluster_option.h"
#include "cli/format/squeue_fields.h"
#include "cli/job_state_names.h"
#include "cli/local_time.h"
#include "cli/query/job_listing.h"
#include "cli/query/squeue_json.h"
#include "cli/query/squeue_option_table.h"
#include "cli/slurm_version.h"
#include "cli/step/step_commands.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "model/index_set.h"
#include "rota.pb.h"

namespace {

// squeue -L: whether a job's licenses ("foo:2,bar") name one of `wanted`.
bool AsksForALicense(std::string_view asked, const std::vector<std::string>& wanted) {
  for (std::string_view license : rota::Split(asked, ',')) {
    const std::string_view name = license.substr(0, license.find(':'));
    if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) return true;
  }
  return false;
}

void AddList(google::protobuf::RepeatedPtrField<std::string>* out, const char* text) {
  for (std::string_view piece : rota::Split(text, ',')) {
    if (!piece.empty()) out->Add(std::string(piece));
  }
}

// One printed row: a record of the listing, or with -r one task of a pending
// array's record (the collapsed 1234_[1-100] split into 1234_1 ... 1234_100).
struct Row {
  uint32_t record;
  std::optional<uint32_t> task;
};

std::vector<Row> RowsOf(rota::cli::JobListing& listing, bool expand_arrays) {
  std::vector<Row> rows;
  rows.reserve(listing.size());
  for (size_t i = 0; i < listing.size(); ++i) {
    const auto record = static_cast<uint32_t>(i);
    const rota::wire::JobRecord* job = expand_arrays ? listing.Load(i) : nullptr;
    if (job == nullptr || !job->array_meta()) {
      rows.push_back({record, std::nullopt});
      continue;
    }
    rota::model::IndexSet tasks = rota::model::IndexSet::Parse(job->array_pending()).value_or({});
    while (std::optional<uint32_t> t = tasks.PopFirst()) rows.push_back({record, *t});
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rota::cli::squeue_options;  // kLong, kShort and the option ids
  rota::cli::format::SqueueOptions options;
  rota::wire::ListJobsRequest request;
  bool expand_arrays = false;
  bool steps = false;
  std::string nodelist;
  // -M, else SLURM_CLUSTERS: checked before anything is contacted.
  std::string clusters = rota::cli::ClustersFromEnvironment();
  bool no_convert = false;            // --noconvert
  std::string reservation;            // -R: jobs of this reservation only
  std::vector<std::string> licenses;  // -L: jobs asking for one of these licenses
  if (const char* unique = std::getenv("SQUEUE_ARRAY_UNIQUE"); unique != nullptr) {
    expand_arrays = true;
  }
  int iterate_s = 0;  // -i: seconds between listings
  int c;
  int long_index = -1;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'h':
        options.no_header = true;
        break;
      case 'l':
        options.long_format = true;
        break;
      case 'o':
        options.format = optarg;
        break;
      case 'O':
        options.format_long = optarg;
        break;
      case 'u':
        AddList(request.mutable_users(), optarg);
        break;
      case 'j':
        if (optarg != nullptr) AddList(request.mutable_job_ids(), optarg);
        break;
      case 'p':
        AddList(request.mutable_partitions(), optarg);
        break;
      case 't':
        AddList(request.mutable_states(), optarg);
        break;
      case 'A':
        AddList(request.mutable_accounts(), optarg);
        break;
      case 'n':
        AddList(request.mutable_names(), optarg);
        break;
      case 'q':
        AddList(request.mutable_qos(), optarg);
        break;
      case 'w':
        nodelist = optarg;
        break;
      case 'r':
        expand_arrays = true;
        break;
      case 's':
        steps = true;
        if (optarg != nullptr) AddList(request.mutable_job_ids(), optarg);
        break;
      case 'S':
        options.sort = optarg;
        break;
      case kStart:
        options.start = true;
        break;
      case kJson:
        options.json = true;
        break;
      case 1002:
        request.add_users(std::to_string(getuid()));
        break;
      case 'M':
        clusters = optarg;
        break;
      case kNoConvert:
        no_convert = true;
        break;
      case kNoOp:
      case 'a':
      case 'v':
      case 'P':  // A job is listed once: it waits in one partition at a time
        break;
      case kArrayUnique:
        expand_arrays = true;
        break;
      case 'R':
        reservation = optarg;
        break;
      case 'L':
        licenses = rota::SplitCommaList(optarg);
        break;
      case 1003:
        std::cout
            << "Usage: squeue [-h] [-l] [-r] [--start] [-o FORMAT] [-O FORMAT] [-u USERS] [-j "
               "JOBS]\n"
               "              [-p PARTITIONS] [-t STATES] [-A ACCOUNTS] [-q QOS] [-w NODES]\n";
        return 0;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      case 'i': {
        const std::optional<uint64_t> secs = rota::ParseUint(optarg);
        if (!secs || *secs == 0 || *secs > 86400) {
          std::cerr << "squeue: error: --iterate=" << optarg << "\n";
          return 1;
        }
        iterate_s = static_cast<int>(*secs);
        break;
      }
      default:
        if (rota::cli::ReportRefusedOption("squeue", c, kLong, long_index, kRefused)) return 1;
        std::cerr << "Try \"squeue --help\" for more information\n";
        return 1;
    }
  }
  for (int i = optind; i < argc; ++i) AddList(request.mutable_job_ids(), argv[i]);
  if (!clusters.empty()) {
    if (rota::Status s = rota::cli::CheckClusterOption(clusters, rota::cli::CommandSlurmConfPath());
        !s.ok()) {
      std::cerr << "squeue: error: " << s.message() << "\n";
      return 1;
    }
  }
  for (const std::string& state : request.states()) {
    if (!rota::cli::IsSqueueStateName(state)) {
      const std::string error = rota::cli::SqueueStateError(state);
      for (std::string_view line : rota::Split(error, '\n')) {
        std::cerr << "squeue: error: " << line << "\n";
      }
      return 1;
    }
  }
  if (!steps) {
    for (const std::string& id : request.job_ids()) {
      if (!rota::cli::IsJobIdText(id)) {
        std::cerr << "squeue: error: Invalid job id: " << id << "\n";
        return 1;
      }
    }
  }
  if (steps) {  // Running job steps (cli/step/step_commands.h).
    return rota::cli::ListStepsCommand(rota::cli::CommandSlurmConfPath(),
                                       {request.job_ids().begin(), request.job_ids().end()},
                                       !options.no_header);
  }
  // Ask only for the fields this listing reads; --json prints whole records.
  if (!options.json) {
    auto fields = rota::cli::format::SqueueProjection(options);
    if (!fields.ok()) {
      std::cerr << "squeue: error: " << fields.status().message() << "\n";
      return 1;
    }
    if (!nodelist.empty()) fields->AddRecord({rota::wire::JobRecord::kNodesFieldNumber});
    if (!reservation.empty()) fields->AddSpec({rota::wire::JobSpec::kReservationFieldNumber});
    if (!licenses.empty()) fields->AddSpec({rota::wire::JobSpec::kLicensesFieldNumber});
    fields->ToRequest(request);
    // Unknown format fields are told now, before the controller is asked
    // (the listing goes on without them, as in Slurm).
    auto none = [](size_t) -> const rota::wire::JobRecord* { return nullptr; };
    if (auto empty = rota::cli::format::RenderSqueue(0, none, options, {}); empty.ok()) {
      for (const std::string& e : empty->errors) std::cerr << "squeue: error: " << e << "\n";
    }
  }

  std::vector<std::string> wanted_nodes;
  if (!nodelist.empty()) {
    auto wanted = rota::ExpandHostlist(nodelist);
    if (!wanted.ok()) {
      std::cerr << "squeue: error: " << wanted.status().message() << "\n";
      return 1;
    }
    wanted_nodes = std::move(wanted).value();
  }

  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "squeue: error: " << client.status().message() << "\n";
    return 1;
  }
  // One listing; -i repeats it every N seconds, a blank line between, until
  // interrupted, as Slurm's squeue does.
  auto list_once = [&]() -> int {
    auto body = (*client)->CallForBody(rota::api::kListJobs, request);
    if (!body.ok()) {
      std::cerr << "squeue: error: " << body.status().message() << "\n";
      return 1;
    }
    auto listing = rota::cli::JobListing::Parse(std::move(body).value());
    if (!listing.ok()) {
      std::cerr << "squeue: error: " << listing.status().message() << "\n";
      return 1;
    }
    const std::vector<Row> rows = RowsOf(*listing, expand_arrays);
    // One job id alone is asked for by itself in Slurm, which says so when the
    // controller does not know it (scripts poll for that); any other selection
    // that matches nothing lists nothing.
    if (rows.empty() && request.job_ids_size() == 1 && !options.json) {
      rota::wire::ListJobsRequest only;
      only.add_job_ids(request.job_ids(0));
      only.add_record_fields(rota::wire::JobRecord::kJobIdFieldNumber);
      auto known = (*client)->CallForBody(rota::api::kListJobs, only);
      auto found = known.ok() ? rota::cli::JobListing::Parse(std::move(known).value())
                              : rota::Result<rota::cli::JobListing>(known.status());
      if (found.ok() && found->size() == 0) {
        std::cerr << "slurm_load_jobs error: Invalid job id specified\n";
        return 1;
      }
    }
    bool malformed = false;
    // Each row is parsed when the listing asks for it, into one reused message.
    auto source = [&](size_t k) -> const rota::wire::JobRecord* {
      rota::wire::JobRecord* job = listing->Load(rows[k].record);
      if (job == nullptr) {
        malformed = true;
        return nullptr;
      }
      if (rows[k].task) {
        job->set_array_meta(false);
        job->set_array_task_id(*rows[k].task);
        job->clear_array_pending();
      }
      if (!reservation.empty() && job->spec().reservation() != reservation) return nullptr;
      if (!licenses.empty() && !AsksForALicense(job->spec().licenses(), licenses)) return nullptr;
      if (!wanted_nodes.empty() &&
          std::none_of(job->nodes().begin(), job->nodes().end(), [&](const std::string& n) {
            return std::find(wanted_nodes.begin(), wanted_nodes.end(), n) != wanted_nodes.end();
          })) {
        return nullptr;
      }
      return job;
    };
    if (options.json) {
      std::vector<rota::wire::JobRecord> copies;
      copies.reserve(rows.size());
      for (size_t k = 0; k < rows.size(); ++k) {
        if (const rota::wire::JobRecord* job = source(k)) copies.push_back(*job);
      }
      if (malformed) {
        std::cerr << "squeue: error: malformed answer from the controller\n";
        return 1;
      }
      std::cout << rota::cli::SqueueJson(copies, listing->now());
      return 0;
    }
    rota::cli::format::SqueueContext ctx;
    ctx.now = listing->now();
    ctx.no_convert = no_convert;
    ctx.forecast = listing->forecast();
    ctx.utc_offset_s = rota::cli::UtcOffsetSeconds(ctx.now);
    auto text = rota::cli::format::RenderSqueue(rows.size(), source, options, ctx);
    if (!text.ok()) {
      std::cerr << "squeue: error: " << text.status().message() << "\n";
      return 1;
    }
    if (malformed) {
      std::cerr << "squeue: error: malformed answer from the controller\n";
      return 1;
    }
    std::cout << text->text;
    std::cout.flush();
    return std::cout.good() ? 0 : 1;
  };
  if (iterate_s == 0) return list_once();
  for (;;) {
    if (const int rc = list_once(); rc != 0) return rc;
    std::cout << "\n" << std::flush;
    std::this_thread::sleep_for(std::chrono::seconds(iterate_s));
  }
}
