#include "cli/query/why_format.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "cli/slurm_time.h"

namespace rota::cli {
namespace {

class WhyFormatTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("TZ", "UTC", 1); }

  static wire::WhyResponse Pending() {
    wire::WhyResponse why;
    why.set_job_id(12);
    why.set_state("PENDING");
    why.set_reason("Resources");
    why.set_partition("gpu");
    why.set_request("1 node, 1 task of 1 CPU, 4 GPUs of type a100 per node");
    why.set_priority(1000);
    why.set_factors("age=1000");
    why.set_rank(2);
    why.set_queued(3);
    wire::WhyCause* c = why.add_causes();
    c->set_code("Resources");
    c->set_text("it needs 4 GPUs");
    c->set_reported(true);
    wire::WhyJobAhead* a = why.add_ahead();
    a->set_job_id(11);
    a->set_user("bob");
    a->set_priority(2000);
    why.set_planned_start(1'800'000'000);
    why.set_planned_nodes("n1");
    wire::WhyRelease* r = why.add_releases();
    r->set_node("n1");
    r->set_job_id(8);
    r->set_time(1'800'000'000);
    r->set_user("carol");
    why.set_what_if_start(1'800'003'600);
    wire::WhyOption* o = why.add_options();
    o->set_change("--time=30");
    o->set_what("a time limit of 00:30:00");
    o->set_start(1'800'000'000);
    o->set_sooner_s(3600);
    wire::WhyNode* n = why.add_nodes();
    n->set_name("n1");
    n->set_state("ALLOCATED");
    n->set_usable(true);
    n->set_free_mem_mb(1024);
    n->set_fits_when_idle(true);
    return why;
  }
};

TEST_F(WhyFormatTest, TextNamesTheCausesThePlanAndTheNodes) {
  std::string text = FormatWhyText(Pending());
  EXPECT_NE(text.find("Job 12 is PENDING in partition gpu, reason Resources.\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Priority 1000 (age=1000); it is 2 of 3 in its partition's queue."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  * Resources (reported): it needs 4 GPUs\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Planned start: 2027-01-15T08:00:00 on n1 (last backfill pass)."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("n1 frees at 2027-01-15T08:00:00: job 8 (carol) reaches its time limit"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("What would start it sooner (the planner, asked now; as it is: "
                      "2027-01-15T09:00:00):\n"
                      "  --time=30                    2027-01-15T08:00:00  60 min sooner    a time "
                      "limit of 00:30:00\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("n1               ALLOCATED                0         0        1G       no "
                      "           yes"),
            std::string::npos)
      << text;
}

TEST_F(WhyFormatTest, ARequeuedJobSaysItRanBeforeAndWhenItWasPreempted) {
  wire::WhyResponse why = Pending();
  EXPECT_EQ(FormatWhyText(why).find("run before"), std::string::npos);
  why.set_restarts(1);
  EXPECT_NE(FormatWhyText(why).find("\nIt has run before: requeued 1 time.\n"), std::string::npos)
      << FormatWhyText(why);
  why.set_restarts(2);
  why.set_last_preempted(1'800'000'000);
  EXPECT_NE(FormatWhyText(why).find("\nIt has run before: requeued 2 times, last displaced by a "
                                    "preemptor at " +
                                    FormatSlurmTime(1'800'000'000) + ".\n"),
            std::string::npos)
      << FormatWhyText(why);
  nlohmann::json j = nlohmann::json::parse(FormatWhyJson(why));
  EXPECT_EQ(j["restarts"], 2);
  EXPECT_EQ(j["last_preempted"], 1'800'000'000);
}

TEST_F(WhyFormatTest, ARunningJobIsNotWaiting) {
  wire::WhyResponse why;
  why.set_job_id(3);
  why.set_state("RUNNING");
  EXPECT_EQ(FormatWhyText(why), "Job 3 is RUNNING: it is not waiting.\n");
}

TEST_F(WhyFormatTest, JsonCarriesEveryField) {
  nlohmann::json j = nlohmann::json::parse(FormatWhyJson(Pending()));
  EXPECT_EQ(j["job_id"], 12);
  EXPECT_EQ(j["reason"], "Resources");
  EXPECT_EQ(j["causes"][0]["code"], "Resources");
  EXPECT_EQ(j["causes"][0]["reported"], true);
  EXPECT_EQ(j["ahead"][0]["job_id"], 11);
  EXPECT_EQ(j["planned_start"], 1'800'000'000);
  EXPECT_EQ(j["releases"][0]["job_id"], 8);
  EXPECT_EQ(j["nodes"][0]["fits_when_idle"], true);
  EXPECT_EQ(j["nodes"][0]["free_mem_mb"], 1024);
  EXPECT_EQ(j["what_if_start"], 1'800'003'600);
  EXPECT_EQ(j["options"][0]["change"], "--time=30");
  EXPECT_EQ(j["options"][0]["sooner_s"], 3600);
}

}  // namespace
}  // namespace rota::cli
