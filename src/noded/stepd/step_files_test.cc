#include "noded/stepd/step_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

wire::StepRecord Record(uint32_t job_id) {
  wire::StepRecord record;
  record.mutable_launch()->mutable_job()->set_job_id(job_id);
  record.mutable_launch()->mutable_payload()->set_script("#!/bin/sh\ntrue\n");
  record.add_gpu_indices(1);
  record.add_gpu_indices(3);
  return record;
}

TEST(StepFilesTest, RecordRoundTripsWithOwnerOnlyMode) {
  testing::TempDir dir;
  const std::string spool = dir.path().string();
  ASSERT_TRUE(WriteStepRecord(spool, Record(42)).ok());
  Result<wire::StepRecord> back = ReadStepRecord(spool, 42);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->launch().payload().script(), "#!/bin/sh\ntrue\n");
  ASSERT_EQ(back->gpu_indices_size(), 2);
  EXPECT_EQ(back->gpu_indices(1), 3u);
  struct stat st {};
  ASSERT_EQ(stat(StepRecordPath(spool, 42).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_FALSE(std::filesystem::exists(StepRecordPath(spool, 42) + ".tmp"));
}

TEST(StepFilesTest, MissingOrForeignFilesAreNotRecords) {
  testing::TempDir dir;
  const std::string spool = dir.path().string();
  EXPECT_FALSE(ReadStepRecord(spool, 7).ok());
  // A record whose content names another job is refused.
  ASSERT_TRUE(WriteFileAtomically(StepRecordPath(spool, 7), Record(8).SerializeAsString()).ok());
  EXPECT_FALSE(ReadStepRecord(spool, 7).ok());
  EXPECT_FALSE(ReadStepOutcome(spool, 7).has_value());
}

TEST(StepFilesTest, OutcomeRoundTrips) {
  testing::TempDir dir;
  const std::string spool = dir.path().string();
  wire::JobExitedRequest exit;
  exit.set_job_id(5);
  exit.set_wait_status(3u << 8);
  exit.set_out_of_memory(true);
  ASSERT_TRUE(WriteStepOutcome(spool, exit).ok());
  std::optional<wire::JobExitedRequest> back = ReadStepOutcome(spool, 5);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->wait_status(), 3u << 8);
  EXPECT_TRUE(back->out_of_memory());
}

TEST(StepFilesTest, ListsJobsWithRecordsOnlyAndRemovesTheirFiles) {
  testing::TempDir dir;
  const std::string spool = dir.path().string();
  ASSERT_TRUE(WriteStepRecord(spool, Record(12)).ok());
  ASSERT_TRUE(WriteStepRecord(spool, Record(3)).ok());
  std::ofstream(spool + "/job9.exit") << "x";
  std::ofstream(spool + "/jobX.step") << "x";
  std::filesystem::create_directory(spool + "/job4");
  EXPECT_EQ(ListStepJobs(spool), (std::vector<uint32_t>{3, 12}));
  wire::JobExitedRequest exit;
  exit.set_job_id(12);
  ASSERT_TRUE(WriteStepOutcome(spool, exit).ok());
  RemoveStepFiles(spool, 12);
  EXPECT_FALSE(std::filesystem::exists(StepRecordPath(spool, 12)));
  EXPECT_FALSE(std::filesystem::exists(StepOutcomePath(spool, 12)));
  EXPECT_EQ(ListStepJobs(spool), (std::vector<uint32_t>{3}));
}

}  // namespace
}  // namespace rota::noded
