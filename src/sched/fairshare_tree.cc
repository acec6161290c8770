#include "sched/fairshare_tree.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

namespace rota::sched {
namespace {

constexpr char kRoot[] = "root";

struct Account {
  const ShareNode* self = nullptr;  // Null when only implied (a user's unknown account)
  std::string parent;
  std::vector<std::string> accounts;  // Sub-accounts, by name
  std::vector<size_t> users;          // Indices into the user list, by name
  uint32_t shares = 1;
  bool shares_parent = false;
  double usage = 0;
};

// One child of an account, user or sub-account, at its level.
struct Child {
  bool is_user = false;
  size_t user = 0;      // When is_user
  std::string account;  // Otherwise
  const std::string* name = nullptr;
  uint32_t shares = 1;
  bool shares_parent = false;
  double usage = 0;
  double level_fs = 0;
  double norm_shares = 0, effective_usage = 0;
};

std::string Key(const std::string& account, const std::string& user) {
  std::string k = account;
  k += '\0';
  k += user;
  return k;
}

class Builder {
 public:
  Builder(std::vector<ShareNode> nodes, bool fair_tree) : fair_tree_(fair_tree) {
    for (ShareNode& n : nodes) {
      if (n.user.empty()) {
        Account& a = accounts_[n.account];
        a.parent = n.account == kRoot ? "" : (n.parent.empty() ? kRoot : n.parent);
        a.shares = n.shares;
        a.shares_parent = n.shares_parent;
        a.usage = n.raw_usage;
      } else {
        users_.push_back(std::move(n));
      }
    }
    accounts_[kRoot].parent.clear();
    for (const ShareNode& u : users_) {
      if (accounts_.count(u.account) == 0) accounts_[u.account].parent = kRoot;
    }
    for (auto& [name, a] : accounts_) {
      if (name == kRoot) continue;
      if (accounts_.count(a.parent) == 0 || Cycles(name)) a.parent = kRoot;
    }
    for (auto& [name, a] : accounts_) {
      if (name != kRoot) accounts_[a.parent].accounts.push_back(name);
    }
    std::vector<size_t> order(users_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return users_[x].user < users_[y].user; });
    for (size_t i : order) accounts_[users_[i].account].users.push_back(i);
    Account& root = accounts_[kRoot];
    total_ = root.usage;
    if (total_ <= 0) {
      for (const std::string& child : root.accounts) total_ += accounts_[child].usage;
      for (size_t u : root.users) total_ += users_[u].raw_usage;
    }
  }

  ShareTree::Result Run() {
    Emit(kRoot, 0, 1.0, 1.0, -1, -1);
    if (fair_tree_) {
      rank_ = users_.size();
      Rank({kRoot});
      for (ShareRow& r : out_.rows) {
        if (r.user.empty()) continue;
        auto it = user_rank_.find(Key(r.account, r.user));
        r.fairshare = it == user_rank_.end() || users_.empty()
                          ? 0.0
                          : static_cast<double>(it->second) / static_cast<double>(users_.size());
      }
    }
    for (const ShareRow& r : out_.rows) {
      if (!r.user.empty()) out_.factors[Key(r.account, r.user)] = r.fairshare;
    }
    return std::move(out_);
  }

 private:
  bool Cycles(const std::string& start) const {
    std::set<std::string> seen{start};
    std::string at = accounts_.at(start).parent;
    while (!at.empty() && at != kRoot) {
      if (!seen.insert(at).second) return true;
      auto it = accounts_.find(at);
      if (it == accounts_.end()) return false;
      at = it->second.parent;
    }
    return false;
  }

  // The children of `account` with their level's shares and usage.
  std::vector<Child> Children(const std::string& account, double norm_shares,
                              double parent_effective) {
    const Account& a = accounts_.at(account);
    std::vector<Child> kids;
    for (size_t u : a.users) {
      Child c;
      c.is_user = true;
      c.user = u;
      c.name = &users_[u].user;
      c.shares = users_[u].shares;
      c.shares_parent = users_[u].shares_parent;
      c.usage = users_[u].raw_usage;
      kids.push_back(c);
    }
    for (const std::string& name : a.accounts) {
      const Account& sub = accounts_.at(name);
      Child c;
      c.account = name;
      c.name = &c.account;
      c.shares = sub.shares;
      c.shares_parent = sub.shares_parent;
      c.usage = sub.usage;
      kids.push_back(std::move(c));
    }
    for (Child& c : kids) {
      if (!c.is_user) c.name = &c.account;
    }
    double level_shares = 0, level_usage = 0;
    for (const Child& c : kids) {
      if (!c.shares_parent) level_shares += c.shares;
      level_usage += c.usage;
    }
    for (Child& c : kids) {
      double s = level_shares > 0 ? c.shares / level_shares : 0.0;
      if (c.shares_parent) {
        c.norm_shares = norm_shares;
      } else {
        c.norm_shares = s * norm_shares;
      }
      if (fair_tree_) {
        double u = level_usage > 0 ? c.usage / level_usage : 0.0;
        c.effective_usage = u;
        if (c.shares_parent) {
          c.level_fs = kInfiniteLevelFs;  // Ranked with its account's best
        } else if (s <= 0) {
          c.level_fs = 0;
        } else {
          c.level_fs = u > 0 ? s / u : kInfiniteLevelFs;
        }
      } else {
        c.effective_usage =
            c.shares_parent ? parent_effective : (total_ > 0 ? c.usage / total_ : 0);
      }
    }
    return kids;
  }

