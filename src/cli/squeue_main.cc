// squeue: list jobs.
#include <getopt.h>
#include <google/protobuf/arena.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "api/methods.h"
#include "cli/controller_client.h"
#include "cli/format/squeue_fields.h"
#include "cli/local_time.h"
#include "cli/squeue_json.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "model/index_set.h"
#include "rota.pb.h"

namespace {

void AddList(google::protobuf::RepeatedPtrField<std::string>* out, const char* text) {
  for (std::string_view piece : rota::Split(text, ',')) {
    if (!piece.empty()) out->Add(std::string(piece));
  }
}

// -r: one row per pending array task instead of the collapsed 1234_[1-100].
std::vector<rota::wire::JobRecord> ExpandArrays(const rota::wire::ListJobsResponse& resp) {
  std::vector<rota::wire::JobRecord> out;
  for (const auto& job : resp.jobs()) {
    if (!job.array_meta()) {
      out.push_back(job);
      continue;
    }
    rota::model::IndexSet tasks = rota::model::IndexSet::Parse(job.array_pending()).value_or({});
    while (std::optional<uint32_t> t = tasks.PopFirst()) {
      rota::wire::JobRecord task = job;
      task.set_array_meta(false);
      task.set_array_task_id(*t);
      task.clear_array_pending();
      out.push_back(std::move(task));
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  rota::cli::format::SqueueOptions options;
  rota::wire::ListJobsRequest request;
  bool expand_arrays = false;
  std::string nodelist;
  enum { kStart = 1000, kJson };
  const option long_options[] = {
      {"noheader", no_argument, nullptr, 'h'},
      {"long", no_argument, nullptr, 'l'},
      {"format", required_argument, nullptr, 'o'},
      {"Format", required_argument, nullptr, 'O'},
      {"user", required_argument, nullptr, 'u'},
      {"jobs", optional_argument, nullptr, 'j'},
      {"partition", required_argument, nullptr, 'p'},
      {"states", required_argument, nullptr, 't'},
      {"account", required_argument, nullptr, 'A'},
      {"qos", required_argument, nullptr, 'q'},
      {"nodelist", required_argument, nullptr, 'w'},
      {"array", no_argument, nullptr, 'r'},
      {"sort", required_argument, nullptr, 'S'},
      {"start", no_argument, nullptr, kStart},
      {"json", no_argument, nullptr, kJson},
      {"help", no_argument, nullptr, 1003},
      {"me", no_argument, nullptr, 1002},
      {"all", no_argument, nullptr, 'a'},
      {nullptr, 0, nullptr, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "hlo:O:u:j::p:t:A:q:w:rS:av", long_options, nullptr)) != -1) {
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
      case 'q':
        AddList(request.mutable_qos(), optarg);
        break;
      case 'w':
        nodelist = optarg;
        break;
      case 'r':
        expand_arrays = true;
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
      case 'a':
      case 'v':
        break;
      case 1003:
        std::cout
            << "Usage: squeue [-h] [-l] [-r] [--start] [-o FORMAT] [-O FORMAT] [-u USERS] [-j "
               "JOBS]\n"
               "              [-p PARTITIONS] [-t STATES] [-A ACCOUNTS] [-q QOS] [-w NODES]\n";
        return 0;
      default:
        std::cerr << "Try \"squeue --help\" for more information\n";
        return 1;
    }
  }
  for (int i = optind; i < argc; ++i) AddList(request.mutable_job_ids(), argv[i]);

  auto client = rota::cli::ControllerClient::Create(rota::conf::DefaultSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "squeue: error: " << client.status().message() << "\n";
    return 1;
  }
  // An arena makes parsing 100,000 records a few big allocations instead of
  // a million small ones, and frees them all at once.
  google::protobuf::Arena arena;
  auto& response = *google::protobuf::Arena::CreateMessage<rota::wire::ListJobsResponse>(&arena);
  rota::Status s = (*client)->Call(rota::api::kListJobs, request, &response);
  if (!s.ok()) {
    std::cerr << "squeue: error: " << s.message() << "\n";
    return 1;
  }
  // Rows point into the response (or into expanded array tasks): no copies.
  std::vector<rota::wire::JobRecord> expanded;
  if (expand_arrays) expanded = ExpandArrays(response);
  std::vector<const rota::wire::JobRecord*> jobs;
  if (expand_arrays) {
    for (const auto& j : expanded) jobs.push_back(&j);
  } else {
    for (const auto& j : response.jobs()) jobs.push_back(&j);
  }
  if (!nodelist.empty()) {
    auto wanted = rota::ExpandHostlist(nodelist);
    if (!wanted.ok()) {
      std::cerr << "squeue: error: " << wanted.status().message() << "\n";
      return 1;
    }
    std::erase_if(jobs, [&](const rota::wire::JobRecord* j) {
      return std::none_of(j->nodes().begin(), j->nodes().end(), [&](const std::string& n) {
        return std::find(wanted->begin(), wanted->end(), n) != wanted->end();
      });
    });
  }
  if (options.json) {
    std::vector<rota::wire::JobRecord> copies;
    for (const auto* j : jobs) copies.push_back(*j);
    std::cout << rota::cli::SqueueJson(copies, response.now());
    return 0;
  }
  rota::cli::format::SqueueContext ctx;
  ctx.now = response.now();
  ctx.utc_offset_s = rota::cli::UtcOffsetSeconds(ctx.now);
  auto listing = rota::cli::format::RenderSqueue(
      std::span<const rota::wire::JobRecord* const>(jobs), options, ctx);
  if (!listing.ok()) {
    std::cerr << "squeue: error: " << listing.status().message() << "\n";
    return 1;
  }
  for (const std::string& e : listing->errors) std::cerr << "squeue: error: " << e << "\n";
  std::cout << listing->text;
  std::cout.flush();
  // Everything is printed; tearing down 100,000 parsed records would only cost time.
  std::_Exit(std::cout.good() ? 0 : 1);
}
