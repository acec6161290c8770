// Keys a site sets that Rota accepts without acting on them are each told at
// their line; keys Rota acts on, and unknown keys, are not told as such.
#include "conf/unenforced_keys.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::conf {
namespace {

using rota::testing::kMinimalHead;
using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(UnenforcedKeysTest, LooksUpByPlaceInAnyCase) {
  EXPECT_EQ(UnenforcedKey(KeyPlace::kSlurmConf, "slurmduser"), "SlurmdUser");
  EXPECT_EQ(UnenforcedKey(KeyPlace::kPartitionLine, "ALLOCNODES"), "AllocNodes");
  // The same word can mean something else on another kind of line.
  EXPECT_EQ(UnenforcedKey(KeyPlace::kNodeLine, "AllocNodes"), "");
  EXPECT_EQ(UnenforcedKey(KeyPlace::kSlurmConf, "KillWait"), "");
  EXPECT_EQ(UnenforcedKey(KeyPlace::kSlurmConf, "NoSuchKey"), "");
}

TEST(UnenforcedKeysTest, EachFileWarnsAtTheKeysLine) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) +                            // lines 1-3
                                "SlurmdUser=root\n"                                // 4
                                "KillWait=20\n"                                    // 5
                                "NodeName=n1 CPUs=4 Gres=gpu:1 CoreSpecCount=1\n"  // 6
                                "PartitionName=p Nodes=n1 AllocNodes=login1 Default=yes\n",  // 7
                            "Name=gpu File=/dev/nvidia0 Links=0\n", "ConstrainSwapSpace=yes\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const std::string text = loaded.Text();
  EXPECT_TRUE(
      Has(text, "warning: slurm.conf line 4: SlurmdUser is accepted, has no effect in Rota"))
      << text;
  EXPECT_TRUE(
      Has(text, "warning: slurm.conf line 6: CoreSpecCount is accepted, has no effect in Rota"))
      << text;
  EXPECT_TRUE(
      Has(text, "warning: slurm.conf line 7: AllocNodes is accepted, has no effect in Rota"))
      << text;
  EXPECT_TRUE(Has(text, "warning: gres.conf line 1: Links is accepted, has no effect in Rota"))
      << text;
  EXPECT_TRUE(Has(
      text, "warning: cgroup.conf line 1: ConstrainSwapSpace is accepted, has no effect in Rota"))
      << text;
  // KillWait is acted on; nothing else was set that Rota ignores.
  EXPECT_EQ(text.find("KillWait"), std::string::npos) << text;
  EXPECT_EQ(loaded.diags.all().size(), 5u) << text;
  // Still kept for `scontrol show config`.
  EXPECT_EQ((*loaded.config)->settings.raw.at("SlurmdUser"), "root");
}

TEST(UnenforcedKeysTest, DefaultLinesWarnOnceAtTheirLine) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + "NodeName=DEFAULT MemSpecLimit=100\n"  // 4
                                                        "NodeName=n1 CPUs=4\n"
                                                        "NodeName=n2 CPUs=4\n"
                                                        "PartitionName=DEFAULT RootOnly=no\n"  // 7
                                                        "PartitionName=p Nodes=n1,n2\n"
                                                        "PartitionName=q Nodes=n1,n2\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_EQ(loaded.Text(),
            "warning: slurm.conf line 4: MemSpecLimit is accepted, has no effect in Rota\n"
            "warning: slurm.conf line 7: RootOnly is accepted, has no effect in Rota\n");
}

TEST(UnenforcedKeysTest, ParsedKeysWithoutEffectStillCheckTheirValue) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "ProctrackType=proctrack/pgid\n"  // 4
                                        "SlurmctldTimeout=soon\n"         // 5
                                        "NodeName=n1\n"
                                        "PartitionName=p Nodes=n1 MaxMemPerNode=lots\n"});  // 7
  EXPECT_FALSE(loaded.config.ok());
  const std::string text = loaded.Text();
  EXPECT_TRUE(
      Has(text, "warning: slurm.conf line 4: ProctrackType is accepted, has no effect in Rota"))
      << text;
  EXPECT_TRUE(
      Has(text, "error: slurm.conf line 5: SlurmctldTimeout=soon is not a number of seconds"))
      << text;
  EXPECT_NE(text.find("error: slurm.conf line 7: MaxMemPerNode=lots"), std::string::npos) << text;
}

TEST(UnenforcedKeysTest, AValueThatAsksForWhatRotaDoesAnywayIsNotWarned) {
  TempDir dir;
  auto same = LoadConfigFiles(dir, {std::string(kMinimalHead) + "ProctrackType=proctrack/cgroup\n"
                                                                "SwitchType=switch/none\n"
                                                                "NodeName=n1\n",
                                    "", "IgnoreSystemd=YES\n"});
  ASSERT_TRUE(same.config.ok()) << same.Text();
  EXPECT_EQ(same.Text(), "");
  TempDir dir2;
  auto other =
      LoadConfigFiles(dir2, {std::string(kMinimalHead) + "ProctrackType=proctrack/linuxproc\n"  // 4
                                                         "NodeName=n1\n",
                             "", "IgnoreSystemd=no\n"});
  ASSERT_TRUE(other.config.ok()) << other.Text();
  EXPECT_EQ(other.Text(),
            "warning: slurm.conf line 4: ProctrackType is accepted, has no effect in Rota\n"
            "warning: cgroup.conf line 1: IgnoreSystemd is accepted, has no effect in Rota\n");
}

TEST(UnenforcedKeysTest, UnknownKeysAreToldApart) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "NoSuchKey=1\n"
                                        "NodeName=n1 NoSuchNodeKey=1\n"
                                        "PartitionName=p Nodes=n1 NoSuchPartKey=1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const std::string text = loaded.Text();
  EXPECT_TRUE(Has(text, "warning: slurm.conf line 4: unknown key NoSuchKey (ignored)")) << text;
  EXPECT_TRUE(Has(text, "warning: slurm.conf line 5: unknown NodeName key NoSuchNodeKey (ignored)"))
      << text;
  EXPECT_EQ(text.find("has no effect"), std::string::npos) << text;
}

}  // namespace
}  // namespace rota::conf
