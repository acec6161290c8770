// sshare's columns, widths, long and parsable forms.

#include "cli/query/sshare_format.h"

#include <gtest/gtest.h>

#include <limits>

namespace rota::cli {
namespace {

wire::FairshareResponse Tree() {
  wire::FairshareResponse r;
  r.set_priority_type("priority/multifactor");
  r.set_fair_tree(true);
  auto add = [&](std::string account, std::string user, uint32_t depth, std::string shares,
                 double norm, double usage, double effectv, double fs, double level) {
    wire::FairshareRow* row = r.add_rows();
    row->set_account(account);
    row->set_user(user);
    row->set_depth(depth);
    row->set_raw_shares(shares);
    row->set_norm_shares(norm);
    row->set_raw_usage(usage);
    row->set_norm_usage(usage / 2100);
    row->set_effective_usage(effectv);
    row->set_fairshare(fs);
    row->set_level_fs(level);
  };
  add("root", "", 0, "", 1.0, 2100, 1.0, -1, -1);
  add("root", "alice", 1, "1", 0.5, 2100.4, 1.0, 0.5, 0.5);
  add("root", "bob", 1, "1", 0.5, 0, 0, 1.0, std::numeric_limits<double>::infinity());
  add("physics", "", 1, "3", 0.75, 0, 0, -1, std::numeric_limits<double>::infinity());
  return r;
}

TEST(SshareFormatTest, DefaultColumnsAsSlurmPrintsThem) {
  std::string error;
  std::string out = FormatSshare(Tree(), {}, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(out,
            "             Account       User  RawShares  NormShares    RawUsage  EffectvUsage "
            " FairShare \n"
            "-------------------- ---------- ---------- ----------- ----------- ------------- "
            "---------- \n"
            "root                                          1.000000        2100      1.000000  "
            "          \n"
            " root                     alice          1    0.500000        2100      1.000000  "
            " 0.500000 \n"
            " root                       bob          1    0.500000           0      0.000000  "
            " 1.000000 \n"
            " physics                                 3    0.750000           0      0.000000  "
            "          \n");
}

TEST(SshareFormatTest, LongAddsNormUsageAndLevelFs) {
  SshareOptions o;
  o.long_format = true;
  o.parsable2 = true;
  std::string error;
  std::string out = FormatSshare(Tree(), o, &error);
  EXPECT_EQ(out,
            "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS\n"
            "root|||1.000000|2100|1.000000|1.000000||\n"
            " root|alice|1|0.500000|2100|1.000190|1.000000|0.500000|0.500000\n"
            " root|bob|1|0.500000|0|0.000000|0.000000|1.000000|inf\n"
            " physics||3|0.750000|0|0.000000|0.000000||inf\n");
}

TEST(SshareFormatTest, ChosenFieldsParsableNoHeader) {
  SshareOptions o;
  o.fields = {"User%5", "FairShare"};
  o.parsable = true;
  o.no_header = true;
  std::string error;
  std::string out = FormatSshare(Tree(), o, &error);
  EXPECT_EQ(out, "||\nalice|0.500000|\nbob|1.000000|\n||\n");
  o.parsable = false;
  o.no_header = false;
  out = FormatSshare(Tree(), o, &error);
  EXPECT_EQ(out.substr(0, 41), " User  FairShare \n----- ---------- \n     ");
  o.fields = {"Bogus"};
  EXPECT_EQ(FormatSshare(Tree(), o, &error), "");
  EXPECT_EQ(error, "Invalid field requested: \"Bogus\"");
}

}  // namespace
}  // namespace rota::cli
