// sacct: job accounting from rotadbd.
#include <getopt.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "cli/accounting/job_records_query.h"
#include "cli/accounting/sacct_fields.h"
#include "cli/accounting/sacct_job_selection.h"
#include "cli/accounting/sacct_job_texts.h"
#include "cli/accounting/sacct_json.h"
#include "cli/accounting/sacct_option_table.h"
#include "cli/accounting/sacct_size_filters.h"
#include "cli/client/accounting_client.h"
#include "cli/client/config_source.h"
#include "cli/cluster_option.h"
#include "cli/event_time.h"
#include "cli/job_state_names.h"
#include "cli/local_time.h"
#include "cli/slurm_version.h"
#include "common/duration.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "common/user_names.h"
#include "conf/config_loader.h"
#include "model/job_state.h"

namespace {

using rota::cli::SacctLayout;

void Usage(FILE* to) {
  std::fprintf(
      to,
      "Usage: sacct [options]\n"
      "  -a, --allusers           all users' jobs\n"
      "  -A, --accounts=LIST      jobs charged to these accounts\n"
      "  -D, --duplicates         every attempt of a requeued job (default: the last)\n"
      "  -E, --endtime=TIME       jobs active before TIME (default: now)\n"
      "  -j, --jobs=LIST          these jobs, whatever their age\n"
      "  -n, --noheader           no header\n"
      "  -o, --format=LIST        fields, e.g. JobID,State,AllocTRES%%40\n"
      "  -p, --parsable           '|' after every field\n"
      "  -P, --parsable2          '|' between fields\n"
      "  -r, --partition=LIST     jobs in these partitions\n"
      "  -s, --state=LIST         jobs in these states (CD,F,CA,TO,NF,R,...)\n"
      "  -S, --starttime=TIME     jobs active after TIME (default: midnight)\n"
      "  -u, --user=LIST          these users' jobs\n"
      "  -X, --allocations        allocations only, no steps\n"
      "  -l, --long               Slurm's long list of fields\n"
      "  -e, --helpformat         the fields -o takes\n"
      "  -i, --nnodes=N[-M]       jobs that ran on this many nodes\n"
      "  -I, --ncpus=N[-M]        jobs that held this many CPUs\n"
      "  -k, --timelimit-min=T    jobs with a time limit of T at least\n"
      "  -K, --timelimit-max=T    ... and of T at most (with -k)\n"
      "  -R, --reason=LIST        jobs that last waited for these reasons\n"
      "  -M, --clusters=LIST      jobs of these clusters (this one, or all)\n"
      "  -B, --batch-script       the batch script of each job named by -j\n"
      "      --env-vars           the environment each job named by -j was submitted with\n"
      "      --noconvert          memory in the unit it was measured in (K)\n"
      "      --units=[KMGTP]      MaxRSS, AveRSS and ReqMem in this unit\n"
      "      --json               JSON output\n"
      "  -h, --help               this text\n");
}

int64_t Midnight(int64_t now) {
  time_t t = static_cast<time_t>(now);
  tm local{};
  localtime_r(&t, &local);
  local.tm_hour = 0;
  local.tm_min = 0;
  local.tm_sec = 0;
  local.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&local));
}

