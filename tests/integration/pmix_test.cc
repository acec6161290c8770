// srun --mpi=pmix end to end: a real rotactld and two rotad on one host, a
// rota-pmix per step and node. The tasks are first pmix_test_client (a PMIx
// client of the test's own: a fence that collects every rank's value across
// both nodes, an abort), then an MPI program built with Debian's Open MPI,
// launched by srun --mpi=pmix and by mpirun inside the batch job.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;

class PmixTest : public testing::TwoNodeClusterTest {
 protected:
  // rotad's TMPDIR, where rota-pmix makes each step's directory: the
  // cluster's own, so that a test sees only its steps' directories.
  std::vector<std::string> NodeEnvironment(int) const override { return {"TMPDIR=" + TmpDir()}; }
  std::string TmpDir() const { return (cluster_->dir().path() / "tmp").string(); }
  void SetUp() override {
    TwoNodeClusterTest::SetUp();
    std::filesystem::create_directories(TmpDir());
  }
  std::string Client() const { return testing::BinDir() + "/pmix_test_client"; }
  std::string Node(int n) const { return cluster_->Node(n); }
};

TEST_F(PmixTest, AFenceExchangesEveryRanksValueAcrossNodes) {
  std::string id = SubmitScript(
      "-N2 --ntasks-per-node=2",
      "srun -N2 -n4 --mpi=pmix -l " + Client() +
          "\necho rc=$?\n"
          // What a task finds, under the versioned name too.
          "srun -N2 -n2 --mpi=pmix_v4 -l sh -c 'echo PMIX $PMIX_RANK "
          "$PMIX_NAMESPACE $SLURM_MPI_TYPE ${PMIX_SERVER_URI41:+uri} $PMIX_SERVER_TMPDIR'\n"
          "srun -n1 sh -c 'echo NOPMIX=${PMIX_RANK:-none}'\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  for (int rank = 0; rank < 4; ++rank) {
    const std::string want = std::to_string(rank) + ": rank=" + std::to_string(rank) +
                             " size=4 ns=slurm.pmix." + id + ".0 host=" + Node(rank / 2 + 1) +
                             " peers=" + (rank < 2 ? "0,1" : "2,3") + " saw=3/3 ok\n";
    EXPECT_NE(out.find(want), std::string::npos) << "missing '" << want << "' in:\n" << out;
  }
  EXPECT_NE(out.find("rc=0\n"), std::string::npos) << out;
  for (int rank = 0; rank < 2; ++rank) {
    const std::string want = std::to_string(rank) + ": PMIX " + std::to_string(rank) +
                             " slurm.pmix." + id + ".1 pmix uri " + TmpDir() + "/rota-pmix.";
    EXPECT_NE(out.find(want), std::string::npos) << want << " in:\n" << out;
  }
  EXPECT_NE(out.find("NOPMIX=none\n"), std::string::npos) << out;
  // Each server made its step's directory under rotad's TMPDIR, and removed it.
  ASSERT_TRUE(std::filesystem::exists(TmpDir()));
  EXPECT_TRUE(std::filesystem::is_empty(TmpDir()));
}

// Ranks dealt cyclically: each server registers its node's ranks and the
// maps say where every rank is.
TEST_F(PmixTest, CyclicRanksKnowTheirPeersAndHosts) {
  std::string id = SubmitScript("-N2 --ntasks-per-node=2", "srun -N2 -n4 -m cyclic --mpi=pmix -l " +
                                                               Client() + "\necho rc=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  for (int rank = 0; rank < 4; ++rank) {
    const std::string want = std::to_string(rank) + ": rank=" + std::to_string(rank) +
                             " size=4 ns=slurm.pmix." + id + ".0 host=" + Node(rank % 2 + 1) +
                             " peers=" + (rank % 2 == 0 ? "0,2" : "1,3") + " saw=3/3 ok\n";
    EXPECT_NE(out.find(want), std::string::npos) << "missing '" << want << "' in:\n" << out;
  }
  EXPECT_NE(out.find("rc=0\n"), std::string::npos) << out;
}

TEST_F(PmixTest, AnAbortEndsTheStep) {
  std::string id = SubmitScript("-N2 --ntasks-per-node=2",
                                "srun -N2 -n4 --mpi=pmix " + Client() + " abort\necho rc=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  EXPECT_NE(out.find("srun: error: task 1: PMI abort: rank 1 gives up\n"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("rc=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rc="), std::string::npos) << out;
}

// Open MPI with both test nodes on one host: its TCP transport and runtime
// are told to use loopback (left out by default), and its shared-memory
// transport is left out, because it names its files by the host's name and
// a rank's local rank, which the ranks of the two nodes share here.
constexpr const char* kOpenMpiOnOneHost =
    "export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo "
    "OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_pml=ob1\n";

TEST_F(PmixTest, OpenMpiAllreducesAcrossNodesUnderSrunAndMpirun) {
  const std::string program = testing::BinDir() + "/mpi_allreduce_test_program";
  ASSERT_TRUE(std::filesystem::exists(program))
      << program << " was not built: Open MPI (libopenmpi-dev) was missing when CMake ran; "
      << "scripts/install-deps.sh --with-clients installs it";
  // -n4 rather than --ntasks-per-node=2, which srun would take from the
  // job's environment as a bound for its step of 8 tasks.
  std::string id = SubmitScript(
      "-N2 -n4",
      std::string(kOpenMpiOnOneHost) + "srun -N2 -n8 -O --mpi=pmix " + program +
          "\necho srun_rc=$?\n"
          "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 mpirun " +
          program + "\necho mpirun_rc=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  const std::string nodes = Node(1) + "," + Node(1) + "," + Node(2) + "," + Node(2);
  // 8 ranks under srun -O (4 on each node of 2 CPUs); 4 under mpirun, whose
  // daemons srun started on both nodes, spread as the allocation is.
  const std::string eight = Node(1) + "," + Node(1) + "," + Node(1) + "," + Node(1) + "," +
                            Node(2) + "," + Node(2) + "," + Node(2) + "," + Node(2);
  EXPECT_NE(out.find("allreduce size=8 sum=36 ok nodes=" + eight + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("allreduce size=4 sum=10 ok nodes=" + nodes + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("srun_rc=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mpirun_rc=0\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace rota
