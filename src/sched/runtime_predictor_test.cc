#include "sched/runtime_predictor.h"

#include <gtest/gtest.h>

namespace rota::sched {
namespace {

TEST(RuntimePredictor, MeanOfTheUsersLastTwoJobs) {
  RuntimePredictor p;
  EXPECT_EQ(p.Predict(7), 0);  // Nothing known yet
  p.Finished(7, 100);
  EXPECT_EQ(p.Predict(7), 100);
  p.Finished(7, 300);
  EXPECT_EQ(p.Predict(7), 200);
  p.Finished(7, 50);  // The job of 100 s is forgotten
  EXPECT_EQ(p.Predict(7), 175);
  p.Finished(7, 51);
  EXPECT_EQ(p.Predict(7), 51);  // (50 + 51) / 2 rounded up
  EXPECT_EQ(p.Predict(8), 0);   // Other users are apart
  p.Finished(-1, 10);           // Unknown users share one history
  EXPECT_EQ(p.Predict(-1), 10);
}

}  // namespace
}  // namespace rota::sched
