#include "conf/config_reader.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace rota::conf {
namespace {

using rota::testing::TempDir;

TEST(ConfigReaderTest, CommentsContinuationsAndQuotes) {
  TempDir dir;
  std::string path = dir.Write("slurm.conf",
                               "# a comment\n"
                               "ClusterName=hpc   # trailing comment\n"
                               "\n"
                               "PartitionName=gpu Nodes=n[1-2] \\\n"
                               "    TRESBillingWeights=\"CPU=1.0, Mem=0.1G\"\n"
                               "Prolog=/etc/prolog\\#1\n");
  Diagnostics diags;
  std::vector<ConfigLine> lines = ReadConfigFile(path, true, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].where.line, 2);
  EXPECT_EQ(lines[0].pairs[0].key, "ClusterName");
  EXPECT_EQ(lines[0].pairs[0].value, "hpc");
  EXPECT_EQ(lines[1].where.line, 4);  // A continued line keeps its first line's number.
  ASSERT_EQ(lines[1].pairs.size(), 3u);
  EXPECT_EQ(*lines[1].Find("tresbillingweights"), "CPU=1.0, Mem=0.1G");
  EXPECT_EQ(lines[2].pairs[0].value, "/etc/prolog#1");
}

TEST(ConfigReaderTest, FirstEqualsSplitsKeyFromValue) {
  Diagnostics diags;
  auto pairs = TokenizeConfigLine("PriorityWeightTRES=CPU=1000,GRES/gpu=3000", {"f", 1}, diags);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].key, "PriorityWeightTRES");
  EXPECT_EQ(pairs[0].value, "CPU=1000,GRES/gpu=3000");
}

TEST(ConfigReaderTest, TokenWithoutEqualsIsAnErrorAtItsLine) {
  Diagnostics diags;
  auto pairs = TokenizeConfigLine("NodeName=n1 bogus CPUs=4", {"slurm.conf", 7}, diags);
  EXPECT_EQ(pairs.size(), 2u);
  ASSERT_TRUE(diags.has_errors());
  EXPECT_EQ(diags.all()[0].ToString(),
            "error: slurm.conf line 7: expected Key=Value, found 'bogus'");
}

TEST(ConfigReaderTest, UnterminatedQuoteIsAnError) {
  Diagnostics diags;
  TokenizeConfigLine("A=\"open", {"f", 3}, diags);
  ASSERT_TRUE(diags.has_errors());
  EXPECT_NE(diags.all()[0].message.find("unterminated quote"), std::string::npos);
}

TEST(ConfigReaderTest, IncludeWithGlobAndRelativePath) {
  TempDir dir;
  dir.Write("parts.d/b.conf", "PartitionName=b Nodes=n1\n");
  dir.Write("parts.d/a.conf", "PartitionName=a Nodes=n1\n");
  std::string path =
      dir.Write("slurm.conf", "ClusterName=x\ninclude parts.d/*.conf\nSlurmUser=y\n");
  Diagnostics diags;
  std::vector<ConfigLine> lines = ReadConfigFile(path, true, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1].pairs[0].value, "a");  // Glob matches are read in sorted order.
  EXPECT_EQ(lines[2].pairs[0].value, "b");
  EXPECT_NE(lines[2].where.file.find("b.conf"), std::string::npos);
  EXPECT_EQ(lines[3].pairs[0].key, "SlurmUser");
}

TEST(ConfigReaderTest, IncludeMatchingNothingIsAnError) {
  TempDir dir;
  std::string path = dir.Write("slurm.conf", "Include nodes/*.conf\n");
  Diagnostics diags;
  ReadConfigFile(path, true, diags);
  ASSERT_EQ(diags.error_count(), 1);
  EXPECT_EQ(diags.all()[0].where.line, 1);
  EXPECT_NE(diags.all()[0].message.find("matches no file"), std::string::npos);
}

TEST(ConfigReaderTest, IncludeLoopIsStopped) {
  TempDir dir;
  std::string path = dir.Write("slurm.conf", "Include slurm.conf\n");
  Diagnostics diags;
  ReadConfigFile(path, true, diags);
  ASSERT_TRUE(diags.has_errors());
  EXPECT_NE(diags.ToString().find("nested more than"), std::string::npos);
}

TEST(ConfigReaderTest, MissingFiles) {
  Diagnostics diags;
  EXPECT_TRUE(ReadConfigFile("/nonexistent/gres.conf", false, diags).empty());
  EXPECT_FALSE(diags.has_errors());
  ReadConfigFile("/nonexistent/slurm.conf", true, diags);
  EXPECT_TRUE(diags.has_errors());
  EXPECT_EQ(diags.all()[0].ToString(), "error: /nonexistent/slurm.conf: cannot read file");
}

}  // namespace
}  // namespace rota::conf
