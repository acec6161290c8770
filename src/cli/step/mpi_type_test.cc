#include "cli/step/mpi_type.h"

#include <gtest/gtest.h>

#include "cli/step/srun_options.h"

namespace rota::cli {
namespace {

TEST(MpiTypeTest, KnownTypesAndPmixVersions) {
  EXPECT_EQ(CheckMpiType("pmi2").value(), "pmi2");
  EXPECT_EQ(CheckMpiType("none").value(), "none");
  EXPECT_EQ(CheckMpiType("list").value(), "list");
  for (const char* pmix : {"pmix", "pmix_v3", "pmix_v4"}) {
    EXPECT_EQ(CheckMpiType(pmix).value(), "pmix") << pmix;
  }
  Result<std::string> unknown = CheckMpiType("lam");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "srun: error: MPI type 'lam' is not known");
  EXPECT_FALSE(CheckMpiType("pmix_v9").ok());
}

TEST(MpiTypeTest, SrunOptionAndEnvironment) {
  Result<SrunOptions> o = ParseSrunOptions({"--mpi=pmi2", "a.out"}, {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mpi, "pmi2");
  EXPECT_TRUE(o->warnings.empty());

  o = ParseSrunOptions({"a.out"}, {{"SLURM_MPI_TYPE", "pmi2"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mpi, "pmi2");
  o = ParseSrunOptions({"--mpi=none", "a.out"}, {{"SLURM_MPI_TYPE", "pmi2"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mpi, "none");  // The command line wins
  o = ParseSrunOptions({"a.out"}, {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mpi, "");  // MpiDefault decides

  o = ParseSrunOptions({"--mpi=list"}, {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mpi, "list");
  EXPECT_NE(std::string(kMpiTypeList).find("pmi2"), std::string::npos);

  o = ParseSrunOptions({"--mpi=pmix_v4", "a.out"}, {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mpi, "pmix");
  EXPECT_NE(std::string(kMpiTypeList).find("pmix_v4"), std::string::npos);
}

}  // namespace
}  // namespace rota::cli
