#include "common/hostlist.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "common/strings.h"

namespace rota {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

std::vector<std::string> Expand(std::string_view expr) {
  Result<std::vector<std::string>> hosts = ExpandHostlist(expr);
  EXPECT_TRUE(hosts.ok()) << hosts.status().ToString();
  return hosts.value_or({});
}

// --- Expansion -------------------------------------------------------------

TEST(ExpandHostlistTest, ZeroPaddingFollowsTheLowBound) {
  std::vector<std::string> gpus = Expand("gpu[01-16]");
  ASSERT_EQ(gpus.size(), 16u);
  EXPECT_EQ(gpus.front(), "gpu01");
  EXPECT_EQ(gpus[8], "gpu09");
  EXPECT_EQ(gpus.back(), "gpu16");
  EXPECT_THAT(Expand("n[8-10]"), ElementsAre("n8", "n9", "n10"));
  EXPECT_THAT(Expand("n[08-10]"), ElementsAre("n08", "n09", "n10"));
  EXPECT_THAT(Expand("n[008-10]"), ElementsAre("n008", "n009", "n010"));
  EXPECT_THAT(Expand("n[9-010]"), ElementsAre("n9", "n10"));
  EXPECT_THAT(Expand("n[8,09-10]"), ElementsAre("n8", "n09", "n10"));
}

TEST(ExpandHostlistTest, ListsAndSingletonsInBrackets) {
  EXPECT_THAT(Expand("cpu[1-3,7]"), ElementsAre("cpu1", "cpu2", "cpu3", "cpu7"));
  EXPECT_THAT(Expand("n[5]"), ElementsAre("n5"));
  EXPECT_THAT(Expand("n[3,1,3]"), ElementsAre("n3", "n1", "n3"));
}

TEST(ExpandHostlistTest, SeveralGroupsVaryLeftmostSlowest) {
  EXPECT_THAT(Expand("rack[1-2]-n[01-03]"), ElementsAre("rack1-n01", "rack1-n02", "rack1-n03",
                                                        "rack2-n01", "rack2-n02", "rack2-n03"));
}

TEST(ExpandHostlistTest, TextAroundBrackets) {
  EXPECT_THAT(Expand("a[1-2]b"), ElementsAre("a1b", "a2b"));
  EXPECT_THAT(Expand("[1-3]"), ElementsAre("1", "2", "3"));
  EXPECT_THAT(Expand("x[1-2]y[3-4]z"), ElementsAre("x1y3z", "x1y4z", "x2y3z", "x2y4z"));
}

TEST(ExpandHostlistTest, CommasAndBlanksSeparateItems) {
  EXPECT_THAT(Expand("a1,b[2-3] c4"), ElementsAre("a1", "b2", "b3", "c4"));
  EXPECT_THAT(Expand(" login ,\tgpu[1-2]\n"), ElementsAre("login", "gpu1", "gpu2"));
  EXPECT_THAT(Expand("a,,b"), ElementsAre("a", "b"));
  // Order and duplicates are kept.
  EXPECT_THAT(Expand("b1,a1,b1"), ElementsAre("b1", "a1", "b1"));
}

void ExpectInvalid(std::string_view expr, std::string_view reason) {
  Result<std::vector<std::string>> hosts = ExpandHostlist(expr);
  ASSERT_FALSE(hosts.ok()) << expr;
  EXPECT_EQ(hosts.status().code(), StatusCode::kInvalidArgument) << expr;
  EXPECT_EQ(hosts.status().message(),
            "invalid hostlist \"" + std::string(expr) + "\": " + std::string(reason));
  // Counting parses the same way and must fail the same way.
  Result<size_t> count = CountHostlist(expr);
  ASSERT_FALSE(count.ok()) << expr;
  EXPECT_EQ(count.status(), hosts.status());
}

TEST(ExpandHostlistTest, ErrorsQuoteTheWholeInput) {
  ExpectInvalid("", "it names no hosts");
  ExpectInvalid(" , ", "it names no hosts");
  ExpectInvalid("gpu[3-1]", "range 3-1 is reversed");
  ExpectInvalid("a1,gpu[1-2,9-8]", "range 9-8 is reversed");
  ExpectInvalid("gpu[01-", "'[' is not closed");
  ExpectInvalid("gpu[1-2", "'[' is not closed");
  ExpectInvalid("gpu[1-2],b[3", "'[' is not closed");
  ExpectInvalid("gpu[a-b]", "range \"a-b\" is not numeric");
  ExpectInvalid("gpu[1-]", "range \"1-\" is not numeric");
  ExpectInvalid("gpu[-1]", "range \"-1\" is not numeric");
  ExpectInvalid("gpu[1-2-3]", "range \"1-2-3\" is not numeric");
  ExpectInvalid("gpu[ 1]", "range \" 1\" is not numeric");
  ExpectInvalid("gpu[x]", "range \"x\" is not numeric");
  ExpectInvalid("gpu[]", "empty brackets \"[]\"");
  ExpectInvalid("gpu[1,,2]", "empty range in \"[1,,2]\"");
  ExpectInvalid("gpu[1,]", "empty range in \"[1,]\"");
  ExpectInvalid("gpu[1-[2]]", "nested '['");
  ExpectInvalid("gpu[[1]]", "nested '['");
  ExpectInvalid("gpu1-2]", "']' without a matching '['");
  ExpectInvalid("a,]", "']' without a matching '['");
  ExpectInvalid("n[99999999999999999999]", "number 99999999999999999999 is too large");
  ExpectInvalid("[1-2][a]", "range \"a\" is not numeric");
}

TEST(ExpandHostlistTest, TooManyHostsIsOutOfRange) {
  Result<std::vector<std::string>> small = ExpandHostlist("n[1-4]", 3);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(small.status().message(), "hostlist \"n[1-4]\" names more than 3 hosts");
  EXPECT_TRUE(ExpandHostlist("n[1-3]", 3).ok());
  // The limit is on the whole expression, not on each item.
  EXPECT_EQ(ExpandHostlist("a[1-2],b[1-2]", 3).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(ExpandHostlist("a1,a1,a1,a1", 3).status().code(), StatusCode::kOutOfRange);
}

TEST(ExpandHostlistTest, HugeCountsFailWithoutExpanding) {
  // Expanding any of these would take minutes and tens of gigabytes; the
  // limit must be checked on the counts alone. (Speed lives in bench/.)
  for (std::string_view expr : {
           "n[0-999999999]",
           "r[1-1000]-n[1-1000]-x[1-1000]",
           // Counts that would wrap a 64-bit integer must not look small.
           "n[0-18446744073709551615]",
           "a[0-18446744073709551615]b[0-1]",
           "a[0-4294967296]b[0-4294967296]c[0-4294967296]",
       }) {
    Result<std::vector<std::string>> hosts = ExpandHostlist(expr);
    ASSERT_FALSE(hosts.ok()) << expr;
    EXPECT_EQ(hosts.status().code(), StatusCode::kOutOfRange) << expr;
    EXPECT_EQ(CountHostlist(expr).status().code(), StatusCode::kOutOfRange) << expr;
  }
}

TEST(ExpandHostlistTest, LargeRangesExpand) {
  std::vector<std::string> hosts = Expand("n[0-99999]");
  ASSERT_EQ(hosts.size(), 100000u);
  EXPECT_EQ(hosts[0], "n0");
  EXPECT_EQ(hosts[99999], "n99999");
}

TEST(ExpandHostlistTest, LargestNumbersDoNotOverflow) {
  EXPECT_THAT(Expand("n[18446744073709551614-18446744073709551615]"),
              ElementsAre("n18446744073709551614", "n18446744073709551615"));
}

TEST(CountHostlistTest, CountsWithoutExpanding) {
  EXPECT_EQ(CountHostlist("gpu[01-16],cpu[1-3,7]").value_or(0), 20u);
  EXPECT_EQ(CountHostlist("rack[1-2]-n[01-03] login").value_or(0), 7u);
  EXPECT_EQ(CountHostlist("n[0-999999]", 1000000).value_or(0), 1000000u);
  EXPECT_EQ(CountHostlist("n[0-999999]", 999999).status().code(), StatusCode::kOutOfRange);
}

// --- Compression -----------------------------------------------------------

std::string Compress(const std::vector<std::string>& hosts,
                     HostlistOrder order = HostlistOrder::kSortedUnique) {
  std::string expr = CompressHostlist(hosts, order);
  // Whatever the order, the result must be an expression that expands.
  if (!expr.empty()) {
    EXPECT_TRUE(ExpandHostlist(expr).ok()) << expr;
  }
  return expr;
}

TEST(CompressHostlistTest, RangesShareOneBracketPerPrefix) {
  EXPECT_EQ(Compress({"gpu01", "gpu02", "gpu03", "gpu04", "gpu07"}), "gpu[01-04,07]");
  EXPECT_EQ(Compress({"gpu01"}), "gpu01");
  EXPECT_EQ(Compress({"gpu01", "gpu03"}), "gpu[01,03]");
  EXPECT_EQ(Compress({}), "");
}

TEST(CompressHostlistTest, ZeroPaddingDecidesWhichNumbersFold) {
  EXPECT_EQ(Compress({"n8", "n9", "n10"}), "n[8-10]");
  EXPECT_EQ(Compress({"n08", "n09", "n10"}), "n[08-10]");
  EXPECT_EQ(Compress({"n98", "n99", "n100"}), "n[98-100]");
  EXPECT_EQ(Compress({"n098", "n099", "n100"}), "n[098-100]");
  // Same prefix, so one bracket, but padding differs: separate ranges.
  EXPECT_EQ(Compress({"n08", "n9"}), "n[08,9]");
  EXPECT_EQ(Compress({"n9", "n010"}), "n[9,010]");
  // "8" and "08" are different hosts; the shorter spelling sorts first.
  EXPECT_EQ(Compress({"n08", "n8"}), "n[8,08]");
  // Sorted order is n0, n00, n1: n1 cannot extend the "00" range.
  EXPECT_EQ(Compress({"n0", "n00", "n1"}), "n[0,00,1]");
}

TEST(CompressHostlistTest, OrderModes) {
  const std::vector<std::string> tux = {"tux2", "tux1", "tux2"};
  EXPECT_EQ(Compress(tux, HostlistOrder::kAsGiven), "tux[2,1-2]");
  EXPECT_EQ(Compress(tux, HostlistOrder::kSorted), "tux[1-2,2]");
  EXPECT_EQ(Compress(tux, HostlistOrder::kSortedUnique), "tux[1-2]");

  const std::vector<std::string> mixed = {"a1", "b1", "a2"};
  EXPECT_EQ(Compress(mixed, HostlistOrder::kSortedUnique), "a[1-2],b1");
  EXPECT_EQ(Compress(mixed, HostlistOrder::kSorted), "a[1-2],b1");
  EXPECT_EQ(Compress(mixed, HostlistOrder::kAsGiven), "a1,b1,a2");
}

TEST(CompressHostlistTest, PrefixesSortNaturally) {
  EXPECT_EQ(Compress({"b1", "a10", "a9"}), "a[9-10],b1");
  EXPECT_EQ(Compress({"rack10-n01", "rack2-n01", "rack2-n02"}), "rack2-n[01-02],rack10-n01");
}

TEST(CompressHostlistTest, OnlyTheTrailingNumberFolds) {
  EXPECT_EQ(
      Compress({"rack2-n03", "rack1-n01", "rack2-n01", "rack1-n03", "rack1-n02", "rack2-n02"}),
      "rack1-n[01-03],rack2-n[01-03]");
  EXPECT_EQ(Compress({"rack1-n01", "rack1-n02", "rack2-n01"}, HostlistOrder::kAsGiven),
            "rack1-n[01-02],rack2-n01");
}

TEST(CompressHostlistTest, NamesWithoutNumbersStandAlone) {
  EXPECT_EQ(Compress({"login", "gpu2", "admin", "gpu1"}), "admin,gpu[1-2],login");
  EXPECT_EQ(Compress({"n1", "n", "n2"}), "n,n[1-2]");
  EXPECT_EQ(Compress({"a1b", "a2b"}), "a1b,a2b");
  EXPECT_EQ(Compress({"x", "x"}, HostlistOrder::kAsGiven), "x,x");
  EXPECT_EQ(Compress({"x", "x"}, HostlistOrder::kSortedUnique), "x");
  EXPECT_EQ(Compress({"", "a1", ""}), "a1");
}

TEST(CompressHostlistTest, DigitOnlyAndExtremeNumbers) {
  EXPECT_EQ(Compress({"2", "1", "3"}), "[1-3]");
  EXPECT_THAT(Expand("[1-3]"), ElementsAre("1", "2", "3"));
  EXPECT_EQ(Compress({"n18446744073709551615", "n18446744073709551614"}),
            "n[18446744073709551614-18446744073709551615]");
  // Past 64 bits the number cannot fold; the name is printed as it is.
  EXPECT_EQ(Compress({"n99999999999999999999999", "n1"}), "n1,n99999999999999999999999");
}

// --- Round trips -----------------------------------------------------------

// The sort order CompressHostlist promises, written independently: prefix in
// natural order, names without a trailing number first, then number, then
// the digit count (so "8" precedes "08").
struct SortKey {
  std::string prefix;
  bool has_number;
  uint64_t number;
  size_t width;
};

SortKey KeyOf(const std::string& name) {
  size_t start = name.find_last_not_of("0123456789") + 1;  // npos + 1 == 0
  if (start == name.size()) return {name, false, 0, 0};
  return {name.substr(0, start), true, std::stoull(name.substr(start)), name.size() - start};
}

bool SortedBefore(const std::string& a, const std::string& b) {
  SortKey ka = KeyOf(a);
  SortKey kb = KeyOf(b);
  if (int c = NaturalCompare(ka.prefix, kb.prefix); c != 0) return c < 0;
  return std::tie(ka.has_number, ka.number, ka.width) <
         std::tie(kb.has_number, kb.number, kb.width);
}

std::vector<std::string> RandomHosts(std::mt19937* rng) {
  static const std::vector<std::string> kPrefixes = {"n", "gpu", "rack1-n", "rack10-n", "x-"};
  std::uniform_int_distribution<int> size_dist(1, 60);
  std::uniform_int_distribution<size_t> prefix_dist(0, kPrefixes.size() - 1);
  std::uniform_int_distribution<int> number_dist(0, 120);
  std::uniform_int_distribution<int> width_dist(0, 3);
  std::uniform_int_distribution<int> kind_dist(0, 19);
  std::vector<std::string> hosts;
  int size = size_dist(*rng);
  for (int i = 0; i < size; ++i) {
    if (kind_dist(*rng) == 0) {
      hosts.push_back("login");  // Now and then, a name without a number.
      continue;
    }
    std::string number = std::to_string(number_dist(*rng));
    size_t width = static_cast<size_t>(width_dist(*rng));
    if (number.size() < width) number.insert(0, width - number.size(), '0');
    hosts.push_back(kPrefixes[prefix_dist(*rng)] + number);
  }
  return hosts;
}

TEST(HostlistPropertyTest, CompressThenExpandRoundTrips) {
  std::mt19937 rng(20240601);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<std::string> hosts = RandomHosts(&rng);

    std::vector<std::string> sorted = hosts;
    std::stable_sort(sorted.begin(), sorted.end(), SortedBefore);
    std::vector<std::string> unique = sorted;
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());

    std::string as_given = CompressHostlist(hosts, HostlistOrder::kAsGiven);
    std::string sorted_expr = CompressHostlist(hosts, HostlistOrder::kSorted);
    std::string unique_expr = CompressHostlist(hosts, HostlistOrder::kSortedUnique);

    Result<std::vector<std::string>> back = ExpandHostlist(as_given);
    ASSERT_TRUE(back.ok()) << as_given << ": " << back.status().ToString();
    EXPECT_THAT(*back, ElementsAreArray(hosts)) << as_given;

    back = ExpandHostlist(sorted_expr);
    ASSERT_TRUE(back.ok()) << sorted_expr << ": " << back.status().ToString();
    EXPECT_THAT(*back, ElementsAreArray(sorted)) << sorted_expr;

    back = ExpandHostlist(unique_expr);
    ASSERT_TRUE(back.ok()) << unique_expr << ": " << back.status().ToString();
    EXPECT_THAT(*back, ElementsAreArray(unique)) << unique_expr;

    // Compression really compresses: one bracket per prefix at most when
    // sorted and unique, so no prefix is printed twice.
    for (std::string_view prefix : {"n[", "gpu[", "rack1-n[", "rack10-n["}) {
      size_t first = unique_expr.find(prefix);
      if (first != std::string::npos) {
        EXPECT_EQ(unique_expr.find("," + std::string(prefix), first + 1), std::string::npos)
            << unique_expr;
      }
    }
  }
}

TEST(HostlistPropertyTest, ExpandThenCompressIsCanonical) {
  // A sorted, unique, consistently padded expression survives a round trip
  // character for character.
  for (std::string_view expr : {"gpu[01-16]", "cpu[1-3,7]", "n[8-10]", "n[08-10]", "a[1-2],b1",
                                "rack1-n[01-03],rack2-n[01-03]", "n[1-5,7,9-12]"}) {
    EXPECT_EQ(Compress(Expand(expr)), expr);
  }
}

}  // namespace
}  // namespace rota
