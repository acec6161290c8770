#include "cli/query/job_listing.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

TEST(JobListingTest, LoadsEachRecordAsTheParserWould) {
  wire::ListJobsResponse resp;
  for (uint32_t id : {7u, 8u, 9u}) {
    wire::JobRecord& j = *resp.add_jobs();
    j.set_job_id(id);
    j.mutable_spec()->set_name("job" + std::to_string(id));
    if (id == 8) j.add_nodes("n1");
  }
  resp.set_now(1'700'000'000);
  Result<JobListing> listing = JobListing::Parse(resp.SerializeAsString());
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->size(), 3u);
  EXPECT_EQ(listing->now(), 1'700'000'000);
  // Loaded out of order: nothing of one job may stay in the reused message.
  for (size_t i : {1u, 0u, 2u, 1u}) {
    const wire::JobRecord* j = listing->Load(i);
    ASSERT_NE(j, nullptr);
    EXPECT_EQ(j->SerializeAsString(), resp.jobs(static_cast<int>(i)).SerializeAsString());
  }
}

TEST(JobListingTest, AnEmptyAnswerHasNoJobs) {
  Result<JobListing> listing = JobListing::Parse("");
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->size(), 0u);
  EXPECT_EQ(listing->now(), 0);
}

TEST(JobListingTest, SkipsFieldsItDoesNotKnow) {
  wire::ListJobsResponse resp;
  resp.add_jobs()->set_job_id(3);
  std::string body = resp.SerializeAsString();
  body += std::string("\x98\x06\x01", 3);  // Field 99, varint 1: from a newer controller.
  Result<JobListing> listing = JobListing::Parse(body);
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->size(), 1u);
  EXPECT_EQ(listing->Load(0)->job_id(), 3u);
}

TEST(JobListingTest, MalformedAnswersAreRefused) {
  EXPECT_FALSE(JobListing::Parse(std::string("\x0a\x09zz", 4)).ok());  // Length past the end.
  // A record whose own bytes do not parse loads as nullptr.
  Result<JobListing> listing = JobListing::Parse(std::string("\x0a\x02\x08\xff", 4));
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->size(), 1u);
  EXPECT_EQ(listing->Load(0), nullptr);
}

TEST(JobListingTest, JobIdTextIsAJobIdWithAnOptionalTaskOrComponent) {
  for (const char* good : {"1", "123", "123_4", "123_[1-4]", "123_[1,3-5%2]", "123_*", "12+1"}) {
    EXPECT_TRUE(IsJobIdText(good)) << good;
  }
  for (const char* bad :
       {"", "abc", "0", "12abc", "12_", "12_x", "12_[1-2", "+1", "12+", "-1", "12.0", " 12"}) {
    EXPECT_FALSE(IsJobIdText(bad)) << bad;
  }
}

}  // namespace
}  // namespace rota::cli
