#pragma once

// The fair-share factor of each user association from shares and decayed
// usage, with Slurm's two algorithms (docs/priority.md):
//  - Fair Tree (default): at each level, siblings are ranked by
//    LevelFS = (shares / siblings' shares) / (usage / siblings' usage), depth
//    first, so that every user of a better-ranked account outranks every user
//    of a worse one; a user's factor is rank / number of users.
//  - classic (PriorityFlags=NO_FAIR_TREE): F = 2^(-U/S) with U the usage over
//    the cluster's total and S the normalized shares (the product of
//    shares / siblings' shares down the tree).
// Pure: built once per recomputation, then looked up per pending job. The
// controller's FairshareEngine (ctld/core/fairshare_engine.h) builds the nodes
// from accounting's associations and its usage ledger.

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace rota::sched {

// One association of the tree: an account (user empty) or a user under one.
struct ShareNode {
  std::string account;
  std::string user;
  std::string parent;          // Accounts only: the parent account; empty for root
  uint32_t shares = 1;         // Fairshare=N
  bool shares_parent = false;  // Fairshare=parent: the account's factor
  double raw_usage = 0;
};

struct ShareRow {
  std::string account, user;
  uint32_t depth = 0;
  std::string raw_shares;  // "" for root, "parent", or the number
  double norm_shares = 0, raw_usage = 0, norm_usage = 0, effective_usage = 0;
  double fairshare = -1;  // -1: none (Fair Tree accounts)
  double level_fs = -1;   // Fair Tree only; +inf without usage
};

class ShareTree {
 public:
  struct Result {
    std::vector<ShareRow> rows;
    std::unordered_map<std::string, double> factors;
  };
  // `nodes` in any order. An account whose parent is unknown hangs under root;
  // a user under an unknown account creates that account under root. A
  // "root" account is added when missing.
  static ShareTree Compute(std::vector<ShareNode> nodes, bool fair_tree);

  // The user association's factor in [0, 1]; 1 when unknown (no usage yet).
  double Factor(const std::string& account, const std::string& user) const;
  // Depth first from root: an account's row, its users, then its sub-accounts.
  const std::vector<ShareRow>& rows() const { return rows_; }
  bool fair_tree() const { return fair_tree_; }

 private:
  std::vector<ShareRow> rows_;
  std::unordered_map<std::string, double> factors_;  // account + '\0' + user
  bool fair_tree_ = true;
};

constexpr double kInfiniteLevelFs = std::numeric_limits<double>::infinity();

}  // namespace rota::sched
