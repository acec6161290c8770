// The controller's side of priority/multifactor: what the factors read of a
// job's request (sched/multifactor_test.cc tests the factors).
#include "ctld/core/multifactor.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

TEST(MultifactorTest, RequestedGpuCountReadsEachWayOfAsking) {
  wire::JobSpec s;
  s.set_gpus("a100:3");
  EXPECT_EQ(RequestedGpuCount(s, 2, 4), 3u);
  s.clear_gpus();
  s.set_gpus_per_node("2");
  EXPECT_EQ(RequestedGpuCount(s, 2, 4), 4u);
  s.clear_gpus_per_node();
  s.set_gpus_per_task("1");
  EXPECT_EQ(RequestedGpuCount(s, 2, 4), 4u);
  s.clear_gpus_per_task();
  s.set_gres("gpu:a100:2");
  EXPECT_EQ(RequestedGpuCount(s, 3, 4), 6u);
  s.set_gres("gpu");
  EXPECT_EQ(RequestedGpuCount(s, 1, 1), 1u);
}

}  // namespace
}  // namespace rota::ctld
