#include "common/tres.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace rota {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::Pair;

TresCounts Parse(std::string_view text) {
  Result<TresCounts> tres = TresCounts::Parse(text);
  EXPECT_TRUE(tres.ok()) << tres.status().ToString();
  return tres.value_or(TresCounts());
}

TEST(TresKeyLessTest, FixedTresFirstInSlurmOrder) {
  std::vector<std::string> keys = {"license/x", "gres/gpu:a100", "pages",  "vmem", "fs/disk",
                                   "billing",   "node",          "energy", "mem",  "cpu",
                                   "gres/gpu",  "bb/datawarp",   "ic/ofed"};
  std::sort(keys.begin(), keys.end(), TresKeyLess);
  EXPECT_THAT(keys,
              ElementsAre("cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
                          "bb/datawarp", "gres/gpu", "gres/gpu:a100", "ic/ofed", "license/x"));
  EXPECT_FALSE(TresKeyLess("cpu", "cpu"));
  EXPECT_FALSE(TresKeyLess("gres/gpu", "gres/gpu"));
  // "fs/disk" is fixed; other file systems are ordered by name.
  EXPECT_TRUE(TresKeyLess("fs/disk", "fs/lustre"));
  EXPECT_TRUE(TresKeyLess("pages", "fs/lustre"));
}

TEST(CanonicalTresKeyTest, LowerCasesWhatSlurmMatchesWithoutCase) {
  EXPECT_EQ(CanonicalTresKey("CPU").value_or(""), "cpu");
  EXPECT_EQ(CanonicalTresKey("Mem").value_or(""), "mem");
  EXPECT_EQ(CanonicalTresKey("VMem").value_or(""), "vmem");
  EXPECT_EQ(CanonicalTresKey("billing").value_or(""), "billing");
  EXPECT_EQ(CanonicalTresKey("GRES/gpu").value_or(""), "gres/gpu");
  EXPECT_EQ(CanonicalTresKey("gres/GPU:A100").value_or(""), "gres/gpu:a100");
  EXPECT_EQ(CanonicalTresKey("FS/Disk").value_or(""), "fs/disk");
  EXPECT_EQ(CanonicalTresKey("IC/ofed").value_or(""), "ic/ofed");
  EXPECT_EQ(CanonicalTresKey("BB/datawarp").value_or(""), "bb/datawarp");
  // License names are the site's own and keep their case.
  EXPECT_EQ(CanonicalTresKey("License/MatLab").value_or(""), "license/MatLab");
}

TEST(CanonicalTresKeyTest, Errors) {
  for (const char* key : {"", "gpu", "cpux", "fs", "disk", "gres/", "foo/bar", "/gpu"}) {
    Result<std::string> canonical = CanonicalTresKey(key);
    ASSERT_FALSE(canonical.ok()) << key;
    EXPECT_EQ(canonical.status().code(), StatusCode::kInvalidArgument);
    if (*key != '\0') {
      EXPECT_THAT(canonical.status().message(),
                  ::testing::HasSubstr("\"" + std::string(key) + "\""));
    }
  }
}

TEST(TresCountsTest, ParsesAndPrintsCanonically) {
  const std::string text = "cpu=4,mem=16G,node=1,billing=40,gres/gpu=2,gres/gpu:a100=2";
  TresCounts tres = Parse(text);
  EXPECT_EQ(tres.Get("cpu"), 4u);
  EXPECT_EQ(tres.Get("mem"), 16384u);
  EXPECT_EQ(tres.Get("node"), 1u);
  EXPECT_EQ(tres.Get("billing"), 40u);
  EXPECT_EQ(tres.Get("gres/gpu"), 2u);
  EXPECT_EQ(tres.Get("gres/gpu:a100"), 2u);
  EXPECT_EQ(tres.ToString(), text);
  EXPECT_EQ(Parse(tres.ToString()), tres);
}

