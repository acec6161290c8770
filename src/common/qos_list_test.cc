#include "common/qos_list.h"

#include <gtest/gtest.h>

namespace rota {
namespace {

using Names = std::vector<std::string>;

TEST(QosListTest, PlainListsAreSortedAndEditedInPlace) {
  EXPECT_EQ(EditQosList("", '=', "normal, high,normal"), "high,normal");
  EXPECT_EQ(EditQosList("high,normal", '+', "gpu"), "gpu,high,normal");
  EXPECT_EQ(EditQosList("high,normal", '-', "high"), "normal");
  EXPECT_EQ(EditQosList("high,normal", '=', ""), "");
}

TEST(QosListTest, EditsOnAnInheritedListAreKeptAsEdits) {
  EXPECT_EQ(EditQosList("", '+', "high"), "+high");
  EXPECT_EQ(EditQosList("+high", '-', "low"), "+high,-low");
  // The newest edit of a name replaces the older one.
  EXPECT_EQ(EditQosList("+high,-low", '+', "low"), "+high,+low");
}

TEST(QosListTest, TheNearestPlainListIsTheBaseAndEditsBelowItApply) {
  EXPECT_EQ(ResolveQosList({"", "", ""}), std::nullopt);
  EXPECT_EQ(ResolveQosList({"", "high,normal"}), (Names{"high", "normal"}));
  // The user's own plain list hides the account's.
  EXPECT_EQ(ResolveQosList({"gpu", "high,normal"}), (Names{"gpu"}));
  // The account removes high, the user adds gpu.
  EXPECT_EQ(ResolveQosList({"+gpu", "-high", "high,normal"}), (Names{"gpu", "normal"}));
  // Only edits: they apply to Slurm's root default.
  EXPECT_EQ(ResolveQosList({"+high"}), (Names{"high", "normal"}));
}

}  // namespace
}  // namespace rota
