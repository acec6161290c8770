#include "noded/stepd/task_limits.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rota::noded {
namespace {

TEST(TaskLimitsTest, KnownNamesBecomeResources) {
  wire::JobSpec spec;
  for (const auto& [name, soft] : std::vector<std::pair<std::string, uint64_t>>{
           {"NOFILE", 512}, {"WIDGETS", 3}, {"core", 0}}) {
    wire::ResourceLimit* l = spec.add_rlimits();
    l->set_name(name);
    l->set_soft(soft);
  }
  std::vector<SoftLimit> got = SoftLimitsFrom(spec.rlimits());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].resource, RLIMIT_NOFILE);
  EXPECT_EQ(got[0].value, 512u);
  EXPECT_EQ(got[1].resource, RLIMIT_CORE);
  EXPECT_EQ(got[1].value, 0u);
}

// In a child, as a task would: the soft limit changes, the hard one does
// not, and a value above the hard limit leaves the limit as it was.
TEST(TaskLimitsTest, ApplyingSetsSoftLimitsWithinTheHardOnes) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    rlimit before{};
    getrlimit(RLIMIT_NOFILE, &before);
    rlimit hard_core{0, 1 << 20};
    setrlimit(RLIMIT_CORE, &hard_core);
    ApplySoftLimits({{RLIMIT_NOFILE, 64}, {RLIMIT_CORE, UINT64_MAX}});
    rlimit nofile{}, core{};
    getrlimit(RLIMIT_NOFILE, &nofile);
    getrlimit(RLIMIT_CORE, &core);
    bool ok = nofile.rlim_cur == 64 && nofile.rlim_max == before.rlim_max && core.rlim_cur == 0 &&
              core.rlim_max == (1 << 20);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace rota::noded
