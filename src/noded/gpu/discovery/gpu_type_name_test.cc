#include "noded/gpu/discovery/gpu_type_name.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

TEST(GpuTypeNameTest, LowerCaseWithoutVendorAndSpacesAsUnderscores) {
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA A100-SXM4-80GB"), "a100-sxm4-80gb");
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA H100 80GB HBM3"), "h100_80gb_hbm3");
  EXPECT_EQ(GpuTypeFromProductName("Tesla V100-SXM2-16GB"), "tesla_v100-sxm2-16gb");
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA GeForce RTX 4090"), "geforce_rtx_4090");
}

TEST(GpuTypeNameTest, OnlyCharactersAGresStringCanCarry) {
  EXPECT_EQ(GpuTypeFromProductName("  NVIDIA   L40S  "), "l40s");
  // ':' and ',' separate GRES fields; they must not end up in a type.
  EXPECT_EQ(GpuTypeFromProductName("Quadro RTX 8000: (rev,a)"), "quadro_rtx_8000_reva");
  // "nvidia" alone is not a vendor prefix followed by a product.
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA"), "nvidia");
  EXPECT_EQ(GpuTypeFromProductName(""), "");
}

TEST(GpuTypeNameTest, MigProfile) {
  EXPECT_EQ(MigProfileFromName("NVIDIA A100-SXM4-80GB MIG 1g.10gb"), "1g.10gb");
  EXPECT_EQ(MigProfileFromName("NVIDIA H100 80GB HBM3 MIG 3g.40gb"), "3g.40gb");
  EXPECT_EQ(MigProfileFromName("NVIDIA A100-SXM4-80GB"), "");
}

}  // namespace
}  // namespace rota::noded
