#include "cli/query/sprio_format.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

// Rows and weights as in the capture of Slurm 22.05 (slurm-observed/sprio.txt).
wire::PriorityResponse Captured() {
  wire::PriorityResponse r;
  r.set_priority_type("priority/multifactor");
  wire::PriorityWeightsInfo* w = r.mutable_weights();
  w->set_site(1);
  w->set_age(1000);
  w->set_fairshare(10000);
  w->set_job_size(1000);
  w->set_partition(1000);
  w->set_qos(2000);
  w->set_tres("gres/gpu=1000");
  auto add = [&](uint32_t id, uint32_t priority, double size, double qos, int64_t nice,
                 const char* tres) {
    wire::PriorityRow* row = r.add_rows();
    row->set_job_id(id);
    row->set_partition("batch");
    row->set_user("root");
    row->set_priority(priority);
    row->mutable_weighted()->set_job_size(size);
    row->mutable_weighted()->set_partition(10);
    row->mutable_weighted()->set_qos(qos);
    row->mutable_weighted()->set_nice(nice);
    row->mutable_weighted()->set_tres(tres);
    row->mutable_normalized()->set_job_size(size / 1000);
  };
  add(21, 1010, 1000, 0, 0, "");
  add(29, 2170, 128.90625, 2000, 0, "gres/gpu=31");
  add(36, 1, 128.90625, 0, 1000, "gres/gpu=31");
  return r;
}

std::string Format(const SprioOptions& options) {
  std::string error;
  std::string out = FormatSprio(Captured(), options, &error);
  EXPECT_EQ(error, "");
  return out;
}

TEST(SprioFormatTest, SortByLettersAscendingOrDescending) {
  SprioOptions o;
  o.format = "%i";
  o.no_header = true;
  EXPECT_EQ(Format(o), "21\n29\n36\n") << "by job id unless told";
  o.sort = "-Y";
  EXPECT_EQ(Format(o), "29\n21\n36\n");
  o.sort = "+J,-i";  // Ties of the first key by the second
  EXPECT_EQ(Format(o), "36\n29\n21\n");
  o.sort = "-t";  // TRES: the sum of its values
  EXPECT_EQ(Format(o), "29\n36\n21\n");
  EXPECT_TRUE(CheckSprioSort("-y,+u,r").ok());
  EXPECT_EQ(CheckSprioSort("+Y,x").message(), "Invalid sort specification: x");
}

TEST(SprioFormatTest, DefaultMatchesSlurm) {
  EXPECT_EQ(Format({}),
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  "
            "PARTITION        QOS                 TRES\n"
            "             21 batch           1010          0          0          0       1000      "
            "   10          0                     \n"
            "             29 batch           2170          0          0          0        129      "
            "   10       2000          gres/gpu=31\n"
            "             36 batch              1          0          0          0        129      "
            "   10          0          gres/gpu=31\n");
}

TEST(SprioFormatTest, LongMatchesSlurm) {
  SprioOptions o;
  o.format = kSprioLongFormat;
  std::string out = Format(o);
  EXPECT_EQ(out.substr(0, out.find('\n') + 1),
            "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  "
            "FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES\n");
  EXPECT_NE(
      out.find("             29 batch         root       2170          0          0          0     "
               "     0        129         10       2000           0          gres/gpu=31\n"),
      std::string::npos);
  EXPECT_NE(
      out.find("             36 batch         root          1          0          0          0     "
               "     0        129         10          0        1000          gres/gpu=31\n"),
      std::string::npos);
}

TEST(SprioFormatTest, WeightsMatchSlurm) {
  SprioOptions o;
  o.weights = true;
  EXPECT_EQ(Format(o),
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  "
            "PARTITION        QOS                 TRES\n"
            "        Weights                               1       1000      10000       1000      "
            " 1000       2000        gres/gpu=1000\n");
}

TEST(SprioFormatTest, CustomFormatNoHeaderAndNormalized) {
  SprioOptions o;
  o.format = "%i|%u|%Y|%J|%T";
  o.no_header = true;
  EXPECT_EQ(Format(o),
            "21|root|1010|1000|\n29|root|2170|129|gres/gpu=31\n36|root|1|129|gres/gpu=31\n");
  o.format = "%.4i %.10J";
  o.normalized = true;
  EXPECT_EQ(Format(o).substr(0, 16), "  21  1.0000000\n");
}

TEST(SprioFormatTest, UnknownFieldIsAnError) {
  SprioOptions o;
  o.format = "%i %Z";
  std::string error;
  EXPECT_EQ(FormatSprio(Captured(), o, &error), "");
  EXPECT_EQ(error, "Invalid job format specification: Z");
}

}  // namespace
}  // namespace rota::cli

