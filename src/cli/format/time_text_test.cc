#include "cli/format/time_text.h"

#include <gtest/gtest.h>

#include "cli/format/slurm_units.h"

namespace rota::cli::format {
namespace {

TEST(TimeTextTest, IsoAndCtimeFormsMatchSlurm) {
  // The moment of the observed listings (/work/shared/slurm-observed).
  EXPECT_EQ(FormatIsoTime(1795940041, 0), "2026-11-29T08:14:01");
  EXPECT_EQ(FormatCtime(1795936455, 0), "Sun Nov 29 07:14:15 2026");
  EXPECT_EQ(FormatCtime(0, 0), "Thu Jan  1 00:00:00 1970");
  EXPECT_EQ(FormatIsoTime(951782400, 0), "2000-02-29T00:00:00");
  // The offset is the caller's local zone; nothing reads TZ.
  EXPECT_EQ(FormatIsoTime(1795940041, 3600), "2026-11-29T09:14:01");
  EXPECT_EQ(FormatCtime(-1, 0), "Wed Dec 31 23:59:59 1969");
}

TEST(SlurmUnitsTest, ConvertsLikeConvertNumUnit) {
  EXPECT_EQ(ConvertNumUnit(1024, Unit::kMega), "1G");
  EXPECT_EQ(ConvertNumUnit(512000, Unit::kMega), "500G");
  EXPECT_EQ(ConvertNumUnit(2048, Unit::kMega, /*convert=*/false), "2048M");
  EXPECT_EQ(ConvertNumUnit(0, Unit::kMega, /*convert=*/false), "0");
  EXPECT_EQ(ConvertNumUnit(1500, Unit::kMega), "1.46G");
  EXPECT_EQ(ConvertNumUnit(1000, Unit::kMega), "1000M");
  EXPECT_EQ(ConvertNumUnit(0, Unit::kMega), "0");
  EXPECT_EQ(ConvertNumUnit(32, Unit::kNone), "32");
}

TEST(SlurmUnitsTest, ConvertsToTheUnitAskedWhateverTheSize) {
  EXPECT_EQ(ConvertNumUnitTo(1000, Unit::kMega, Unit::kGiga), "0.98G");
  EXPECT_EQ(ConvertNumUnitTo(51200, Unit::kKilo, Unit::kMega), "50M");
  EXPECT_EQ(ConvertNumUnitTo(2, Unit::kGiga, Unit::kKilo), "2097152K");
  EXPECT_EQ(ConvertNumUnitTo(3, Unit::kMega, Unit::kMega), "3M");
  EXPECT_EQ(ConvertNumUnitTo(0, Unit::kMega, Unit::kGiga), "0");
  EXPECT_EQ(UnitFromLetter("g"), Unit::kGiga);
  EXPECT_EQ(UnitFromLetter("Mb"), Unit::kMega);
  EXPECT_EQ(UnitFromLetter("x"), std::nullopt);
  EXPECT_EQ(UnitFromLetter(""), std::nullopt);
}

}  // namespace
}  // namespace rota::cli::format
