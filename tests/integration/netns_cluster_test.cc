// A cluster of separate hosts on this machine (netns_hosts.h): rotactld and
// rotadbd on host "ctl", one rotad on each of node1..node4, the commands on
// host "login". Every host has its own network, address, hostname and
// /etc/hosts; nothing may assume 127.0.0.1 or a shared host name. Jobs, steps
// across hosts, PMI-2 fences, a node's network cut, accounting.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "tests/integration/netns_cluster_fixture.h"

namespace rota::testing {
namespace {

TEST_F(NetnsClusterTest, BatchJobRunsOnAHostOfItsOwn) {
  // The login host is not a node and has a name of its own.
  EXPECT_EQ(Trim(hosts_->Run("login", "hostname").out), "login");
  const std::string id = Submit("-w node3", "echo \"host=$(hostname) node=$SLURMD_NODENAME\"\n");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  EXPECT_EQ(Output(id), "host=node3 node=node3\n");
  EXPECT_EQ(Trim(Login("squeue -h -t all -j " + id + " -o %N").out), "node3");
}

TEST_F(NetnsClusterTest, StepsSpanHostsAndStreamBackToTheLoginHost) {
  // srun from the login host: an allocation on two hosts, each task's output
  // back over the network.
  CommandResult direct = Login("srun -N2 -n2 -l hostname 2>/dev/null | sort");
  EXPECT_EQ(direct.exit_code, 0) << direct.out;
  std::vector<std::string_view> lines = Split(Trim(direct.out), '\n');
  ASSERT_EQ(lines.size(), 2u) << direct.out;
  std::set<std::string> hosts;
  for (std::string_view l : lines) hosts.insert(std::string(Trim(l.substr(l.find(':') + 1))));
  EXPECT_EQ(hosts.size(), 2u) << direct.out;
  for (const std::string& h : hosts) EXPECT_EQ(h.rfind("node", 0), 0u) << h;

  // Inside a batch job: a step over four hosts, and PMI-2 fences across them.
  const std::string id = Submit("-N4 --ntasks-per-node=1",
                                "srun -l hostname | sort\n"
                                "srun --mpi=pmi2 -l " +
                                    BinDir() +
                                    "/pmi2_test_client | sort\n"
                                    // -w and -x pick the step's hosts among the job's.
                                    "srun -n1 -w node3 hostname\n"
                                    "srun -N3 -n3 -x node1 -l hostname | sort\n");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_NE(out.find(std::to_string(rank) + ": node" + std::to_string(rank + 1) + "\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find(std::to_string(rank) + ": rank=" + std::to_string(rank) + " size=4"),
              std::string::npos)
        << out;
  }
  EXPECT_NE(out.find("\nnode3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("0: node2\n1: node3\n2: node4\n"), std::string::npos) << out;
  size_t fences = 0;
  for (size_t at = out.find("saw=3/3 ok\n"); at != std::string::npos;
       at = out.find("saw=3/3 ok\n", at + 1)) {
    ++fences;
  }
  EXPECT_EQ(fences, 4u) << out;
}

// Debian's Open MPI over PMIx on two hosts, with none of the one-host
// settings pmix_test needs (loopback TCP, no shared memory): each rank's host
// has its own name and address, as on a real cluster.
TEST_F(NetnsClusterTest, ArbitraryDistributionRunsEachTaskWhereTheHostfileSays) {
  // srun -m arbitrary in a job: task i on the host of line i.
  const std::string id = Submit("-N2 -n4 -w node[1-2]",
                                "printf 'node2\\nnode1\\nnode2\\n' > hosts.$SLURM_JOB_ID\n"
                                "SLURM_HOSTFILE=hosts.$SLURM_JOB_ID srun -n3 -m arbitrary "
                                "sh -c 'echo \"$SLURM_PROCID $(hostname)\"' | sort\n");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id) << Logs();
  EXPECT_EQ(Output(id), "0 node2\n1 node1\n2 node2\n");

  // sbatch -m arbitrary: the job takes the hostfile's nodes and its task
  // count; its steps deal their tasks by the file as well.
  std::ofstream(Dir() + "/work/batch_hosts") << "node3\nnode4\nnode3\n";
  const std::string path = Dir() + "/work/arbitrary.sh";
  std::ofstream(path) << "#!/bin/sh\nsrun sh -c 'echo \"$SLURM_PROCID $(hostname)\"' | sort\n";
  CommandResult r =
      Login("SLURM_HOSTFILE=" + Dir() + "/work/batch_hosts sbatch --parsable -m arbitrary " + path);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string batch(Trim(r.out));
  ASSERT_TRUE(WaitForState(batch, "COMPLETED")) << Output(batch) << Logs();
  EXPECT_EQ(Trim(Login("squeue -h -t all -j " + batch + " -o '%N %D'").out), "node[3-4] 2");
  EXPECT_EQ(Output(batch), "0 node3\n1 node4\n2 node3\n");
}

TEST_F(NetnsClusterTest, OpenMpiAllreducesAcrossHostsUnderSrunAndMpirun) {
  const std::string program = BinDir() + "/mpi_allreduce_test_program";
  ASSERT_TRUE(std::filesystem::exists(program))
      << program << " was not built: Open MPI (libopenmpi-dev) was missing when CMake ran";
  const std::string id =
      Submit("-N2 -n4 -w node[1-2]",
             "srun --mpi=pmix " + program +
                 "\necho srun_rc=$?\n"
                 "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 mpirun " +
                 program + "\necho mpirun_rc=$?\n");
  ASSERT_TRUE(WaitForState(id, "COMPLETED", std::chrono::seconds(90))) << Output(id);
  const std::string out = Output(id);
  const std::string want = "allreduce size=4 sum=10 ok nodes=node1,node1,node2,node2\n";
  EXPECT_NE(out.find(want), std::string::npos) << out;
  EXPECT_NE(out.find(want, out.find(want) + 1), std::string::npos) << "mpirun's run:\n" << out;
  EXPECT_NE(out.find("srun_rc=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mpirun_rc=0\n"), std::string::npos) << out;
}

TEST_F(NetnsClusterTest, ANodeCutOffTheNetworkIsDownItsJobRequeuedAndItReturns) {
  const std::string id = Submit("-w node4 --requeue", "sleep 300\n");
  ASSERT_TRUE(WaitForState(id, "RUNNING"));
  // Cut node4's link: its rotad and job live on, unheard.
  const std::string cut = "ip link set eth0 down";
  ASSERT_EQ(hosts_->Run("node4", cut).exit_code, 0);
  EXPECT_TRUE(WaitUntil(
      [&] { return Trim(Login("sinfo -h -n node4 -o %t").out).find("down") != std::string::npos; },
      std::chrono::seconds(30)))
      << Login("sinfo -N").out;
  // The job is requeued (it asked for it) and waits, node4 being the only one it takes.
  EXPECT_TRUE(WaitUntil([&] { return State(id) == "PENDING"; }, std::chrono::seconds(30)))
      << State(id);
  // The link back: the node registers again (ReturnToService=2) and the job runs again.
  ASSERT_EQ(hosts_->Run("node4", "ip link set eth0 up").exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return State(id) == "RUNNING"; }, std::chrono::seconds(40)))
      << Login("sinfo -N").out << Login("squeue -j " + id).out;
  EXPECT_EQ(Trim(Login("squeue -h -j " + id + " -o %N").out), "node4");
  if (getenv("ROTA_NETNS_LOGS")) std::cerr << Logs();
  Login("scancel " + id);
}

TEST_F(NetnsClusterTest, AHigherTierJobPreemptsOneOnAnotherHost) {
  const std::string low = Submit("-p batch -w node2 -n2 --requeue", "sleep 300\n");
  ASSERT_TRUE(WaitForState(low, "RUNNING"));
  const std::string high = Submit("-p high -w node2 -n2", "echo \"high on $(hostname)\"\n");
  ASSERT_TRUE(WaitForState(high, "COMPLETED")) << Login("squeue -t all").out;
  EXPECT_EQ(Output(high), "high on node2\n");
  // The preempted job was requeued, and runs again once node2 is free.
  EXPECT_TRUE(WaitForState(low, "RUNNING", std::chrono::seconds(40))) << State(low);
  EXPECT_EQ(Trim(Login("squeue -h -j " + low + " -o %N").out), "node2");
  EXPECT_TRUE(WaitUntil([&] {
    return Trim(Login("sacct -n -X -P -j " + low + " -o State -D").out).find("PREEMPTED") !=
           std::string::npos;
  })) << Login("sacct -j " + low + " -D").out;
  Login("scancel " + low);
}

TEST_F(NetnsClusterTest, AccountingRecordsWhereJobsRan) {
  const std::string a = Submit("-w node1", "true\n");
  const std::string b = Submit("-N2 -w node[2-3]", "srun true\n");
  ASSERT_TRUE(WaitForState(a, "COMPLETED"));
  ASSERT_TRUE(WaitForState(b, "COMPLETED")) << Output(b);
  EXPECT_TRUE(WaitUntil([&] {
    return Trim(Login("sacct -n -X -P -j " + a + "," + b + " -o JobID,NodeList,State").out) ==
           a + "|node1|COMPLETED\n" + b + "|node[2-3]|COMPLETED";
  })) << Login("sacct -j " + a + "," + b + " -o JobID,NodeList,State").out;
}

}  // namespace
}  // namespace rota::testing
