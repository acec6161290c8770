#include "model/job_state.h"

#include <gtest/gtest.h>

namespace rota::model {
namespace {

TEST(JobStateTest, NamesRoundTrip) {
  for (int i = wire::JobState_MIN; i <= wire::JobState_MAX; ++i) {
    JobState s = static_cast<JobState>(i);
    JobState parsed;
    ASSERT_TRUE(ParseJobState(JobStateName(s), &parsed)) << i;
    EXPECT_EQ(parsed, s);
    ASSERT_TRUE(ParseJobState(JobStateCompactName(s), &parsed));
    EXPECT_EQ(parsed, s);
  }
  EXPECT_EQ(JobStateCompactName(wire::JOB_STATE_PENDING), "PD");
  EXPECT_EQ(JobStateName(wire::JOB_STATE_OUT_OF_MEMORY), "OUT_OF_MEMORY");
  JobState unused;
  EXPECT_FALSE(ParseJobState("SLEEPING", &unused));
  EXPECT_TRUE(IsFinished(wire::JOB_STATE_TIMEOUT));
  EXPECT_FALSE(IsFinished(wire::JOB_STATE_REQUEUED));
}

}  // namespace
}  // namespace rota::model
