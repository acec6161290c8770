#include "model/job_payload.h"

#include <gtest/gtest.h>

namespace rota::model {
namespace {

TEST(JobPayloadTest, PacksSmallerAndUnpacksTheSame) {
  wire::JobPayload p;
  p.set_script("#!/bin/sh\nsrun python train.py\n");
  for (int i = 0; i < 40; ++i)
    p.add_environment("VARIABLE_" + std::to_string(i) + "=/usr/local/bin:/usr/bin:/bin");
  std::string packed = PackPayload(p);
  EXPECT_LT(packed.size(), p.ByteSizeLong() / 2);
  Result<wire::JobPayload> back = UnpackPayload(42, packed);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->job_id(), 42u);
  EXPECT_EQ(back->script(), p.script());
  EXPECT_EQ(back->environment_size(), 40);
  EXPECT_EQ(back->environment(39), p.environment(39));
}

TEST(JobPayloadTest, CorruptInputIsAnError) {
  EXPECT_EQ(UnpackPayload(1, "not deflated").status().code(), StatusCode::kCorruption);
  std::string packed = PackPayload(wire::JobPayload());
  packed.back() ^= 0x55;
  EXPECT_FALSE(UnpackPayload(1, packed).ok());
}

}  // namespace
}  // namespace rota::model
