#include "model/record_projection.h"

#include <gtest/gtest.h>

namespace rota::model {
namespace {

using R = wire::JobRecord;
using S = wire::JobSpec;

R FullRecord() {
  R r;
  r.set_job_id(1234);
  r.set_array_job_id(1200);
  r.set_array_pending("8-1000");
  r.set_state(wire::JOB_STATE_RUNNING);
  r.set_reason("Resources");
  r.set_submit_time(1'700'000'000);
  r.set_time_limit_s(-1);  // Negative varints take ten bytes.
  r.set_priority(4'000'000'000u);
  r.add_nodes("n1");
  r.add_nodes("n2");
  r.add_mem_by_node_mb(1024);
  r.add_mem_by_node_mb(2048);
  r.set_alloc_tres("cpu=2,mem=2G");
  S& s = *r.mutable_spec();
  s.set_name("train");
  s.set_partition("gpu");
  s.set_cpus_per_task(4);
  s.set_time_limit_s(-1);
  s.set_work_dir("/home/alice");
  s.add_environment("A=1");
  s.set_script("#!/bin/sh\n");
  s.set_uid(1000);
  s.set_user("alice");
  return r;
}

R Project(const R& record, const JobFieldSet& fields) {
  std::string out;
  EXPECT_TRUE(AppendProjectedRecord(record.SerializeAsString(), fields, out));
  R back;
  EXPECT_TRUE(back.ParseFromString(out));
  return back;
}

TEST(RecordProjectionTest, KeepsOnlyTheFieldsAskedFor) {
  JobFieldSet fields;
  fields.AddRecord({R::kJobIdFieldNumber, R::kNodesFieldNumber, R::kTimeLimitSFieldNumber});
  fields.AddSpec({S::kPartitionFieldNumber, S::kUidFieldNumber});
  R want;
  want.set_job_id(1234);
  want.add_nodes("n1");
  want.add_nodes("n2");
  want.set_time_limit_s(-1);
  want.mutable_spec()->set_partition("gpu");
  want.mutable_spec()->set_uid(1000);
  // The lite runtime has no DebugString: equal encodings mean equal messages here (no maps).
  EXPECT_EQ(Project(FullRecord(), fields).SerializeAsString(), want.SerializeAsString());
}

TEST(RecordProjectionTest, NoSpecFieldsDropsTheSpec) {
  JobFieldSet fields;
  fields.AddRecord({R::kStateFieldNumber, R::kSpecFieldNumber});
  R got = Project(FullRecord(), fields);
  EXPECT_FALSE(got.has_spec());
  EXPECT_EQ(got.state(), wire::JOB_STATE_RUNNING);
  EXPECT_EQ(got.job_id(), 0u);
}

TEST(RecordProjectionTest, EveryFieldIsTheWholeRecord) {
  JobFieldSet fields;
  for (int f = 1; f < static_cast<int>(JobFieldSet::kMaxField); ++f) {
    fields.AddRecord({f});
    fields.AddSpec({f});
  }
  const R full = FullRecord();
  EXPECT_EQ(Project(full, fields).SerializeAsString(), full.SerializeAsString());
}

TEST(RecordProjectionTest, RoundTripsThroughARequest) {
  JobFieldSet fields;
  fields.AddRecord({R::kJobIdFieldNumber}).AddSpec({S::kNameFieldNumber});
  wire::ListJobsRequest req;
  fields.ToRequest(req);
  ASSERT_EQ(req.record_fields_size(), 1);
  ASSERT_EQ(req.spec_fields_size(), 1);
  JobFieldSet back = JobFieldSet::FromRequest(req);
  EXPECT_TRUE(back.HasRecord(R::kJobIdFieldNumber));
  EXPECT_TRUE(back.HasSpec(S::kNameFieldNumber));
  EXPECT_FALSE(back.HasRecord(R::kStateFieldNumber));
  EXPECT_TRUE(JobFieldSet::FromRequest(wire::ListJobsRequest()).empty());
}

TEST(RecordProjectionTest, AFieldNumberItCannotHoldMeansWholeRecords) {
  wire::ListJobsRequest req;
  req.add_record_fields(1);
  req.add_spec_fields(JobFieldSet::kMaxField + 5);
  EXPECT_TRUE(JobFieldSet::FromRequest(req).empty());
}

TEST(RecordProjectionTest, MalformedBytesAreRefused) {
  JobFieldSet fields;
  fields.AddRecord({R::kJobIdFieldNumber});
  std::string out;
  EXPECT_FALSE(AppendProjectedRecord("\x0a\x05zz", fields, out));        // Length past the end.
  EXPECT_FALSE(AppendProjectedRecord("\x08\xff", fields, out));          // Unterminated varint.
  EXPECT_FALSE(AppendProjectedRecord("\x12\x02\x0b\x01", fields, out));  // A group in the spec.
}

}  // namespace
}  // namespace rota::model
