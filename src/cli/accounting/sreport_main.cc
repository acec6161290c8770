// sreport: cluster utilization, the association reports and top users from
// rotadbd's job records, node events and association tree.
#include <getopt.h>
#include <pwd.h>

#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "accounting_admin.pb.h"
#include "api/dbd_methods.h"
#include "cli/accounting/sreport_assoc.h"
#include "cli/accounting/sreport_fields.h"
#include "cli/accounting/sreport_gpu_efficiency.h"
#include "cli/accounting/sreport_job_sizes.h"
#include "cli/accounting/sreport_option_table.h"
#include "cli/accounting/sreport_report.h"
#include "cli/client/accounting_client.h"
#include "cli/client/config_source.h"
#include "cli/event_time.h"
#include "cli/local_time.h"
#include "cli/slurm_version.h"
#include "common/strings.h"
#include "conf/config_loader.h"

namespace {

using rota::cli::ReportOptions;

void Usage(FILE* to) {
  std::fprintf(
      to,
      "Usage: sreport [options] cluster utilization [Start=TIME] [End=TIME]\n"
      "       sreport [options] user topusage [TopCount=N] [Group] [Users=LIST]\n"
      "               [Accounts=LIST] [Start=TIME] [End=TIME]\n"
      "       sreport [options] cluster AccountUtilizationByUser|UserUtilizationByAccount\n"
      "               [Users=LIST] [Accounts=LIST] [Start=TIME] [End=TIME]\n"
      "       sreport [options] job SizesByAccount [Grouping=N,N..] [Accounts=LIST]\n"
      "       sreport [options] user|account GpuEfficiency [Users=LIST] [Accounts=LIST]\n"
      "               [Users=LIST] [FlatView] [PrintJobCount] [Start=TIME] [End=TIME]\n"
      "       Every report also takes Format=NAME[%%WIDTH],... (its columns, in any case)\n"
      "  -n, --noheader        no banner and no column header\n"
      "  -p, --parsable        '|' after every field\n"
      "  -P, --parsable2       '|' between fields\n"
      "  -t FORMAT             Minutes (default), Seconds, Hours, MinPer, SecPer, HourPer\n"
      "  -T, --tres=LIST       cpu (default), mem, node, gres/gpu[:type]\n"
      "  -h, --help            this text\n"
      "The default window is yesterday, from 00:00:00 to 23:59:59; a Start alone runs until "
      "now.\n");
}

int Fail(const std::string& message) {
  std::cerr << "sreport: error: " << message << "\n";
  return 1;
}

// 00:00:00 local time, `days` days before today's.
int64_t LocalMidnight(int64_t now, int days) {
  time_t t = static_cast<time_t>(now);
  std::tm local{};
  localtime_r(&t, &local);
  local.tm_hour = local.tm_min = local.tm_sec = 0;
  local.tm_mday -= days;
  local.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&local));
}

std::map<std::string, std::string> ProperNames(const std::vector<rota::wire::AccountingJob>& jobs,
                                               const rota::cli::AssocTree* tree = nullptr) {
  std::vector<std::string> logins;
  for (const rota::wire::AccountingJob& j : jobs) logins.push_back(j.user());
  if (tree != nullptr) {
    for (const auto& [account, user] : tree->users) logins.push_back(user);
  }
  std::map<std::string, std::string> out;
  std::vector<char> buf(16384);
  for (const std::string& login : logins) {
    if (out.count(login)) continue;
    passwd pw{};
    passwd* found = nullptr;
    getpwnam_r(login.c_str(), &pw, buf.data(), buf.size(), &found);
    std::string gecos = found != nullptr && pw.pw_gecos != nullptr ? pw.pw_gecos : "";
    out[login] = gecos.substr(0, gecos.find(','));  // The full name, before office etc.
  }
  return out;
}

std::string FieldOf(const rota::wire::AcctEntity& e, const std::string& key) {
  auto it = e.fields().find(key);
  return it == e.fields().end() ? "" : it->second;
}

// The association tree sacctmgr keeps: accounts with their parents, and the
// user associations.
rota::Result<rota::cli::AssocTree> FetchTree(rota::cli::AccountingClient& client) {
  rota::cli::AssocTree tree;
  for (const char* kind : {"account", "assoc"}) {
    rota::wire::ListEntitiesRequest req;
    req.set_kind(kind);
    rota::wire::ListEntitiesResponse resp;
    ROTA_RETURN_IF_ERROR(client.Call(rota::api::kDbdListEntities, req, &resp));
    for (const rota::wire::AcctEntity& e : resp.entities()) {
      if (std::string(kind) == "account") {
        const std::string parent = FieldOf(e, "Parent");
        tree.parent_of[e.name()] = e.name() == "root" ? "" : (parent.empty() ? "root" : parent);
      } else if (!FieldOf(e, "User").empty()) {
        tree.users.insert({FieldOf(e, "Account"), FieldOf(e, "User")});
      }
    }
  }
  return tree;
}

}  // namespace