// A filter of the listing: empty passes everything.
bool Wanted(const std::vector<std::string>& wanted, const std::string& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

// sacct -N: whether `job` ran on one of `nodes` (empty: any job).
bool RanOnAny(const rota::wire::AccountingJob& job, const std::vector<std::string>& nodes) {
  if (nodes.empty()) return true;
  auto ran = rota::ExpandHostlist(job.nodelist());
  return ran.ok() && std::any_of(ran->begin(), ran->end(), [&](const std::string& n) {
           return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
         });
}

void AddNames(std::vector<std::string>& out, const char* text) {
  for (std::string& name : rota::SplitCommaList(text)) out.push_back(std::move(name));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rota::cli::sacct_options;  // kLong, kShort and the option ids
  rota::wire::QueryJobsRequest query;
  std::string format;
  if (const char* env = std::getenv("SACCT_FORMAT"); env != nullptr) format = env;
  SacctLayout layout = SacctLayout::kAligned;
  bool no_header = false, all_users = false, json = false, allocations_only = false;
  // -j: jobs, array tasks and steps (28, 30_2, 28.batch).
  rota::cli::SacctJobSelection selection;
  std::string start_text, end_text;
  // -M: rotadbd records one cluster; a list without it (or "all") lists nothing.
  std::string clusters;
  bool no_convert = false;
  bool batch_script = false, env_vars = false;          // -B, --env-vars
  std::optional<rota::cli::format::Unit> units;         // --units
  bool states_given = false;                            // -s, even naming only states no job is in
  std::vector<std::string> names, qos, wckeys, groups;  // --name, -q, -W, -g
  std::vector<std::string> nodes;                       // -N, expanded
  std::string delimiter = "|";                          // --delimiter, with -p or -P
  rota::cli::SacctSizeFilters sizes;                    // -i, -I, -k, -K, -R
  // -i/-I/-k/-K values: Slurm's fatal error names the option and the value.
  auto bad_value = [](const char* option, const char* value) {
    std::cerr << "sacct: fatal: invalid " << option << " value: " << value << "\n";
    return 1;
  };
  auto add_list = [](auto* out, const char* text) {
    for (std::string_view piece : rota::Split(text, ',')) {
      if (!piece.empty()) out->Add(std::string(piece));
    }
  };
  int c;
  int long_index = -1;
  while ((c = getopt_long(argc, argv, kShort, kLong, &long_index)) != -1) {
    switch (c) {
      case 'a':
        all_users = true;
        break;
      case 'A':
        add_list(query.mutable_accounts(), optarg);
        break;
      case 'D':
        query.set_all_attempts(true);
        break;
      case 'E':
        end_text = optarg;
        break;
      case 'j':
        if (rota::Status added = selection.Add(optarg); !added.ok()) {
          std::cerr << "sacct: fatal: " << added.message() << "\n";
          return 1;
        }
        for (uint32_t id : selection.QueryIds()) {
          if (std::find(query.job_ids().begin(), query.job_ids().end(), id) ==
              query.job_ids().end()) {
            query.add_job_ids(id);
          }
        }
        break;
      case 'n':
        no_header = true;
        break;
      case 'o':
        format = optarg;
        break;
      case 'p':
        layout = SacctLayout::kParsable;
        break;
      case 'P':
        layout = SacctLayout::kParsable2;
        break;
      case 'r':
        add_list(query.mutable_partitions(), optarg);
        break;
      case 's':
        for (std::string_view piece : rota::Split(optarg, ',')) {
          if (!rota::cli::IsSacctStateName(piece)) {
            std::cerr << "sacct: fatal: unrecognized job state value " << piece << "\n";
            return 1;
          }
          // States Rota never gives a job (CONFIGURING, REVOKED, ...) match none.
          rota::wire::JobState state;
          if (rota::model::ParseJobState(piece, &state)) query.add_states(state);
          states_given = true;
        }
        break;
      case 'S':
        start_text = optarg;
        break;
      case 'u':
        add_list(query.mutable_users(), optarg);
        break;
      case 'X':
        allocations_only = true;
        break;
      case kJson:
        json = true;
        break;
      case 'M':
        clusters = optarg;
        break;
      case 'L':
        clusters = "all";
        break;
      case kNoConvert:
        no_convert = true;
        break;
      case 'B':
        batch_script = true;
        break;
      case kEnvVars:
        env_vars = true;
        break;
      case kUnits:
        // As Slurm's: the first letter names the unit.
        units = rota::cli::format::UnitFromLetter(optarg);
        if (!units) {
          std::cerr << "sacct: error: Invalid unit type '" << (*optarg != 0 ? optarg[0] : ' ')
                    << "'. Possible options are 'KMGTP'\n";
          return 1;
        }
        break;
      case kNoOp:
      case 'v':
      case 'T':  // Start and end are shown as they were, window or not
        break;
      case 'b':  // Slurm's brief listing
        format = "JobID,State,ExitCode";
        break;
      case kDelimiter:
        delimiter = optarg;
        break;
      case kName:
        AddNames(names, optarg);
        break;
      case 'q':
        AddNames(qos, optarg);
        break;
      case 'W':
        AddNames(wckeys, optarg);
        break;
      case 'g':
        AddNames(groups, optarg);
        break;
      case 'N': {
        auto expanded = rota::ExpandHostlist(optarg);
        if (!expanded.ok()) {
          std::cerr << "sacct: error: Invalid node list: " << optarg << "\n";
          return 1;
        }
        nodes.insert(nodes.end(), expanded->begin(), expanded->end());
        break;
      }
      case 'l':
        format = std::string(rota::cli::kSacctLongFormat);
        break;
      case 'e':
        std::cout << rota::cli::SacctHelpFormat();
        return 0;
      case 'i':
      case 'I': {
        auto range = rota::cli::ParseCountRange(optarg);
        if (!range.ok()) return bad_value(c == 'i' ? "--nnodes" : "--ncpus", optarg);
        (c == 'i' ? sizes.nodes : sizes.cpus) = *range;
        break;
      }
      case 'k':
      case 'K': {
        auto limit = rota::ParseTimeOption(optarg);
        if (!limit.ok()) return bad_value(c == 'k' ? "--timelimit-min" : "--timelimit-max", optarg);
        (c == 'k' ? sizes.limit_min_s : sizes.limit_max_s) = *limit;
        break;
      }
      case 'R':
        AddNames(sizes.reasons, optarg);
        break;
      case 'h':
        Usage(stdout);
        return 0;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      default:
        if (rota::cli::ReportRefusedOption("sacct", c, kLong, long_index, kRefused)) return 1;
        Usage(stderr);
        return 1;
    }
  }
  if (optind < argc) {
    std::cerr << "sacct: error: unexpected argument '" << argv[optind] << "'\n";
    return 1;
  }

  if ((batch_script || env_vars) && selection.empty()) {
    std::cerr << "sacct: fatal: When requesting " << (env_vars ? "job environment" : "job scripts")
              << " you must also request specific jobs with the '-j' option.\n";
    return 1;
  }
  if (batch_script && env_vars) {
    std::cerr << "sacct: fatal: Options --batch-script and --env-vars are mutually exclusive\n";
    return 1;
  }
  query.set_with_script(batch_script);
  query.set_with_environment(env_vars);
  if (format.empty()) format = std::string(rota::cli::kSacctDefaultFormat);
  auto columns = rota::cli::ParseSacctFormat(format);
  if (!columns.ok()) {
    std::cerr << "sacct: error: " << columns.status().message() << "\n";
    return 1;
  }
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  int64_t window_start = Midnight(now);
  int64_t window_end = now;
  if (!start_text.empty()) {
    auto t = rota::cli::ParseEventTime(start_text, now);
    if (!t.ok()) {
      std::cerr << "sacct: error: Invalid time specification (pos=0): " << start_text << "\n";
      return 1;
    }
    window_start = *t;
  }
  if (!end_text.empty()) {
    auto t = rota::cli::ParseEventTime(end_text, now);
    if (!t.ok()) {
      std::cerr << "sacct: error: Invalid time specification (pos=0): " << end_text << "\n";
      return 1;
    }
    window_end = *t;
  }
  query.set_window_start(window_start);
  query.set_window_end(window_end);

  auto client = rota::cli::AccountingClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "sacct: error: " << client.status().message() << "\n";
    return 1;
  }
  // Without -a or -u a user sees their own jobs; root and SlurmUser see all.
  if (!all_users && query.users().empty()) {
    const uid_t uid = getuid();
    const std::string& slurm_user = (*client)->config().settings.slurm_user;
    if (uid != 0 && slurm_user != std::to_string(uid)) {
      query.add_users(rota::UserNameOrNumber(uid));
    }
  }
  const bool other_clusters_only =
      !clusters.empty() &&
      !rota::cli::ListsLocalCluster(clusters, (*client)->config().settings.cluster_name);
  const bool no_state_matches = states_given && query.states().empty();
  std::vector<rota::wire::AccountingJob> jobs;
  if (!other_clusters_only && !no_state_matches) {
    auto answer = rota::cli::QueryJobRecords(**client, query);
    if (!answer.ok()) {
      std::cerr << "sacct: error: " << answer.status().message() << "\n";
      return 1;
    }
    jobs = std::move(*answer);
  }
  // -j 28.batch: only that step of job 28, unless job 28 is named whole too.
  std::map<uint32_t, std::vector<std::string>> only_steps;
  if (!selection.empty()) selection.Apply(jobs, only_steps);
  // --name, -q, -W, -g, -N, -i, -I, -k, -R: kept here from what rotadbd sent.
  std::erase_if(jobs, [&](const rota::wire::AccountingJob& job) {
    return !Wanted(names, job.name()) || !Wanted(qos, job.qos()) || !RanOnAny(job, nodes) ||
           !Wanted(wckeys, job.wckey()) ||
           !(Wanted(groups, std::to_string(job.gid())) ||
             Wanted(groups, rota::GroupNameOrNumber(job.gid()))) ||
           !sizes.Pass(job);
  });
  if (batch_script || env_vars) {
    std::cout << rota::cli::RenderSacctJobTexts(jobs, batch_script
                                                          ? rota::cli::SacctJobText::kScript
                                                          : rota::cli::SacctJobText::kEnvironment);
    return 0;
  }
  if (json) {
    std::cout << rota::cli::SacctJson(jobs, now);
    return 0;
  }
  rota::cli::SacctContext ctx;
  ctx.now = now;
  ctx.utc_offset_s = rota::cli::UtcOffsetSeconds(now);
  ctx.steps = !allocations_only;
  ctx.no_convert = no_convert;
  ctx.units = units;
  ctx.only_steps = std::move(only_steps);
  ctx.delimiter = delimiter;
  std::cout << rota::cli::RenderSacct(*columns, layout, no_header, jobs, ctx);
  return 0;
}
