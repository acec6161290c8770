#include "cli/accounting/sacct_job_texts.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

TEST(SacctJobTextsTest, EachJobUnderItsHeadingAndNoneWhereNothingWasKept) {
  std::vector<wire::AccountingJob> jobs(2);
  jobs[0].set_job_id(28);
  jobs[0].set_script("#!/bin/sh\nhostname\n");
  jobs[0].set_environment("A=1\nB=2\n");
  jobs[1].set_job_id(31);
  jobs[1].set_array_job_id(30);
  jobs[1].set_array_task_id(2);
  const std::string rule(80, '-');
  EXPECT_EQ(RenderSacctJobTexts(jobs, SacctJobText::kScript),
            "Batch Script for 28\n" + rule + "\n#!/bin/sh\nhostname\n\n" +
                "Batch Script for 30_2\n" + rule + "\nNONE\n\n");
  EXPECT_EQ(RenderSacctJobTexts(jobs, SacctJobText::kEnvironment),
            "Environment used for 28 (must be batch to display)\n" + rule + "\nA=1\nB=2\n\n" +
                "Environment used for 30_2 (must be batch to display)\n" + rule + "\nNONE\n\n");
  EXPECT_EQ(RenderSacctJobTexts({}, SacctJobText::kScript), "");
}

}  // namespace
}  // namespace rota::cli