int main(int argc, char** argv) {
  ReportOptions o;
  std::string tres_text = "cpu";
  using namespace rota::cli::sreport_options;  // kLong, kShort
  std::string cluster_filter;
  for (int c; (c = getopt_long(argc, argv, kShort, kLong, nullptr)) != -1;) {
    switch (c) {
      case 'n':
        o.no_header = true;
        break;
      case 'p':
        o.layout = rota::cli::SacctLayout::kParsable;
        break;
      case 'P':
        o.layout = rota::cli::SacctLayout::kParsable2;
        break;
      case 't': {
        auto t = rota::cli::ParseReportTime(optarg);
        if (!t.ok()) return Fail(t.status().message());
        o.time = *t;
        break;
      }
      case 'T':
        tres_text = optarg;
        o.tres_named = true;
        break;
      case 'M':
        cluster_filter = optarg;
        break;
      case 'Q':
      case 'v':
      case 'a':  // rotadbd records one cluster: all of them is this one
      case kNoOp:
        break;
      case 'h':
        Usage(stdout);
        return 0;
      case 'V':
        std::cout << rota::cli::kSlurmVersionLine;
        return 0;
      default:
        Usage(stderr);
        return 1;
    }
  }
  std::vector<std::string> words(argv + optind, argv + argc);
  if (words.size() == 1 && rota::ToLower(words[0]) == "version") {
    std::cout << rota::cli::kSlurmVersionLine;
    return 0;
  }
  if (words.size() < 2) {
    Usage(stderr);
    return 1;
  }
  const std::string kind = rota::ToLower(words[0]);
  const std::string report = rota::ToLower(words[1]);
  const bool utilization = kind == "cluster" && report == "utilization";
  const bool top_usage = kind == "user" && report == "topusage";
  const bool acct_by_user = kind == "cluster" && report == "accountutilizationbyuser";
  const bool user_by_acct = kind == "cluster" && report == "userutilizationbyaccount";
  const bool job_sizes = kind == "job" && report == "sizesbyaccount";
  // Rota's own: GPU time allocated against GPU time used (docs/gpu-efficiency.md).
  const bool gpu_efficiency = (kind == "user" || kind == "account") && report == "gpuefficiency";
  const bool by_assoc = acct_by_user || user_by_acct || job_sizes || gpu_efficiency;
  if (!utilization && !top_usage && !by_assoc) {
    return Fail("Not valid report " + words[0] + " " + words[1] +
                " (Rota offers cluster Utilization, AccountUtilizationByUser, "
                "UserUtilizationByAccount, job SizesByAccount, user TopUsage and, its own, "
                "user/account GpuEfficiency)");
  }
  rota::cli::JobSizesOptions sizes;
  auto tres = rota::cli::ParseReportTres(tres_text);
  if (!tres.ok()) return Fail(tres.status().message());

  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  rota::cli::ReportWindow window{LocalMidnight(now, 1), LocalMidnight(now, 0)};
  uint32_t top_count = 10;
  bool group = false;
  bool start_given = false, end_given = false;
  rota::wire::QueryJobsRequest query;
  std::vector<std::string> tops;  // Accounts=
  for (size_t i = 2; i < words.size(); ++i) {
    const std::string& w = words[i];
    const size_t eq = w.find('=');
    const std::string key = rota::ToLower(w.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : w.substr(eq + 1);
    if (key == "start" || key == "end") {
      auto t = rota::cli::ParseEventTime(value, now);
      if (!t.ok()) return Fail("Invalid time specification: " + value);
      (key == "start" ? window.start : window.end) = *t;
      (key == "start" ? start_given : end_given) = true;
    } else if (top_usage && key == "topcount") {
      auto n = rota::ParseUint(value);
      if (!n || *n == 0) return Fail("Invalid TopCount: " + value);
      top_count = static_cast<uint32_t>(*n);
    } else if (top_usage && key == "group" && eq == std::string::npos) {
      group = true;
    } else if (job_sizes && key == "grouping") {
      auto g = rota::cli::ParseGrouping(value);
      if (!g.ok()) return Fail(g.status().message());
      sizes.grouping = *g;
    } else if (job_sizes && key == "flatview" && eq == std::string::npos) {
      sizes.flat_view = true;
    } else if (job_sizes && key == "printjobcount" && eq == std::string::npos) {
      sizes.print_job_count = true;
    } else if ((top_usage || by_assoc) && (key == "users" || key == "user")) {
      for (std::string_view u : rota::Split(value, ',')) query.add_users(std::string(u));
    } else if ((top_usage || by_assoc) && (key == "accounts" || key == "account")) {
      for (std::string_view a : rota::Split(value, ',')) tops.emplace_back(a);
    } else if (std::optional<std::string_view> list = rota::cli::FormatCondition(w)) {
      // Given twice, the lists add up (as in Slurm).
      o.format += (o.format.empty() ? "" : ",") + std::string(*list);
    } else {
      return Fail("Unknown condition: " + w);
    }
  }
  using rota::cli::SreportReport;
  const SreportReport columns_of = utilization      ? SreportReport::kUtilization
                                   : top_usage      ? SreportReport::kTopUsage
                                   : acct_by_user   ? SreportReport::kAccountUtilizationByUser
                                   : user_by_acct   ? SreportReport::kUserUtilizationByAccount
                                   : job_sizes      ? SreportReport::kSizesByAccount
                                   : kind == "user" ? SreportReport::kGpuEfficiencyByUser
                                                    : SreportReport::kGpuEfficiencyByAccount;
  // As Slurm's sreport: a field the report lacks is named on stderr and left
  // out, the report shows the others, and sreport exits 1. With none left
  // there is no report.
  const std::vector<std::string> unknown = rota::cli::DropUnknownFields(columns_of, o);
  for (const std::string& u : unknown) std::cerr << " " << u << "\n";
  if (!unknown.empty() && o.format.empty()) return 1;
  if (rota::Status checked = rota::cli::CheckSreportFormat(columns_of, o); !checked.ok()) {
    return Fail(checked.message());
  }
  const int exit_code = unknown.empty() ? 0 : 1;
  // A start given without an end runs until now (the default end, last
  // midnight, would come before a start today).
  if (start_given && !end_given) window.end = now;
  if (window.end > now) window.end = now;
  if (window.end <= window.start) return Fail("the report's end is not after its start");

  auto client = rota::cli::AccountingClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) return Fail(client.status().message());
  const rota::conf::ClusterConfig& config = (*client)->config();
  const std::string cluster = config.settings.cluster_name;
  if (!cluster_filter.empty() && cluster_filter != cluster) {
    return Fail("Rota reports on its own cluster only (" + cluster + ")");
  }
  // Accounts= picks whole subtrees for AccountUtilizationByUser, which the
  // report finds in the tree; elsewhere it filters the records.
  if (!acct_by_user && !job_sizes) {
    for (const std::string& a : tops) query.add_accounts(a);
  }
  // Every attempt of a requeued job held its resources for a while.
  query.set_all_attempts(true);
  query.set_window_start(window.start);
  query.set_window_end(window.end);
  query.set_cluster(cluster);
  rota::wire::QueryJobsResponse answer;
  // The user and account reports show usage, which PrivateData=usage keeps to
  // the caller's own; the cluster's totals and the job reports read the jobs.
  const bool usage_report = top_usage || acct_by_user || user_by_acct || gpu_efficiency;
  rota::Status s = (*client)->Call(
      usage_report ? rota::api::kDbdQueryUsage : rota::api::kDbdQueryJobs, query, &answer);
  if (!s.ok()) return Fail(s.message());
  std::vector<rota::wire::AccountingJob> jobs(answer.jobs().begin(), answer.jobs().end());

  std::map<std::string, uint64_t> capacity;
  for (const std::string& t : *tres) capacity[t] = rota::cli::TresCapacity(config, t);
  o.now = now;
  o.utc_offset_s = rota::cli::UtcOffsetSeconds(now);
  if (utilization) {
    rota::wire::QueryNodeEventsRequest event_query;
    event_query.set_cluster(cluster);
    event_query.set_window_start(window.start);
    event_query.set_window_end(window.end);
    rota::wire::QueryNodeEventsResponse event_answer;
    s = (*client)->Call(rota::api::kDbdQueryNodeEvents, event_query, &event_answer);
    if (!s.ok()) return Fail(s.message());
    std::cout << rota::cli::ClusterUtilizationReport(
        cluster, *tres, capacity, jobs, window, o,
        {event_answer.events().begin(), event_answer.events().end()});
  } else if (acct_by_user) {
    auto fetched = FetchTree(**client);
    if (!fetched.ok()) return Fail(fetched.status().message());
    const rota::cli::AssocTree tree = rota::cli::CompleteTree(std::move(fetched).value(), jobs);
    const std::vector<std::string> users(query.users().begin(), query.users().end());
    std::cout << rota::cli::AccountUtilizationByUserReport(
        cluster, *tres, capacity, jobs, tree, tops, users, window, ProperNames(jobs, &tree), o);
  } else if (job_sizes) {
    auto fetched = FetchTree(**client);
    if (!fetched.ok()) return Fail(fetched.status().message());
    sizes.parents = tops;
    std::cout << rota::cli::JobSizesByAccountReport(
        cluster, jobs, rota::cli::CompleteTree(std::move(fetched).value(), jobs), window, sizes, o);
  } else if (gpu_efficiency) {
    std::cout << rota::cli::GpuEfficiencyReport(cluster, jobs, window, kind == "account",
                                                ProperNames(jobs), o);
  } else if (user_by_acct) {
    std::cout << rota::cli::UserUtilizationByAccountReport(cluster, *tres, capacity, jobs, window,
                                                           ProperNames(jobs), o);
  } else {
    std::cout << rota::cli::UserTopUsageReport(cluster, *tres, capacity, jobs, window, top_count,
                                               group, ProperNames(jobs), o);
  }
  return exit_code;
}