TEST(TresCountsTest, InputOrderAndCaseDoNotMatter) {
  TresCounts tres = Parse("GRES/GPU:A100=2,License/lic=3,Node=1,MEM=1024,CPU=8,vmem=512K,energy=7");
  EXPECT_EQ(tres.ToString(), "cpu=8,mem=1G,energy=7,node=1,vmem=1M,gres/gpu:a100=2,license/lic=3");
  EXPECT_EQ(tres.counts().begin()->first, "cpu");
}

TEST(TresCountsTest, MemoryValuesUseMemorySizes) {
  EXPECT_EQ(Parse("mem=1000").ToString(), "mem=1000M");
  EXPECT_EQ(Parse("mem=2T").Get("mem"), 2097152u);
  EXPECT_EQ(Parse("mem=0").ToString(), "mem=0");
  // Other TRES take plain integers: a suffix is an error there.
  EXPECT_FALSE(TresCounts::Parse("cpu=4G").ok());
}

TEST(TresCountsTest, EmptyString) {
  TresCounts tres = Parse("");
  EXPECT_TRUE(tres.empty());
  EXPECT_EQ(tres.ToString(), "");
}

TEST(TresCountsTest, SetGetHas) {
  TresCounts tres;
  EXPECT_FALSE(tres.Has("cpu"));
  EXPECT_EQ(tres.Get("cpu"), 0u);
  tres.Set("gres/gpu", 4);
  tres.Set("cpu", 0);
  tres.Set("mem", 2048);
  EXPECT_TRUE(tres.Has("cpu"));
  EXPECT_EQ(tres.Get("gres/gpu"), 4u);
  // Lookups canonicalise, so the spelling of a config file still finds it.
  EXPECT_EQ(tres.Get("GRES/GPU"), 4u);
  tres.Set("CPU", 16);
  EXPECT_EQ(tres.Get("cpu"), 16u);
  EXPECT_EQ(tres.ToString(), "cpu=16,mem=2G,gres/gpu=4");
  EXPECT_THAT(tres.counts(),
              ElementsAre(Pair("cpu", 16u), Pair("mem", 2048u), Pair("gres/gpu", 4u)));
}

