#include "cli/job_state_names.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

TEST(JobStateNamesTest, SqueueTakesFullAndCompactNamesFlagsAndAll) {
  for (const char* name : {"PENDING", "pd", "R", "running", "CG", "CONFIGURING", "cf",
                           "SPECIAL_EXIT", "OOM", "out_of_memory", "all", "ALL", "stopped"}) {
    EXPECT_TRUE(IsSqueueStateName(name)) << name;
  }
  for (const char* name : {"bogus", "", "PEND", "RUN", "P"}) {
    EXPECT_FALSE(IsSqueueStateName(name)) << name;
  }
}

TEST(JobStateNamesTest, SqueueRefusalListsTheNames) {
  const std::string error = SqueueStateError("bogus");
  EXPECT_EQ(error.rfind("Invalid job state specified: bogus\nValid job states include: "
                        "PENDING,RUNNING,SUSPENDED,COMPLETED,",
                        0),
            0u)
      << error;
  EXPECT_TRUE(error.ends_with(",STAGE_OUT,STOPPED")) << error;
}

TEST(JobStateNamesTest, SacctTakesItsStates) {
  for (const char* name : {"CD", "completed", "F", "CA", "TO", "NF", "R", "PD", "RQ", "CG"}) {
    EXPECT_TRUE(IsSacctStateName(name)) << name;
  }
  for (const char* name : {"bogus", "all", ""}) {
    EXPECT_FALSE(IsSacctStateName(name)) << name;
  }
}

}  // namespace
}  // namespace rota::cli
