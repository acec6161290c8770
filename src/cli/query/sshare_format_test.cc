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

TEST(SshareFormatTest, UsersOnlyPartitionAndClusterColumns) {
  SshareOptions o;
  o.parsable2 = true;
  o.users_only = true;
  o.partitions = true;
  std::string error;
  EXPECT_EQ(FormatSshare(Tree(), o, &error),
            "Account|User|Partition|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
            " root|alice||1|0.500000|2100|1.000000|0.500000\n"
            " root|bob||1|0.500000|0|0.000000|1.000000\n");
  EXPECT_EQ(error, "");
  o = {};
  o.parsable2 = true;
  o.no_header = true;
  o.cluster = "gpu7";
  o.fields = {"Cluster", "Account"};
  EXPECT_EQ(FormatSshare(Tree(), o, &error), "gpu7|root\ngpu7| root\ngpu7| root\ngpu7| physics\n");
}

TEST(SshareFormatTest, HelpFormatListsTheFieldsFourToALine) {
  EXPECT_EQ(SshareHelpFormat(),
            "Account           Cluster           EffectvUsage      FairShare        \n"
            "LevelFS           NormShares        NormUsage         Partition        \n"
            "RawShares         RawUsage          User             \n");
}

TEST(SshareFormatTest, DefaultColumnsAsSlurmPrintsThem) {
  std::string error;
  std::string out = FormatSshare(Tree(), {}, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(out,
            "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage "
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

TEST(SshareFormatTest, LongHeaderAsSlurmPrintsIt) {
  // Slurm 22.05's `sshare -l` header up to LevelFS (its TRES columns are not kept).
  const std::string slurm =
      "Account                    User  RawShares  NormShares    RawUsage   NormUsage  "
      "EffectvUsage  FairShare    LevelFS ";
  wire::FairshareResponse tree = Tree();
  tree.set_fair_tree(true);
  SshareOptions o;
  o.long_format = true;
  std::string error;
  std::string out = FormatSshare(tree, o, &error);
  EXPECT_EQ(out.substr(0, out.find('\n')), slurm);
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

namespace rota::cli {
namespace {

TEST(SshareFormatTest, WidthsCutHeadersAndValues) {
  SshareOptions o;
  o.fields = {"Account%4", "user%3", "NORMSHARES%5"};
  std::string error;
  EXPECT_EQ(FormatSshare(Tree(), o, &error),
            "Acco Use NormS \n"
            "---- --- ----- \n"
            "root     1.000 \n"
            " ro+ al+ 0.500 \n"
            " ro+ bob 0.500 \n"
            " ph+     0.750 \n");
  EXPECT_EQ(error, "");
  o.fields = {"Account%12", "LevelFS%9"};
  o.no_header = true;
  EXPECT_EQ(FormatSshare(Tree(), o, &error),
            "root                   \n"
            " root         0.500000 \n"
            " root              inf \n"
            " physics           inf \n");
}

TEST(SshareFormatTest, ParsableWithAndWithoutTheLastBar) {
  SshareOptions o;
  o.fields = {"Account%3", "User", "RawUsage"};
  o.parsable = true;
  std::string error;
  EXPECT_EQ(FormatSshare(Tree(), o, &error),
            "Account|User|RawUsage|\nroot||2100|\n root|alice|2100|\n root|bob|0|\n physics||0|\n");
  o.parsable = false;
  o.parsable2 = true;
  EXPECT_EQ(FormatSshare(Tree(), o, &error),
            "Account|User|RawUsage\nroot||2100\n root|alice|2100\n root|bob|0\n physics||0\n");
  // Both: -p's trailing bar.
  o.parsable = true;
  o.no_header = true;
  EXPECT_EQ(FormatSshare(Tree(), o, &error).substr(0, 11), "root||2100|");
}

TEST(SshareFormatTest, BadWidthIsAnError) {
  SshareOptions o;
  o.fields = {"User", "FairShare%x"};
  std::string error;
  EXPECT_EQ(FormatSshare(Tree(), o, &error), "");
  EXPECT_EQ(error, "Invalid field requested: \"FairShare%x\"");
  o.fields = {"User:5"};
  EXPECT_EQ(FormatSshare(Tree(), o, &error), "");
  EXPECT_EQ(error, "Invalid field requested: \"User:5\"");
}

// "%0" keeps the field's own width, as Slurm reads it (atoi, 0: unchanged).
TEST(SshareFormatTest, WidthZeroIsTheDefaultWidth) {
  SshareOptions o;
  o.fields = {"User%0", "RawShares%0"};
  o.no_header = true;
  std::string error;
  EXPECT_EQ(FormatSshare(Tree(), o, &error).substr(0, 46),
            "                      \n     alice          1 \n");
  EXPECT_EQ(error, "");
}

}  // namespace
}  // namespace rota::cli