  static std::string RawShares(const Child& c) {
    return c.shares_parent ? "parent" : std::to_string(c.shares);
  }

  void Emit(const std::string& account, uint32_t depth, double norm_shares, double effective,
            double fairshare, double level_fs) {
    const Account& a = accounts_.at(account);
    ShareRow row;
    row.account = account;
    row.depth = depth;
    row.norm_shares = norm_shares;
    row.raw_usage = a.usage;
    row.norm_usage = total_ > 0 ? a.usage / total_ : 0;
    row.effective_usage = account == kRoot ? (total_ > 0 ? 1.0 : 0.0) : effective;
    row.fairshare = fair_tree_ ? -1 : fairshare;
    row.level_fs = fair_tree_ ? level_fs : -1;
    if (account != kRoot) row.raw_shares = a.shares_parent ? "parent" : std::to_string(a.shares);
    out_.rows.push_back(row);
    std::vector<Child> kids = Children(account, norm_shares, effective);
    for (const Child& c : kids) {
      if (!c.is_user) continue;
      const ShareNode& u = users_[c.user];
      ShareRow r;
      r.account = account;
      r.user = u.user;
      r.depth = depth + 1;
      r.raw_shares = RawShares(c);
      r.norm_shares = c.norm_shares;
      r.raw_usage = u.raw_usage;
      r.norm_usage = total_ > 0 ? u.raw_usage / total_ : 0;
      r.effective_usage = c.effective_usage;
      r.level_fs = fair_tree_ ? c.level_fs : -1;
      if (!fair_tree_) {
        r.fairshare = c.norm_shares > 0 ? std::exp2(-c.effective_usage / c.norm_shares) : 0.0;
        if (c.shares_parent && account != kRoot) r.fairshare = fairshare;
      }
      out_.rows.push_back(r);
    }
    for (const Child& c : kids) {
      if (c.is_user) continue;
      double f = c.norm_shares > 0 ? std::exp2(-c.effective_usage / c.norm_shares) : 0.0;
      Emit(c.account, depth + 1, c.norm_shares, c.effective_usage, f, c.level_fs);
    }
  }

  // Fair Tree: depth first, siblings by LevelFS, best first; tied users share
  // a rank and the children of tied accounts are ranked together.
  void Rank(const std::vector<std::string>& accounts) {
    std::vector<Child> kids;
    for (const std::string& account : accounts) {
      std::vector<Child> more = Children(account, 1.0, 0.0);
      std::move(more.begin(), more.end(), std::back_inserter(kids));
    }
    std::stable_sort(kids.begin(), kids.end(),
                     [](const Child& x, const Child& y) { return x.level_fs > y.level_fs; });
    for (size_t i = 0; i < kids.size();) {
      size_t j = i;
      while (j < kids.size() && kids[j].level_fs == kids[i].level_fs) ++j;
      size_t tied_users = 0;
      std::vector<std::string> tied_accounts;
      for (size_t k = i; k < j; ++k) {
        if (!kids[k].is_user) {
          tied_accounts.push_back(kids[k].account);
          continue;
        }
        const ShareNode& u = users_[kids[k].user];
        user_rank_[Key(u.account, u.user)] = rank_;
        ++tied_users;
      }
      rank_ -= tied_users;
      if (!tied_accounts.empty()) Rank(tied_accounts);
      i = j;
    }
  }

  bool fair_tree_;
  std::map<std::string, Account> accounts_;
  std::vector<ShareNode> users_;
  double total_ = 0;
  size_t rank_ = 0;
  std::unordered_map<std::string, size_t> user_rank_;
  ShareTree::Result out_;
};

}  // namespace

ShareTree ShareTree::Compute(std::vector<ShareNode> nodes, bool fair_tree) {
  Result r = Builder(std::move(nodes), fair_tree).Run();
  ShareTree t;
  t.rows_ = std::move(r.rows);
  t.factors_ = std::move(r.factors);
  t.fair_tree_ = fair_tree;
  return t;
}

double ShareTree::Factor(const std::string& account, const std::string& user) const {
  auto it = factors_.find(Key(account, user));
  return it == factors_.end() ? 1.0 : it->second;
}

}  // namespace rota::sched
