#include "conf/value_parsers.h"

#include <gtest/gtest.h>

namespace rota::conf {
namespace {

TEST(ValueParsersTest, Numbers) {
  uint32_t n = 0;
  EXPECT_TRUE(ParseUint32Value("42", n).ok());
  EXPECT_EQ(n, 42u);
  EXPECT_FALSE(ParseUint32Value("-1", n).ok());
  EXPECT_FALSE(ParseUint32Value("4294967296", n).ok());
  EXPECT_EQ(ParseUint32Value("x", n).message(), "is not a non-negative integer");
}

TEST(ValueParsersTest, Ports) {
  uint16_t p = 0;
  EXPECT_TRUE(ParsePortValue("6817", p).ok());
  EXPECT_EQ(p, 6817);
  EXPECT_TRUE(ParsePortValue("7000-7003", p).ok());
  EXPECT_EQ(p, 7000);
  EXPECT_FALSE(ParsePortValue("0", p).ok());
  EXPECT_FALSE(ParsePortValue("70000", p).ok());
}

TEST(ValueParsersTest, TimesAndSeconds) {
  DurationSecs t = 0;
  EXPECT_TRUE(ParseTimeValue("7-0", t).ok());
  EXPECT_EQ(t, 7 * 86400);
  EXPECT_TRUE(ParseTimeValue("00:10:00", t).ok());
  EXPECT_EQ(t, 600);
  EXPECT_EQ(ParseTimeValue("one-day", t).message(), "is not a valid time limit");
  EXPECT_TRUE(ParseSecondsValue("120", t).ok());
  EXPECT_EQ(t, 120);
  EXPECT_FALSE(ParseSecondsValue("2:00", t).ok());
}

TEST(ValueParsersTest, Choices) {
  std::string out;
  EXPECT_TRUE(ParseChoiceValue("SCHED/BACKFILL", {"sched/backfill", "sched/builtin"}, out).ok());
  EXPECT_EQ(out, "sched/backfill");
  Status s = ParseChoiceValue("sched/wiki", {"sched/backfill", "sched/builtin"}, out);
  EXPECT_EQ(s.message(), "is not one of sched/backfill, sched/builtin");
  std::vector<std::string> list;
  EXPECT_TRUE(
      ParseChoiceListValue("task/cgroup,TASK/AFFINITY", {"task/cgroup", "task/affinity"}, list)
          .ok());
  EXPECT_EQ(list, (std::vector<std::string>{"task/cgroup", "task/affinity"}));
  EXPECT_FALSE(ParseChoiceListValue("task/cgroup,task/x", {"task/cgroup"}, list).ok());
}

TEST(ValueParsersTest, IndexLists) {
  std::vector<uint32_t> ids;
  EXPECT_TRUE(ParseIndexListValue("8,0-3,2", ids).ok());
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 1, 2, 3, 8}));
  EXPECT_FALSE(ParseIndexListValue("3-1", ids).ok());
  EXPECT_FALSE(ParseIndexListValue("", ids).ok());
  EXPECT_FALSE(ParseIndexListValue("a-b", ids).ok());
  EXPECT_FALSE(ParseIndexListValue("0-4294967295", ids).ok());
}

TEST(ValueParsersTest, BoolsMemoryAndLists) {
  bool b = false;
  EXPECT_TRUE(ParseBoolValue("yes", b).ok());
  EXPECT_TRUE(b);
  EXPECT_FALSE(ParseBoolValue("maybe", b).ok());
  MemoryMb mb = 0;
  EXPECT_TRUE(ParseMemoryValue("16G", mb).ok());
  EXPECT_EQ(mb, 16384u);
  EXPECT_EQ(ParseListValue("a,,b, c"), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace rota::conf
