// The fair-share factor on a small tree, computed by hand:
//   root -- A (3 shares) -- u1 (1), u2 (1)
//        -- B (1 share)  -- u3 (1)
// usage u1 60, u2 20 (A 80), u3 20 (B 20), root 100.

#include "sched/fairshare_tree.h"

#include <gtest/gtest.h>

#include <cmath>

namespace rota::sched {
namespace {

ShareNode Account(std::string name, std::string parent, uint32_t shares, double usage) {
  ShareNode n;
  n.account = std::move(name);
  n.parent = std::move(parent);
  n.shares = shares;
  n.raw_usage = usage;
  return n;
}

ShareNode User(std::string account, std::string user, uint32_t shares, double usage) {
  ShareNode n;
  n.account = std::move(account);
  n.user = std::move(user);
  n.shares = shares;
  n.raw_usage = usage;
  return n;
}

std::vector<ShareNode> SmallTree() {
  return {Account("root", "", 1, 100), Account("A", "root", 3, 80), Account("B", "root", 1, 20),
          User("A", "u1", 1, 60),      User("A", "u2", 1, 20),      User("B", "u3", 1, 20)};
}

const ShareRow* Row(const ShareTree& t, const std::string& account, const std::string& user) {
  for (const ShareRow& r : t.rows()) {
    if (r.account == account && r.user == user) return &r;
  }
  return nullptr;
}

TEST(FairshareTest, ClassicIsTwoToTheMinusUsageOverShares) {
  ShareTree t = ShareTree::Compute(SmallTree(), /*fair_tree=*/false);
  // Normalized shares: A 3/4, u1 = u2 = 3/8; B 1/4, u3 1/4.
  const ShareRow* u1 = Row(t, "A", "u1");
  ASSERT_NE(u1, nullptr);
  EXPECT_DOUBLE_EQ(u1->norm_shares, 0.375);
  EXPECT_DOUBLE_EQ(u1->effective_usage, 0.6);
  // 2^(-0.6 / 0.375) = 2^-1.6
  EXPECT_NEAR(t.Factor("A", "u1"), 0.329877, 1e-6);
  EXPECT_NEAR(t.Factor("A", "u2"), 0.690956, 1e-6);  // 2^(-0.2 / 0.375)
  EXPECT_NEAR(t.Factor("B", "u3"), 0.574349, 1e-6);  // 2^(-0.2 / 0.25)
  EXPECT_NEAR(Row(t, "A", "")->fairshare, std::exp2(-0.8 / 0.75), 1e-12);
  EXPECT_EQ(Row(t, "A", "")->raw_shares, "3");
  EXPECT_EQ(Row(t, "root", "")->raw_shares, "");
}

TEST(FairshareTest, FairTreeRanksByLevelFairshare) {
  ShareTree t = ShareTree::Compute(SmallTree(), /*fair_tree=*/true);
  // Under root: A 0.75 / 0.8 = 0.9375, B 0.25 / 0.2 = 1.25: all of B's users
  // rank above A's. In A: u2 0.5 / 0.25 = 2, u1 0.5 / 0.75 = 0.667.
  EXPECT_DOUBLE_EQ(Row(t, "A", "")->level_fs, 0.9375);
  EXPECT_DOUBLE_EQ(Row(t, "B", "")->level_fs, 1.25);
  EXPECT_NEAR(Row(t, "A", "u1")->level_fs, 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(Row(t, "A", "u2")->level_fs, 2.0);
  EXPECT_DOUBLE_EQ(Row(t, "A", "u1")->effective_usage, 0.75);
  EXPECT_DOUBLE_EQ(Row(t, "A", "")->effective_usage, 0.8);
  // Ranks 3, 2, 1 of 3 users.
  EXPECT_DOUBLE_EQ(t.Factor("B", "u3"), 1.0);
  EXPECT_NEAR(t.Factor("A", "u2"), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(t.Factor("A", "u1"), 1.0 / 3.0, 1e-12);
  // Accounts show no factor under Fair Tree.
  EXPECT_EQ(Row(t, "A", "")->fairshare, -1);
}

TEST(FairshareTest, FairTreeTiesShareARankAndNoUsageIsInfinite) {
  std::vector<ShareNode> nodes = {Account("root", "", 1, 50), Account("A", "root", 1, 50),
                                  User("A", "x", 1, 0), User("A", "y", 1, 0),
                                  User("A", "z", 1, 50)};
  ShareTree t = ShareTree::Compute(nodes, true);
  EXPECT_EQ(Row(t, "A", "x")->level_fs, kInfiniteLevelFs);
  // x and y tie at rank 3 of 3; z is next at rank 1.
  EXPECT_DOUBLE_EQ(t.Factor("A", "x"), 1.0);
  EXPECT_DOUBLE_EQ(t.Factor("A", "y"), 1.0);
  EXPECT_NEAR(t.Factor("A", "z"), 1.0 / 3.0, 1e-12);
}

TEST(FairshareTest, RowsGoDepthFirstAndUnknownAccountsHangUnderRoot) {
  std::vector<ShareNode> nodes = {User("lab", "ann", 1, 10), Account("root", "", 1, 10),
                                  Account("lab", "", 1, 10), Account("sub", "lab", 2, 0)};
  ShareTree t = ShareTree::Compute(nodes, true);
  ASSERT_EQ(t.rows().size(), 4u);
  EXPECT_EQ(t.rows()[0].account, "root");
  EXPECT_EQ(t.rows()[1].account, "lab");
  EXPECT_EQ(t.rows()[2].user, "ann");
  EXPECT_EQ(t.rows()[2].depth, 2u);
  EXPECT_EQ(t.rows()[3].account, "sub");
  // ann 1 share, sub 2 shares under lab (which holds all of root's).
  EXPECT_NEAR(t.rows()[2].norm_shares, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(t.rows()[3].norm_shares, 2.0 / 3.0, 1e-12);
  // Without usage anywhere every user has the top factor.
  ShareTree empty = ShareTree::Compute({User("x", "a", 1, 0), User("y", "b", 1, 0)}, true);
  EXPECT_DOUBLE_EQ(empty.Factor("x", "a"), 1.0);
  EXPECT_DOUBLE_EQ(empty.Factor("y", "b"), 1.0);
  ShareTree classic = ShareTree::Compute({User("x", "a", 1, 0), User("y", "b", 1, 0)}, false);
  EXPECT_DOUBLE_EQ(classic.Factor("x", "a"), 1.0);
}

TEST(FairshareTest, FairTreeRanksTheUsersOfTiedAccountsTogether) {
  // x and y tie (LevelFS 0.5 / 0.5 = 1). Their users: b 0.5 / 0.2 = 2.5,
  // a 1 / 1 = 1, c 0.5 / 0.8 = 0.625; ranked together: b, a, c.
  ShareTree t = ShareTree::Compute(
      {Account("root", "", 1, 100), Account("x", "root", 1, 50), Account("y", "root", 1, 50),
       User("x", "a", 1, 50), User("y", "b", 1, 10), User("y", "c", 1, 40)},
      true);
  EXPECT_DOUBLE_EQ(Row(t, "y", "b")->level_fs, 2.5);
  EXPECT_DOUBLE_EQ(t.Factor("y", "b"), 1.0);
  EXPECT_NEAR(t.Factor("x", "a"), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(t.Factor("y", "c"), 1.0 / 3.0, 1e-12);
}

}  // namespace
}  // namespace rota::sched
