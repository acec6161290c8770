#include "cli/submit/propagated_limits.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>

namespace rota::cli {
namespace {

std::vector<std::string> Names(const google::protobuf::RepeatedPtrField<wire::ResourceLimit>& l) {
  std::vector<std::string> out;
  for (const wire::ResourceLimit& r : l) out.push_back(r.name());
  return out;
}

TEST(PropagatedLimitsTest, SendsWhatTheKeysNameWithThisProcesssValues) {
  conf::SlurmConf settings;
  wire::JobSpec spec;
  AddPropagatedLimits(settings, spec.mutable_rlimits());
  EXPECT_EQ(spec.rlimits_size(), 10);  // ALL by default

  settings.propagate_resource_limits = {"NOFILE"};
  spec.clear_rlimits();
  AddPropagatedLimits(settings, spec.mutable_rlimits());
  ASSERT_EQ(Names(spec.rlimits()), std::vector<std::string>{"NOFILE"});
  rlimit nofile{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &nofile), 0);
  EXPECT_EQ(spec.rlimits(0).soft(), static_cast<uint64_t>(nofile.rlim_cur));

  settings.propagate_resource_limits = {"NONE"};
  spec.clear_rlimits();
  AddPropagatedLimits(settings, spec.mutable_rlimits());
  EXPECT_EQ(spec.rlimits_size(), 0);

  settings.propagate_resource_limits.clear();
  settings.propagate_resource_limits_except = {"MEMLOCK"};
  spec.clear_rlimits();
  AddPropagatedLimits(settings, spec.mutable_rlimits());
  std::vector<std::string> sent = Names(spec.rlimits());
  EXPECT_EQ(sent.size(), 9u);
  EXPECT_EQ(std::count(sent.begin(), sent.end(), "MEMLOCK"), 0);
}

}  // namespace
}  // namespace rota::cli