void ExpectInvalid(std::string_view text, std::string_view message) {
  Result<TresCounts> tres = TresCounts::Parse(text);
  ASSERT_FALSE(tres.ok()) << text;
  EXPECT_EQ(tres.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(tres.status().message(), message);
}

TEST(TresCountsTest, ErrorsQuoteTheOffendingItem) {
  ExpectInvalid("cpu=4,gpu=2", "invalid TRES \"gpu=2\": unknown TRES \"gpu\"");
  ExpectInvalid("cpu=4,foo/x=2", "invalid TRES \"foo/x=2\": unknown TRES type in \"foo/x\"");
  ExpectInvalid("gres/=1", "invalid TRES \"gres/=1\": TRES \"gres/\" has no name");
  ExpectInvalid("=1", "invalid TRES \"=1\": empty TRES name");
  ExpectInvalid("cpu", "invalid TRES \"cpu\": expected key=value");
  ExpectInvalid("cpu=x", "invalid TRES \"cpu=x\": bad count \"x\"");
  ExpectInvalid("cpu=", "invalid TRES \"cpu=\": bad count \"\"");
  ExpectInvalid("cpu=-1", "invalid TRES \"cpu=-1\": bad count \"-1\"");
  ExpectInvalid("node=1=2", "invalid TRES \"node=1=2\": bad count \"1=2\"");
  ExpectInvalid("mem=1.5G",
                "invalid TRES \"mem=1.5G\": invalid memory size \"1.5G\": "
                "expected a whole number with an optional K/M/G/T suffix");
  ExpectInvalid("cpu=1,CPU=2", "invalid TRES \"CPU=2\": duplicate \"cpu\"");
  ExpectInvalid("cpu=1,,mem=2", "invalid TRES string \"cpu=1,,mem=2\": empty item");
  ExpectInvalid("cpu=1,", "invalid TRES string \"cpu=1,\": empty item");
}

TEST(ParseTresWeightsTest, PlainWeights) {
  Result<TresWeights> weights = ParseTresWeights("CPU=1000,Mem=2000,GRES/gpu=3000");
  ASSERT_TRUE(weights.ok()) << weights.status().ToString();
  EXPECT_THAT(*weights, ElementsAre(Pair("cpu", DoubleEq(1000)), Pair("mem", DoubleEq(2000)),
                                    Pair("gres/gpu", DoubleEq(3000))));
}

TEST(ParseTresWeightsTest, MemoryUnitsAreStoredPerMegabyte) {
  Result<TresWeights> weights = ParseTresWeights("CPU=1.0,Mem=0.1G,GRES/gpu=32.0");
  ASSERT_TRUE(weights.ok()) << weights.status().ToString();
  EXPECT_THAT(*weights, ElementsAre(Pair("cpu", DoubleEq(1.0)), Pair("mem", DoubleEq(0.1 / 1024)),
                                    Pair("gres/gpu", DoubleEq(32.0))));

  auto mem_weight = [](std::string_view text) {
    Result<TresWeights> w = ParseTresWeights(text);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? w->at("mem") : -1.0;
  };
  EXPECT_DOUBLE_EQ(mem_weight("mem=.25"), 0.25);
  EXPECT_DOUBLE_EQ(mem_weight("mem=0.25M"), 0.25);
  EXPECT_DOUBLE_EQ(mem_weight("mem=0.25K"), 0.25 * 1024);
  EXPECT_DOUBLE_EQ(mem_weight("mem=0.25g"), 0.25 / 1024);
  EXPECT_DOUBLE_EQ(mem_weight("mem=2T"), 2.0 / (1024 * 1024));
  EXPECT_DOUBLE_EQ(mem_weight("mem=1P"), 1.0 / (1024.0 * 1024 * 1024));
  Result<TresWeights> vmem = ParseTresWeights("VMem=4G");
  ASSERT_TRUE(vmem.ok());
  EXPECT_DOUBLE_EQ(vmem->at("vmem"), 4.0 / 1024);
}

TEST(ParseTresWeightsTest, EmptyGivesNoWeights) {
  Result<TresWeights> weights = ParseTresWeights("");
  ASSERT_TRUE(weights.ok());
  EXPECT_TRUE(weights->empty());
}

TEST(ParseTresWeightsTest, ErrorsQuoteTheOffendingItem) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{"CPU=x", "invalid TRES \"CPU=x\": bad weight \"x\""},
           Case{"CPU=1.0G", "invalid TRES \"CPU=1.0G\": bad weight \"1.0G\""},
           Case{"Mem=G", "invalid TRES \"Mem=G\": bad weight \"G\""},
           Case{"Mem=0.1X", "invalid TRES \"Mem=0.1X\": bad weight \"0.1X\""},
           Case{"CPU=-1", "invalid TRES \"CPU=-1\": bad weight \"-1\""},
           Case{"CPU=", "invalid TRES \"CPU=\": bad weight \"\""},
           Case{"CPU=\"1\"", "invalid TRES \"CPU=\"1\"\": bad weight \"\"1\"\""},
           Case{"Cores=1", "invalid TRES \"Cores=1\": unknown TRES \"Cores\""},
           Case{"CPU=1,cpu=2", "invalid TRES \"cpu=2\": duplicate \"cpu\""},
           Case{"CPU=1,,Mem=2", "invalid TRES string \"CPU=1,,Mem=2\": empty item"},
       }) {
    Result<TresWeights> weights = ParseTresWeights(c.text);
    ASSERT_FALSE(weights.ok()) << c.text;
    EXPECT_EQ(weights.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(weights.status().message(), c.message);
  }
}

}  // namespace
}  // namespace rota
