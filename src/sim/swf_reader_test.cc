#include "sim/swf_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "testing/temp_dir.h"

namespace rota::sim {
namespace {

constexpr const char* kSample =
    "; Version: 2.2\n"
    "; MaxNodes: 64\n"
    "; MaxProcs: 128\n"
    "\n"
    "  1   0  5  100  4 -1 -1  4  200 -1 1 3 7 -1 2 -1 -1 -1\n"
    "  2  10 -1   -1  4 -1 -1  4  200 -1 0 3 7 -1 2 -1 -1 -1\n"  // runtime unknown
    "  3  20 -1   50  0 -1 -1 -1  200 -1 1 3 7 -1 2 -1 -1 -1\n"  // no processors
    "  4  30 -1   50 -1 -1 -1  8   -1 -1 1 5 1 -1 1 -1 -1 -1\n"  // requested processors only
    "  5  oops\n"
    "  6  40 -1   7.5 2 -1 -1  2   60\n";  // short line, fraction

TEST(SwfReaderTest, ReadsFieldsAndSkipsWhatNeverRan) {
  Trace t = ParseSwf(kSample);
  EXPECT_EQ(t.machine_processors, 128u);
  EXPECT_EQ(t.stats.lines, 6u);
  EXPECT_EQ(t.stats.skipped_runtime, 1u);
  EXPECT_EQ(t.stats.skipped_processors, 1u);
  EXPECT_EQ(t.stats.skipped_malformed, 1u);
  ASSERT_EQ(t.jobs.size(), 3u);
  EXPECT_EQ(t.stats.read, 3u);

  const TraceJob& a = t.jobs[0];
  EXPECT_EQ(a.id, 1u);
  EXPECT_EQ(a.submit_s, 0);
  EXPECT_EQ(a.runtime_s, 100);
  EXPECT_EQ(a.processors, 4u);
  EXPECT_EQ(a.requested_s, 200);
  EXPECT_EQ(a.user, 3);
  EXPECT_EQ(a.group, 7);
  EXPECT_EQ(a.queue, 2);

  const TraceJob& b = t.jobs[1];
  EXPECT_EQ(b.id, 4u);
  EXPECT_EQ(b.processors, 8u);  // From the requested count
  EXPECT_EQ(b.requested_s, -1);

  const TraceJob& c = t.jobs[2];
  EXPECT_EQ(c.id, 6u);
  EXPECT_EQ(c.runtime_s, 7);  // Fraction dropped
  EXPECT_EQ(c.requested_s, 60);
  EXPECT_EQ(c.user, -1);  // Missing fields are unknown
}

TEST(SwfReaderTest, MaxJobsCutsTheTrace) {
  Trace t = ParseSwf(kSample, {2});
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[1].id, 4u);
}

TEST(SwfReaderTest, MachineSizeFromMaxNodesWhenNoMaxProcs) {
  Trace t = ParseSwf("; MaxNodes: 256\n1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n");
  EXPECT_EQ(t.machine_processors, 256u);
}

TEST(SwfReaderTest, ReadsPlainAndGzipFiles) {
  testing::TempDir dir;
  std::string plain = dir.Write("t.swf", kSample);
  std::string gz = (dir.path() / "t.swf.gz").string();
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::string text = kSample;
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  gzclose(f);

  Result<Trace> a = ReadSwfFile(plain);
  Result<Trace> b = ReadSwfFile(gz);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_EQ(b->jobs.size(), 3u);
  EXPECT_EQ(a->jobs.size(), b->jobs.size());
  EXPECT_EQ(b->jobs[0].runtime_s, 100);
  EXPECT_EQ(b->machine_processors, 128u);
  EXPECT_FALSE(ReadSwfFile((dir.path() / "missing.swf").string()).ok());
}

}  // namespace
}  // namespace rota::sim
