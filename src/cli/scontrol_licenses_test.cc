#include "cli/scontrol_licenses.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

wire::ListJobsResponse Jobs() {
  wire::ListJobsResponse r;
  auto add = [&](wire::JobState state, const std::string& licenses) {
    wire::JobRecord* j = r.add_jobs();
    j->set_state(state);
    j->mutable_spec()->set_licenses(licenses);
  };
  add(wire::JOB_STATE_RUNNING, "fluent:2");
  add(wire::JOB_STATE_COMPLETING, "fluent:1,ansys:1");
  add(wire::JOB_STATE_PENDING, "fluent:1");  // Holds nothing yet
  add(wire::JOB_STATE_COMPLETED, "ansys:1");
  return r;
}

TEST(ScontrolLicensesTest, TotalsUsedAndFreeInSlurmsLayout) {
  conf::LicenseCounts cluster = {{"ansys", 1}, {"fluent", 4}};
  EXPECT_EQ(FormatLicenses(cluster, Jobs(), "", false),
            "LicenseName=ansys\n    Total=1 Used=1 Free=0 Reserved=0 Remote=no\n"
            "LicenseName=fluent\n    Total=4 Used=3 Free=1 Reserved=0 Remote=no\n");
  EXPECT_EQ(FormatLicenses(cluster, Jobs(), "fluent", true),
            "LicenseName=fluent Total=4 Used=3 Free=1 Reserved=0 Remote=no\n");
  EXPECT_EQ(FormatLicenses(cluster, Jobs(), "matlab", false), "");
}

}  // namespace
}  // namespace rota::cli
