#include "ctld/core/fairshare_privacy.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

namespace rota::ctld {
namespace {

void Add(wire::PolicyState& s, const std::string& kind, const std::string& name,
         std::map<std::string, std::string> fields) {
  wire::PolicyEntity* e = s.add_entities();
  e->set_kind(kind);
  e->set_name(name);
  for (auto& [k, v] : fields) (*e->mutable_fields())[k] = v;
}

// physics (ann), chem (ann, bob), bio (bob); op is an Operator.
std::shared_ptr<const PolicyTable> Policy() {
  wire::PolicyState s;
  for (const char* account : {"physics", "chem", "bio"}) Add(s, "account", account, {});
  Add(s, "user", "ann", {{"DefaultAccount", "physics"}});
  Add(s, "user", "bob", {{"DefaultAccount", "bio"}});
  Add(s, "user", "op", {{"DefaultAccount", "bio"}, {"AdminLevel", "Operator"}});
  for (auto [account, user] : {std::pair{"physics", "ann"}, std::pair{"chem", "ann"},
                               std::pair{"chem", "bob"}, std::pair{"bio", "bob"}}) {
    Add(s, "assoc", std::string(account) + "|" + user, {{"Account", account}, {"User", user}});
  }
  return PolicyTable::FromState(s);
}

// The whole tree: each account's row, then its users' rows.
wire::FairshareResponse Tree() {
  wire::FairshareResponse out;
  auto row = [&](const char* account, const char* user) {
    wire::FairshareRow* r = out.add_rows();
    r->set_account(account);
    r->set_user(user);
  };
  row("root", "");
  row("bio", "");
  row("bio", "bob");
  row("chem", "");
  row("chem", "ann");
  row("chem", "bob");
  row("physics", "");
  row("physics", "ann");
  return out;
}

std::vector<std::string> Rows(const wire::FairshareResponse& shares) {
  std::vector<std::string> out;
  for (const wire::FairshareRow& r : shares.rows()) out.push_back(r.account() + "/" + r.user());
  return out;
}

Caller Named(const std::string& user, uint32_t uid, bool privileged = false) {
  Caller c;
  c.uid = uid;
  c.user = user;
  c.privileged = privileged;
  return c;
}

TEST(FairsharePrivacyTest, UsageLeavesAnOrdinaryUserTheirOwnRowsOnly) {
  auto policy = Policy();
  wire::FairshareResponse shares = Tree();
  HidePrivateShares({"usage"}, Named("ann", 1001), policy.get(), shares);
  EXPECT_EQ(Rows(shares), (std::vector<std::string>{"chem/ann", "physics/ann"}));
}

TEST(FairsharePrivacyTest, AccountsLeavesTheRowsOfTheUsersAccounts) {
  auto policy = Policy();
  wire::FairshareResponse shares = Tree();
  HidePrivateShares({"accounts"}, Named("ann", 1001), policy.get(), shares);
  EXPECT_EQ(Rows(shares),
            (std::vector<std::string>{"chem/", "chem/ann", "chem/bob", "physics/", "physics/ann"}));
}

TEST(FairsharePrivacyTest, BothTogetherAndAStranger) {
  auto policy = Policy();
  wire::FairshareResponse shares = Tree();
  HidePrivateShares({"usage", "accounts"}, Named("bob", 1002), policy.get(), shares);
  EXPECT_EQ(Rows(shares), (std::vector<std::string>{"bio/bob", "chem/bob"}));
  wire::FairshareResponse none = Tree();
  HidePrivateShares({"accounts"}, Named("eve", 1003), policy.get(), none);
  EXPECT_TRUE(none.rows().empty());
}

TEST(FairsharePrivacyTest, PrivilegedCallersAndOperatorsSeeTheWholeTree) {
  auto policy = Policy();
  const size_t all = static_cast<size_t>(Tree().rows_size());
  for (const Caller& c : {Named("root", 0, true), Named("slurm", 500, true), Named("op", 1004)}) {
    wire::FairshareResponse shares = Tree();
    HidePrivateShares({"usage", "accounts"}, c, policy.get(), shares);
    EXPECT_EQ(static_cast<size_t>(shares.rows_size()), all) << c.user;
  }
}

TEST(FairsharePrivacyTest, OtherValuesAndNoAccountingLeaveAccountsAlone) {
  auto policy = Policy();
  wire::FairshareResponse shares = Tree();
  HidePrivateShares({"jobs", "users"}, Named("ann", 1001), policy.get(), shares);
  EXPECT_EQ(shares.rows_size(), Tree().rows_size());
  HidePrivateShares({"accounts"}, Named("ann", 1001), nullptr, shares);
  EXPECT_EQ(shares.rows_size(), Tree().rows_size());
  // Without accounting, usage still hides everyone else's rows.
  HidePrivateShares({"usage"}, Named("ann", 1001), nullptr, shares);
  EXPECT_EQ(Rows(shares), (std::vector<std::string>{"chem/ann", "physics/ann"}));
}

}  // namespace
}  // namespace rota::ctld
