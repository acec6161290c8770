#include "model/dependency.h"

#include <gtest/gtest.h>

namespace rota::model {
namespace {

TEST(DependencyTest, ParsesAllAndAnyForms) {
  Result<Dependency> d = ParseDependency("afterok:12:13,afterany:14_3,singleton");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_FALSE(d->any);
  ASSERT_EQ(d->terms.size(), 4u);
  EXPECT_EQ(d->terms[1].job_id, 13u);
  EXPECT_EQ(d->terms[2].type, DependencyType::kAfterAny);
  EXPECT_EQ(d->terms[2].array_task_id, 3u);
  EXPECT_EQ(d->terms[3].type, DependencyType::kSingleton);

  Result<Dependency> any = ParseDependency("afterok:5?afternotok:6");
  ASSERT_TRUE(any.ok());
  EXPECT_TRUE(any->any);
  EXPECT_EQ(any->terms.size(), 2u);

  Result<Dependency> delayed = ParseDependency("after:7+10");
  ASSERT_TRUE(delayed.ok());
  EXPECT_EQ(delayed->terms[0].delay_secs, 600);
}

TEST(DependencyTest, RejectsBadSyntax) {
  for (const char* bad :
       {"", "afterok", "afterok:", "afterok:x", "sometime:3", "afterok:1,afterany:2?afterok:3",
        "singleton:4", "afterok:0", "afterok:3+5"}) {
    EXPECT_FALSE(ParseDependency(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace rota::model
