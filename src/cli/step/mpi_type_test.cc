#include "cli/step/mpi_type.h"

#include <gtest/gtest.h>

#include "cli/step/srun_options.h"

namespace rota::cli {
namespace {

TEST(MpiTypeTest, KnownTypesAndPmixRefusal) {
  EXPECT_EQ(CheckMpiType("pmi2").value(), "pmi2");
  EXPECT_EQ(CheckMpiType("none").value(), "none");
  EXPECT_EQ(CheckMpiType("list").value(), "list");
  Result<std::string> pmix = CheckMpiType("pmix_v4");
  ASSERT_FALSE(pmix.ok());
  EXPECT_NE(pmix.status().message().find("pmix is not supported; use pmi2"), std::string::npos);
  EXPECT_FALSE(CheckMpiType("lam").ok());
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

  o = ParseSrunOptions({"--mpi=pmix", "a.out"}, {});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "srun: error: --mpi=pmix: pmix is not supported; use pmi2");
}

}  // namespace
}  // namespace rota::cli
