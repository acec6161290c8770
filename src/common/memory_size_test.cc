#include "common/memory_size.h"

#include <gtest/gtest.h>

namespace rota {
namespace {

MemoryMb Parse(std::string_view text) {
  Result<MemoryMb> mb = ParseMemoryMb(text);
  EXPECT_TRUE(mb.ok()) << mb.status().ToString();
  return mb.value_or(999999999);
}

TEST(ParseMemoryMbTest, BareNumberIsMegabytes) {
  EXPECT_EQ(Parse("100"), 100u);
  EXPECT_EQ(Parse("4096"), 4096u);
  EXPECT_EQ(Parse("0"), 0u);
}

TEST(ParseMemoryMbTest, Suffixes) {
  EXPECT_EQ(Parse("100M"), 100u);
  EXPECT_EQ(Parse("100m"), 100u);
  EXPECT_EQ(Parse("16G"), 16384u);
  EXPECT_EQ(Parse("16g"), 16384u);
  EXPECT_EQ(Parse("2T"), 2097152u);
  EXPECT_EQ(Parse("2t"), 2097152u);
  EXPECT_EQ(Parse("1P"), 1073741824u);
}

TEST(ParseMemoryMbTest, KilobytesRoundUp) {
  EXPECT_EQ(Parse("512K"), 1u);
  EXPECT_EQ(Parse("1536K"), 2u);
  EXPECT_EQ(Parse("1024K"), 1u);
  EXPECT_EQ(Parse("1025k"), 2u);
  EXPECT_EQ(Parse("1K"), 1u);
  EXPECT_EQ(Parse("0K"), 0u);
}

TEST(ParseMemoryMbTest, ErrorsQuoteTheInput) {
  for (const char* text :
       {"", "G", "1.5G", "12X", "-1", "16GB", "16 G", " 16", "0x10", "1e3", "K", "+5"}) {
    Result<MemoryMb> mb = ParseMemoryMb(text);
    ASSERT_FALSE(mb.ok()) << text;
    EXPECT_EQ(mb.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(mb.status().message().rfind("invalid memory size \"" + std::string(text) + "\"", 0),
              0u)
        << mb.status().message();
  }
}

TEST(ParseMemoryMbTest, OverflowIsAnError) {
  EXPECT_FALSE(ParseMemoryMb("18446744073709551616").ok());
  // UINT64_MAX / 2^20 == 17592186044415.
  EXPECT_EQ(ParseMemoryMb("17592186044416T").status().message(),
            "invalid memory size \"17592186044416T\": too large");
  EXPECT_EQ(Parse("17592186044415T"), 17592186044415ull * 1024 * 1024);
  EXPECT_FALSE(ParseMemoryMb("17179869184P").ok());
  EXPECT_EQ(Parse("18446744073709551615"), UINT64_MAX);
}

TEST(FormatMemoryMbTest, LargestExactUnit) {
  EXPECT_EQ(FormatMemoryMb(0), "0");
  EXPECT_EQ(FormatMemoryMb(1), "1M");
  EXPECT_EQ(FormatMemoryMb(1000), "1000M");
  EXPECT_EQ(FormatMemoryMb(1023), "1023M");
  EXPECT_EQ(FormatMemoryMb(1024), "1G");
  EXPECT_EQ(FormatMemoryMb(16384), "16G");
  EXPECT_EQ(FormatMemoryMb(245760), "240G");
  EXPECT_EQ(FormatMemoryMb(1536), "1536M");
  EXPECT_EQ(FormatMemoryMb(2097152), "2T");
  EXPECT_EQ(FormatMemoryMb(3 * 1024 * 1024 + 1024), "3073G");
  EXPECT_EQ(FormatMemoryMb(1073741824), "1P");
  EXPECT_EQ(FormatMemoryMb(5ull * 1073741824), "5P");
}

TEST(FormatMemoryMbTest, ParseReadsFormatBack) {
  for (MemoryMb mb : std::initializer_list<MemoryMb>{0, 1, 1000, 1024, 245760, 2097152, 1073741824,
                                                     123456789, UINT64_MAX}) {
    EXPECT_EQ(Parse(FormatMemoryMb(mb)), mb) << FormatMemoryMb(mb);
  }
}

TEST(ParseMemoryOptionTest, TakesAByteSuffixAfterTheUnit) {
  EXPECT_EQ(*ParseMemoryOption("16GB"), 16384u);
  EXPECT_EQ(*ParseMemoryOption("16gb"), 16384u);
  EXPECT_EQ(*ParseMemoryOption("500MB"), 500u);
  EXPECT_EQ(*ParseMemoryOption("2TB"), 2097152u);
  EXPECT_EQ(*ParseMemoryOption("1536KB"), 2u);
  EXPECT_EQ(*ParseMemoryOption("16G"), 16384u);
  EXPECT_EQ(*ParseMemoryOption("4096"), 4096u);
  // Configuration values keep ParseMemoryMb's forms.
  EXPECT_FALSE(ParseMemoryMb("16GB").ok());
}

TEST(ParseMemoryOptionTest, RefusesABareByteSuffixAndTooLargeSizes) {
  for (const char* text : {"16B", "B", "GB", "16GBB", "16XB", "1.5GB", "-1GB", "0B"}) {
    Result<MemoryMb> mb = ParseMemoryOption(text);
    ASSERT_FALSE(mb.ok()) << text;
    EXPECT_EQ(mb.status().message().rfind("invalid memory size \"" + std::string(text) + "\"", 0),
              0u)
        << mb.status().message();
  }
  // Slurm counts megabytes in a signed 64-bit number.
  EXPECT_TRUE(ParseMemoryOption("9223372036854775807").ok());
  Result<MemoryMb> big = ParseMemoryOption("9223372036854775808");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("too large"), std::string::npos);
  EXPECT_FALSE(ParseMemoryOption("99999999999999999999T").ok());
  EXPECT_FALSE(ParseMemoryOption("9007199254740992G").ok());
}

}  // namespace
}  // namespace rota
