#pragma once
// sreport's association reports, from accounting's job records and the
// association tree sacctmgr keeps:
//
//   cluster AccountUtilizationByUser  the account tree from root, each
//                                     account's usage (its whole subtree)
//                                     followed by its users' and then its
//                                     sub-accounts', indented one space a level
//   cluster UserUtilizationByAccount  one line per user and account, most
//                                     used first
//
// Usage is each job's allocated TRES times its run inside the window, as in
// `cluster utilization`; percentages are of the cluster's Reported time.
// Pure functions: tree, records, capacity and window in, text out.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "accounting.pb.h"
#include "cli/accounting/sreport_report.h"

namespace rota::cli {

struct AssocTree {
  std::map<std::string, std::string> parent_of;         // Account -> parent ("" for root)
  std::set<std::pair<std::string, std::string>> users;  // (account, user) associations
};

// Accounts of the records that the tree lacks go under root, and their users
// under them, so that no usage goes unreported.
AssocTree CompleteTree(AssocTree tree, const std::vector<wire::AccountingJob>& jobs);

// `tops`: the accounts to start from (Accounts=); empty: root. `users`:
// only these users' lines (Users=); empty: all.
std::string AccountUtilizationByUserReport(
    const std::string& cluster, const std::vector<std::string>& tres,
    const std::map<std::string, uint64_t>& capacity, const std::vector<wire::AccountingJob>& jobs,
    const AssocTree& tree, const std::vector<std::string>& tops,
    const std::vector<std::string>& users, const ReportWindow& window,
    const std::map<std::string, std::string>& proper_names, const ReportOptions& options);

std::string UserUtilizationByAccountReport(const std::string& cluster,
                                           const std::vector<std::string>& tres,
                                           const std::map<std::string, uint64_t>& capacity,
                                           const std::vector<wire::AccountingJob>& jobs,
                                           const ReportWindow& window,
                                           const std::map<std::string, std::string>& proper_names,
                                           const ReportOptions& options);

}  // namespace rota::cli
