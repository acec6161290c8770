#include "cli/cluster_option.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace rota::cli {
namespace {

TEST(ClusterOptionTest, TakesTheLocalClusterAloneInAListOrAsAll) {
  EXPECT_TRUE(NamesOnlyLocalCluster("anchor", "anchor"));
  EXPECT_TRUE(NamesOnlyLocalCluster("ANCHOR", "anchor"));
  EXPECT_TRUE(NamesOnlyLocalCluster("anchor,anchor", "anchor"));
  EXPECT_TRUE(NamesOnlyLocalCluster("all", "anchor"));
  EXPECT_TRUE(NamesOnlyLocalCluster("anchor,", "anchor"));
}

TEST(ClusterOptionTest, RefusesAnyOtherName) {
  EXPECT_FALSE(NamesOnlyLocalCluster("other", "anchor"));
  EXPECT_FALSE(NamesOnlyLocalCluster("anchor,other", "anchor"));
  EXPECT_FALSE(NamesOnlyLocalCluster("", "anchor"));
  EXPECT_FALSE(NamesOnlyLocalCluster(",", "anchor"));
}

TEST(ClusterOptionTest, ListsLocalClusterAmongOthers) {
  EXPECT_TRUE(ListsLocalCluster("other,anchor", "anchor"));
  EXPECT_TRUE(ListsLocalCluster("all", "anchor"));
  EXPECT_FALSE(ListsLocalCluster("other", "anchor"));
}

TEST(ClusterOptionTest, RefusalIsSlurms) {
  EXPECT_EQ(UnreachableClusterMessage("a,b"),
            "'a,b' can't be reached now, or it is an invalid entry for --cluster.  Use "
            "'sacctmgr list clusters' to see available clusters.");
}

TEST(ClusterOptionTest, ChecksAgainstSlurmConfsClusterName) {
  testing::TempDir dir;
  const std::string conf = dir.Write("slurm.conf",
                                     "ClusterName=anchor\nSlurmctldHost=h\n"
                                     "NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1\n");
  EXPECT_TRUE(CheckClusterOption("anchor", conf).ok());
  Status refused = CheckClusterOption("elsewhere", conf);
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(), UnreachableClusterMessage("elsewhere"));
  Status unreadable = CheckClusterOption("anchor", dir.path().string() + "/missing.conf");
  EXPECT_FALSE(unreadable.ok());
  EXPECT_NE(unreadable.message().find("missing.conf"), std::string::npos);
}

}  // namespace
}  // namespace rota::cli
