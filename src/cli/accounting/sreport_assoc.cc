#include "cli/accounting/sreport_assoc.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/accounting/sreport_fields.h"

namespace rota::cli {
namespace {

// TRES-seconds per (account, user), by TRES.
using UsageMap = std::map<std::pair<std::string, std::string>, std::map<std::string, double>>;

UsageMap Usage(const std::vector<std::string>& tres, const std::vector<wire::AccountingJob>& jobs,
               const ReportWindow& window, int64_t now) {
  UsageMap usage;
  for (const wire::AccountingJob& job : jobs) {
    auto& u = usage[{job.account(), job.user()}];
    for (const std::string& t : tres) u[t] += AllocatedTresSeconds(job, t, window, now);
  }
  return usage;
}

double ReportedSeconds(const std::map<std::string, uint64_t>& capacity, const std::string& tres,
                       const ReportWindow& window) {
  auto cap = capacity.find(tres);
  return (cap == capacity.end() ? 0.0 : static_cast<double>(cap->second)) *
         static_cast<double>(window.end - window.start);
}

std::string Title(const char* what, const ReportWindow& window, const ReportOptions& o) {
  return fmt::format("{} {} - {} ({} secs)", what, LocalStamp(window.start, o.utc_offset_s),
                     LocalStamp(window.end - 1, o.utc_offset_s), window.end - window.start);
}

// The lines of one association (or account) of the usage reports: one per
// TRES, what it used (0 when nothing) against what the cluster offered over
// the window.
struct UsageLines {
  const std::string& cluster;
  const std::vector<std::string>& tres;
  const std::map<std::string, uint64_t>& capacity;
  const ReportWindow& window;
  const std::map<std::string, std::string>& proper_names;
  std::vector<UsageLine> lines;

  void Add(const std::string& account_text, const std::string& login,
           const std::map<std::string, double>& seconds) {
    auto proper = proper_names.find(login);
    for (const std::string& t : tres) {
      auto s = seconds.find(t);
      UsageLine line;
      line.cluster = cluster;
      line.account = account_text;
      line.login = login;
      line.proper_name = proper == proper_names.end() ? "" : proper->second;
      line.tres = t;
      line.used = s == seconds.end() ? 0.0 : s->second;
      line.total = ReportedSeconds(capacity, t, window);
      lines.push_back(std::move(line));
    }
  }
};

}  // namespace

AssocTree CompleteTree(AssocTree tree, const std::vector<wire::AccountingJob>& jobs) {
  tree.parent_of.try_emplace("root", "");
  for (const wire::AccountingJob& job : jobs) {
    if (job.account().empty()) continue;
    tree.parent_of.try_emplace(job.account(), "root");
    tree.users.insert({job.account(), job.user()});
  }
  return tree;
}

std::string AccountUtilizationByUserReport(
    const std::string& cluster, const std::vector<std::string>& tres,
    const std::map<std::string, uint64_t>& capacity, const std::vector<wire::AccountingJob>& jobs,
    const AssocTree& tree, const std::vector<std::string>& tops,
    const std::vector<std::string>& users, const ReportWindow& window,
    const std::map<std::string, std::string>& proper_names, const ReportOptions& o) {
  std::string out;
  if (!o.no_header) out += Banner(Title("Cluster/Account/User Utilization", window, o), o);
  const UsageMap usage = Usage(tres, jobs, window, o.now);
  std::map<std::string, std::vector<std::string>> children;
  for (const auto& [account, parent] : tree.parent_of) {
    if (!parent.empty() && account != "root") children[parent].push_back(account);
  }
  std::map<std::string, std::vector<std::string>> users_of;
  for (const auto& [account, user] : tree.users) {
    if (users.empty() || std::find(users.begin(), users.end(), user) != users.end()) {
      users_of[account].push_back(user);
    }
  }
  // An account's usage: its users' and its sub-accounts' (Users= narrows it).
  std::map<std::string, std::map<std::string, double>> subtree;
  auto total = [&](auto& self, const std::string& account,
                   int depth) -> std::map<std::string, double> {
    std::map<std::string, double> sum;
    if (depth > 64) return sum;  // rotadbd refuses cycles; stop anyway
    for (const std::string& user : users_of[account]) {
      auto it = usage.find({account, user});
      if (it == usage.end()) continue;
      for (const auto& [t, s] : it->second) sum[t] += s;
    }
    for (const std::string& child : children[account]) {
      for (const auto& [t, s] : self(self, child, depth + 1)) sum[t] += s;
    }
    subtree[account] = sum;
    return sum;
  };

  UsageLines rows{cluster, tres, capacity, window, proper_names, {}};
  auto walk = [&](auto& self, const std::string& account, int depth) -> void {
    if (depth > 64) return;
    const std::string indent(static_cast<size_t>(depth), ' ');
    rows.Add(indent + account, "", subtree[account]);
    std::vector<std::string> names = users_of[account];
    std::sort(names.begin(), names.end());
    for (const std::string& user : names) {
      auto it = usage.find({account, user});
      rows.Add(indent + " " + account, user,
               it == usage.end() ? std::map<std::string, double>{} : it->second);
    }
    std::vector<std::string> subs = children[account];
    std::sort(subs.begin(), subs.end());
    for (const std::string& child : subs) self(self, child, depth + 1);
  };
  std::vector<std::string> starts = tops.empty() ? std::vector<std::string>{"root"} : tops;
  for (const std::string& top : starts) {
    if (!tree.parent_of.count(top)) continue;
    total(total, top, 0);
    walk(walk, top, 0);
  }
  out += RenderUsage(SreportReport::kAccountUtilizationByUser, rows.lines, o);
  return out;
}

std::string UserUtilizationByAccountReport(const std::string& cluster,
                                           const std::vector<std::string>& tres,
                                           const std::map<std::string, uint64_t>& capacity,
                                           const std::vector<wire::AccountingJob>& jobs,
                                           const ReportWindow& window,
                                           const std::map<std::string, std::string>& proper_names,
                                           const ReportOptions& o) {
  std::string out;
  if (!o.no_header) out += Banner(Title("Cluster/User/Account Utilization", window, o), o);
  const UsageMap usage = Usage(tres, jobs, window, o.now);
  std::vector<std::pair<std::pair<std::string, std::string>, std::map<std::string, double>>> ranked;
  for (const auto& [key, seconds] : usage) {
    if (seconds.at(tres.front()) > 0) ranked.emplace_back(key, seconds);
  }
  // Most used first (the first TRES); ties by login, then account.
  std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
    const double x = a.second.at(tres.front()), y = b.second.at(tres.front());
    if (x != y) return x > y;
    return a.first.second != b.first.second ? a.first.second < b.first.second
                                            : a.first.first < b.first.first;
  });
  UsageLines rows{cluster, tres, capacity, window, proper_names, {}};
  for (const auto& [key, seconds] : ranked) rows.Add(key.first, key.second, seconds);
  out += RenderUsage(SreportReport::kUserUtilizationByAccount, rows.lines, o);
  return out;
}

}  // namespace rota::cli
