#include "cli/accounting/sreport_assoc.h"

#include <gtest/gtest.h>

#include "cli/accounting/sreport_test_support.h"

namespace rota::cli {
namespace {

using sreport_test::Aligned;
using sreport_test::Job;
using sreport_test::kDay;
using sreport_test::kWindow;
using sreport_test::Parsable;

// root -> science -> {phys, chem}; root -> ops. alice in phys and chem, bob
// in phys, root in root, carol in ops (no jobs).
AssocTree Tree() {
  AssocTree t;
  t.parent_of = {
      {"root", ""}, {"science", "root"}, {"phys", "science"}, {"chem", "science"}, {"ops", "root"}};
  t.users = {
      {"phys", "alice"}, {"chem", "alice"}, {"phys", "bob"}, {"root", "root"}, {"ops", "carol"}};
  return t;
}

std::vector<wire::AccountingJob> Jobs() {
  return {
      Job("alice", "phys", kDay, kDay + 3600, "cpu=4,gres/gpu=1"),       // 240 cpu-min, 60 gpu-min
      Job("alice", "chem", kDay, kDay + 1800, "cpu=2"),                  // 60 cpu-min
      Job("bob", "phys", kDay - 3600, kDay + 7200, "cpu=1,gres/gpu=2"),  // 120 and 240
      Job("root", "root", kDay, kDay + 60, "cpu=1"),                     // 1
  };
}

const std::map<std::string, uint64_t> kCapacity = {{"cpu", 64}, {"gres/gpu", 16}};

TEST(SreportAccountByUser, TheTreeWithSubtreeSumsAndUsersIndented) {
  ReportOptions o = Parsable();
  std::string text = AccountUtilizationByUserReport("c1", {"cpu"}, kCapacity, Jobs(), Tree(), {},
                                                    {}, kWindow, {{"alice", "Alice A"}}, o);
  EXPECT_EQ(text,
            "--------------------------------------------------------------------------------\n"
            "Cluster/Account/User Utilization 2027-01-15T00:00:00 - 2027-01-15T23:59:59 "
            "(86400 secs)\n"
            "Usage reported in CPU Minutes\n"
            "--------------------------------------------------------------------------------\n"
            "Cluster|Account|Login|Proper Name|Used|Energy\n"
            "c1|root|||421|0\n"
            "c1| root|root||1|0\n"
            "c1| ops|||0|0\n"
            "c1|  ops|carol||0|0\n"
            "c1| science|||420|0\n"
            "c1|  chem|||60|0\n"
            "c1|   chem|alice|Alice A|60|0\n"
            "c1|  phys|||360|0\n"
            "c1|   phys|alice|Alice A|240|0\n"
            "c1|   phys|bob||120|0\n");
}

TEST(SreportAccountByUser, TresNamedPercentAndAccountsAndUsersFilters) {
  ReportOptions o = Parsable();
  o.no_header = true;
  o.tres_named = true;
  o.time.percent = true;
  o.time.unit = ReportUnit::kHours;
  // Accounts=phys: that subtree only, from depth 0; Users=bob: bob's lines.
  std::vector<wire::AccountingJob> bobs = {Jobs()[2]};
  EXPECT_EQ(AccountUtilizationByUserReport("c1", {"gres/gpu", "cpu"}, kCapacity, bobs, Tree(),
                                           {"phys"}, {"bob"}, kWindow, {}, o),
            "c1|phys|||gres/gpu|4(1.04%)|0\n"
            "c1|phys|||cpu|2(0.13%)|0\n"
            "c1| phys|bob||gres/gpu|4(1.04%)|0\n"
            "c1| phys|bob||cpu|2(0.13%)|0\n");
}

TEST(SreportAccountByUser, AlignedAccountColumnIsLeftJustified) {
  ReportOptions o = Aligned();
  std::string text = AccountUtilizationByUserReport("c1", {"cpu"}, kCapacity, {Jobs()[3]}, Tree(),
                                                    {"ops"}, {}, kWindow, {}, o);
  EXPECT_NE(text.find("  Cluster Account             Login     Proper Name       Used   Energy \n"
                      "--------- --------------- --------- --------------- ---------- -------- \n"
                      "       c1 ops                                                0        0 \n"
                      "       c1  ops                carol                          0        0 \n"),
            std::string::npos)
      << text;
}

TEST(SreportAccountByUser, AccountsMissingFromTheTreeGoUnderRoot) {
  AssocTree bare = CompleteTree({}, {Job("dave", "lost", kDay, kDay + 60, "cpu=1")});
  ReportOptions o = Parsable();
  o.no_header = true;
  EXPECT_EQ(AccountUtilizationByUserReport("c1", {"cpu"}, kCapacity,
                                           {Job("dave", "lost", kDay, kDay + 60, "cpu=1")}, bare,
                                           {}, {}, kWindow, {}, o),
            "c1|root|||1|0\n"
            "c1| lost|||1|0\n"
            "c1|  lost|dave||1|0\n");
}

TEST(SreportUserByAccount, OneLinePerUserAndAccountMostUsedFirst) {
  ReportOptions o = Parsable();
  std::string text = UserUtilizationByAccountReport("c1", {"cpu"}, kCapacity, Jobs(), kWindow,
                                                    {{"bob", "Bob B"}}, o);
  EXPECT_EQ(text,
            "--------------------------------------------------------------------------------\n"
            "Cluster/User/Account Utilization 2027-01-15T00:00:00 - 2027-01-15T23:59:59 "
            "(86400 secs)\n"
            "Usage reported in CPU Minutes\n"
            "--------------------------------------------------------------------------------\n"
            "Cluster|Login|Proper Name|Account|Used|Energy\n"
            "c1|alice||phys|240|0\n"
            "c1|bob|Bob B|phys|120|0\n"
            "c1|alice||chem|60|0\n"
            "c1|root||root|1|0\n");
  o.no_header = true;
  o.tres_named = true;
  // By GPU time: who used no GPU is not listed.
  EXPECT_EQ(UserUtilizationByAccountReport("c1", {"gres/gpu"}, kCapacity, Jobs(), kWindow, {}, o),
            "c1|bob||phys|gres/gpu|240|0\n"
            "c1|alice||phys|gres/gpu|60|0\n");
}

}  // namespace
}  // namespace rota::cli