namespace rota::cli {
namespace {

TEST(SprioFormatTest, DefaultShowsAssocOnlyWhenItsWeightIsSet) {
  wire::PriorityResponse r = Captured();
  r.mutable_weights()->set_assoc(500);
  r.mutable_rows(0)->mutable_weighted()->set_assoc(250);
  std::string error;
  std::string out = FormatSprio(r, {}, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "          JOBID PARTITION   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE    "
            "JOBSIZE  PARTITION        QOS                 TRES");
  EXPECT_EQ(out.substr(out.find('\n') + 1, 69),
            "             21 batch           1010          0          0        250");
  // -w: the weight in the same column.
  SprioOptions w;
  w.weights = true;
  out = FormatSprio(r, w, &error);
  EXPECT_NE(out.find("       500"), std::string::npos) << out;
  // A format of one's own is kept as written.
  SprioOptions own;
  own.format = "%.15i %.10Y";
  out = FormatSprio(r, own, &error);
  EXPECT_EQ(out.find("ASSOC"), std::string::npos) << out;
}

}  // namespace
}  // namespace rota::cli

namespace rota::cli {
namespace {

// What a format string of one's own may hold: text before, between and after
// the fields, widths that cut, either justification.
TEST(SprioFormatTest, LiteralTextAroundFields) {
  SprioOptions o;
  o.format = "JOBS: %i|%.6Y|%u end";
  EXPECT_EQ(Format(o),
            "JOBS: JOBID|PRIORI|USER end\n"
            "JOBS: 21|  1010|root end\n"
            "JOBS: 29|  2170|root end\n"
            "JOBS: 36|     1|root end\n");
  o.format = "%i=%T";
  o.no_header = true;
  EXPECT_EQ(Format(o), "21=\n29=gres/gpu=31\n36=gres/gpu=31\n");
}

TEST(SprioFormatTest, WidthsCutEitherWay) {
  SprioOptions o;
  o.format = "%3r|%.3T|%8u|%.4i|%2Y";
  EXPECT_EQ(Format(o),
            "PAR|TRE|USER    |JOBI|PR\n"
            "bat|   |root    |  21|10\n"
            "bat|gre|root    |  29|21\n"
            "bat|gre|root    |  36|1 \n");
}

TEST(SprioFormatTest, NormalizedTurnsWeightedLettersIntoFactors) {
  SprioOptions o;
  o.format = "%Y|%A|%B|%F|%J|%P|%Q|%T|%N|%S|%i|%r";
  o.normalized = true;
  o.no_header = true;
  std::string out = Format(o);
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "0.0000002|0.0000000|0.0000000|0.0000000|1.0000000|0.0000000|0.0000000||0|0|21|batch");
  // Small letters give the same without -n.
  SprioOptions small = o;
  small.normalized = false;
  small.format = "%y|%a|%b|%f|%j|%p|%q|%t|%n|%S|%i|%r";
  EXPECT_EQ(Format(small), out);
  // The header names the same columns either way.
  o.no_header = false;
  out = Format(o);
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "PRIORITY|AGE|ASSOC|FAIRSHARE|JOBSIZE|PARTITION|QOS|TRES|NICE|SITE|JOBID|PARTITION");
}

TEST(SprioFormatTest, WeightsWithAFormatOfOnesOwn) {
  SprioOptions o;
  o.weights = true;
  o.format = "%i|%r|%u|%Y|%S|%A|%B|%F|%J|%P|%Q|%N|%T|%c";
  EXPECT_EQ(
      Format(o),
      "JOBID|PARTITION|USER|PRIORITY|SITE|AGE|ASSOC|FAIRSHARE|JOBSIZE|PARTITION|QOS|NICE|TRES|"
      "CLUSTER\n"
      "Weights||||1|1000|0|10000|1000|1000|2000||gres/gpu=1000|\n");
  o.normalized = true;
  o.no_header = true;
  EXPECT_EQ(Format(o), "Weights||||1|1000|0|10000|1000|1000|2000||gres/gpu=1000|\n");
}

TEST(SprioFormatTest, UnknownLetterAnywhereIsAnError) {
  for (const char* format : {"%Z", "%.10X %i", "JOBS: %i %.5g", "%i|%k|%Y"}) {
    SprioOptions o;
    o.format = format;
    std::string error;
    EXPECT_EQ(FormatSprio(Captured(), o, &error), "") << format;
    EXPECT_EQ(error.substr(0, 34), "Invalid job format specification: ") << format;
    EXPECT_EQ(error.size(), 35u) << format;
  }
}

// What the shared engine reads as Slurm's parser does (strtok on '%').
TEST(SprioFormatTest, FormatQuirksAsSlurmReadsThem) {
  SprioOptions o;
  o.no_header = true;
  o.format = "%%i|%.5Y %";  // empty pieces are skipped
  EXPECT_EQ(Format(o), "21| 1010 \n29| 2170 \n36|    1 \n");
  std::string error;
  o.format = "%i %.5";  // a width without a letter
  EXPECT_EQ(FormatSprio(Captured(), o, &error), "");
  EXPECT_EQ(error, "Invalid job format specification: ");
  o.format = "";
  EXPECT_EQ(FormatSprio(Captured(), o, &error), "");
  EXPECT_EQ(error, "Format option lacks specification.");
}

}  // namespace
}  // namespace rota::cli
