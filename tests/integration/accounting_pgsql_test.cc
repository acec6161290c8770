// rotactld and rotadbd started for real, rotadbd storing in PostgreSQL
// (StorageType=accounting_storage/pgsql in slurmdbd.conf beside slurm.conf)
// on a throwaway server: jobs reach sacct, entities reach sacctmgr.
#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "common/strings.h"
#include "rota.pb.h"
#include "testing/pg_test_env.h"
#include "tests/integration/controller_calls.h"
#include "tests/integration/controller_process.h"
#include "tests/integration/dbd_process.h"

namespace rota {
namespace {

using testing::AccountingConf;
using testing::CommandResult;
using testing::ControllerProcess;
using testing::DbdProcess;
using testing::PostgresEnvironment;

class AccountingPgsqlTest : public ::testing::Test {
 protected:
  AccountingPgsqlTest()
      : dbd_port_(testing::FreeLoopbackPort()),
        ctld_(AccountingConf(dbd_port_)),
        dbd_(ctld_, dbd_port_) {}

  void SetUp() override {
    pg_ = PostgresEnvironment::Server();
    ASSERT_NE(pg_, nullptr) << PostgresEnvironment::StartError();
    database_ = pg_->CreateDatabase();
    ASSERT_FALSE(database_.empty()) << pg_->Log();
  }
  void WriteDbdConf(uint16_t port) {
    ctld_.dir().Write("slurmdbd.conf",
                      "StorageType=accounting_storage/pgsql\n"
                      "StorageHost=127.0.0.1\n"
                      "StoragePort=" +
                          std::to_string(port) +
                          "\n"
                          "StorageUser=" +
                          pg_->user() + "\nStoragePass=" + pg_->password() +
                          "\nStorageLoc=" + database_ + "\nSlurmUser=root\n");
  }
  void RegisterNode() { testing::RegisterFakeNodes(ctld_, {"n1"}); }
  void ReportExit(uint32_t job_id, uint32_t wait_status) {
    testing::ReportJobExit(ctld_, job_id, wait_status);
  }
  bool WaitForState(const std::string& job, const std::string& state) {
    return testing::WaitForJobState(ctld_, job, state);
  }
  std::string SacctUntil(const std::string& sacct_args, const std::string& expected) {
    return testing::SacctUntil(ctld_, sacct_args, expected);
  }

  uint16_t dbd_port_;
  ControllerProcess ctld_;
  DbdProcess dbd_;
  testing::PostgresServer* pg_ = nullptr;
  std::string database_;
};

TEST_F(AccountingPgsqlTest, AJobsRecordsReachSacctThroughPostgresql) {
  WriteDbdConf(pg_->port());
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  EXPECT_NE(dbd_.Log().find("on PostgreSQL at 127.0.0.1:" + std::to_string(pg_->port())),
            std::string::npos)
      << dbd_.Log();
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  RegisterNode();
  ASSERT_EQ(ctld_.Run("sbatch --parsable -J pgjob --gres=gpu:1 -t 10 --wrap=true").out, "1\n");
  ASSERT_TRUE(WaitForState("1", "RUNNING"));
  ReportExit(1, 3 << 8);
  const std::string expected =
      "1|pgjob|batch|FAILED|3:0|billing=1,cpu=1,gres/gpu=1,mem=1G,node=1\n";
  EXPECT_EQ(SacctUntil("-n -P -X -o JobID,JobName,Partition,State,ExitCode,AllocTRES", expected),
            expected)
      << ctld_.Log() << dbd_.Log();
  // The rows are PostgreSQL's: the running attempt's record was replaced by its end.
  EXPECT_EQ(pg_->Query(database_, "SELECT count(*) FROM job_attempts WHERE ended"), "1");

  // sacctmgr's entities go to the same database, and survive a rotadbd restart.
  CommandResult added = ctld_.Run("sacctmgr -i add account physics Description=Physics");
  ASSERT_EQ(added.exit_code, 0) << added.out << dbd_.Log();
  dbd_.Kill(SIGTERM);
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show account physics format=Account,Descr").out,
            "physics|Physics\n");
  // physics, and Slurm's QoS normal and root association (account, user, association).
  EXPECT_EQ(pg_->Query(database_, "SELECT count(*) FROM entities"), "5");
}

TEST_F(AccountingPgsqlTest, RecordsWaitWhilePostgresqlIsDownAndArriveWhenItIsBack) {
  WriteDbdConf(pg_->port());
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  RegisterNode();
  ASSERT_EQ(ctld_.Run("sbatch --parsable -J before -t 10 --wrap=true").out, "1\n");
  ASSERT_TRUE(WaitForState("1", "RUNNING"));
  ASSERT_EQ(SacctUntil("-X -n -P -o JobID,State", "1|RUNNING\n"), "1|RUNNING\n") << dbd_.Log();

  pg_->Halt();  // The database goes away under a running rotadbd.
  ReportExit(1, 0);
  ASSERT_EQ(ctld_.Run("sbatch --parsable -J during -t 10 --wrap=true").out, "2\n");
  ASSERT_TRUE(WaitForState("2", "RUNNING"));
  // rotadbd refuses the batches it cannot store; the outbox keeps them.
  for (int i = 0; i < 100 && dbd_.Log().find("job records failed") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(
      dbd_.Log().find("cannot connect to PostgreSQL at 127.0.0.1:" + std::to_string(pg_->port())),
      std::string::npos)
      << dbd_.Log();
  ASSERT_EQ(pg_->Restart(), "");
  const std::string expected = "1|before|COMPLETED\n2|during|RUNNING\n";
  EXPECT_EQ(SacctUntil("-X -n -P -o JobID,JobName,State", expected), expected)
      << ctld_.Log() << dbd_.Log();
  EXPECT_EQ(pg_->Query(database_, "SELECT count(*) FROM job_attempts"), "2");
}

TEST_F(AccountingPgsqlTest, AnUnreachableServerStopsRotadbdWithItsAddress) {
  const uint16_t closed = testing::FreeLoopbackPort();
  WriteDbdConf(closed);
  EXPECT_FALSE(dbd_.Start());
  EXPECT_NE(dbd_.Log().find("cannot connect to PostgreSQL at 127.0.0.1:" + std::to_string(closed)),
            std::string::npos)
      << dbd_.Log();
}

TEST_F(AccountingPgsqlTest, ABadSlurmdbdConfStopsRotadbdNamingTheLine) {
  ctld_.dir().Write("slurmdbd.conf",
                    "# storage\n"
                    "StorageType=accounting_storage/mysql\n");
  EXPECT_FALSE(dbd_.Start());
  EXPECT_NE(dbd_.Log().find("slurmdbd.conf line 2: StorageType=accounting_storage/mysql is not "
                            "supported"),
            std::string::npos)
      << dbd_.Log();
}

}  // namespace
}  // namespace rota
