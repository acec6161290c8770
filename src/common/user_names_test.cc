#include "common/user_names.h"

#include <gtest/gtest.h>

namespace rota {
namespace {

TEST(UserNamesTest, GroupsByNameOrNumber) {
  EXPECT_EQ(GroupNameOrNumber(0), "root");
  EXPECT_EQ(GroupNameOrNumber(4012345678u), "4012345678");
}

TEST(UserNamesTest, RootHasALoginAndAnUnknownUidHasNone) {
  EXPECT_EQ(UserName(0), "root");
  EXPECT_EQ(UserNameOrNumber(0), "root");
  // Far above any uid a system allocates.
  EXPECT_EQ(UserName(3999999999u), "");
  EXPECT_EQ(UserNameOrNumber(3999999999u), "3999999999");
}

}  // namespace
}  // namespace rota
