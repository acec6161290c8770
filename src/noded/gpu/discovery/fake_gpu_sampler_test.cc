#include "noded/gpu/discovery/fake_gpu_sampler.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

using std::chrono::seconds;
using std::chrono::steady_clock;

TEST(FakeGpuSamplerTest, PlaysEachGpusScriptOverTimeAndReportsEventsOnce) {
  testing::TempDir dir;
  std::string busy = dir.Write("busy",
                               "# a job that idles, then peaks\n"
                               "0  Util=0 MemUsed=512M MemTotal=80G Power=60 Temp=35\n"
                               "5  Util=97 MemUsed=70G Power=390.5 Pids=4242,4243\n"
                               "20 Event=xid:79\n");
  std::string inventory = dir.Write("gpus", "Type=a100 File=/dev/nvidia0 Metrics=" + busy +
                                                "\n"
                                                "Type=a100 File=/dev/nvidia1\n");
  steady_clock::time_point now = steady_clock::now();
  FakeGpuSampler sampler(inventory, [&] { return now; });

  Result<std::vector<GpuReading>> r = sampler.Sample();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].device_file, "/dev/nvidia0");
  EXPECT_EQ((*r)[0].util_pct, 0u);
  EXPECT_EQ((*r)[0].mem_used_bytes, 512ULL << 20);
  EXPECT_EQ((*r)[0].mem_total_bytes, 80ULL << 30);
  EXPECT_EQ((*r)[0].power_mw, 60000u);
  EXPECT_EQ((*r)[0].temperature_c, 35u);
  // Without a script a GPU reads idle.
  GpuReading idle;
  idle.device_file = "/dev/nvidia1";
  EXPECT_EQ((*r)[1], idle);

  now += seconds(6);
  r = sampler.Sample();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].util_pct, 97u);
  EXPECT_EQ((*r)[0].mem_used_bytes, 70ULL << 30);
  EXPECT_EQ((*r)[0].mem_total_bytes, 80ULL << 30) << "figures a line leaves out keep their values";
  EXPECT_EQ((*r)[0].power_mw, 390500u);
  EXPECT_EQ((*r)[0].pids, (std::vector<pid_t>{4242, 4243}));
  EXPECT_TRUE((*r)[0].events.empty());

  now += seconds(20);
  r = sampler.Sample();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].events, (std::vector<GpuEvent>{{GpuEventKind::kXid, 79}}));
  now += seconds(1);
  r = sampler.Sample();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE((*r)[0].events.empty());

  // An event appended with a moment already past fires at the next sample.
  std::ofstream(busy, std::ios::app) << "0 Event=ecc\n";
  r = sampler.Sample();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].events, (std::vector<GpuEvent>{{GpuEventKind::kDoubleBitEcc, 0}}));
  EXPECT_EQ((*r)[0].util_pct, 97u) << "a line's figures apply in file order";
}

TEST(FakeGpuSamplerTest, AMigInstanceIsReadAsItsParentOnce) {
  testing::TempDir dir;
  std::string inventory = dir.Write("gpus",
                                    "Type=1g.10gb File=/dev/nvidia-caps/nvidia-cap21 "
                                    "ParentFile=/dev/nvidia1\n"
                                    "Type=1g.10gb File=/dev/nvidia-caps/nvidia-cap22 "
                                    "ParentFile=/dev/nvidia1\n");
  FakeGpuSampler sampler(inventory);
  Result<std::vector<GpuReading>> r = sampler.Sample();
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].device_file, "/dev/nvidia1");
}

TEST(FakeGpuSamplerTest, BadScriptsNameTheFileAndLine) {
  auto error = [](std::string_view text) {
    Result<std::vector<ScriptedMoment>> s = ParseGpuScript(text, "script");
    return s.ok() ? std::string("ok") : std::string(s.status().message());
  };
  EXPECT_EQ(error("0 Util=5\n"), "ok");
  EXPECT_EQ(error("0 Util=5\nsoon Util=3\n"), "script:2: \"soon\" is not seconds");
  EXPECT_EQ(error("0 Util=101\n"), "script:1: Util=\"101\" is not a percentage");
  EXPECT_EQ(error("0 Colour=red\n"), "script:1: unknown key \"colour\"");
  EXPECT_EQ(error("0 Event=melted\n"),
            "script:1: Event=\"melted\" is not xid:N, ecc, lost or retired-pages");
  EXPECT_EQ(error("0 MemUsed=lots\n"), "script:1: memused=\"lots\" is not a size");
  EXPECT_EQ(error("0 Util\n"), "script:1: \"Util\" is not Key=Value");
}

TEST(FakeGpuSamplerTest, EventWordsAreTheOnesDrainReasonsUse) {
  EXPECT_EQ(GpuEventText({GpuEventKind::kXid, 48}), "XID 48");
  EXPECT_EQ(GpuEventText({GpuEventKind::kDoubleBitEcc, 0}), "uncorrectable ECC error");
  EXPECT_EQ(GpuEventText({GpuEventKind::kRetiredPagesPending, 0}), "retired pages pending");
  Result<std::vector<ScriptedMoment>> s =
      ParseGpuScript("1 Event=ecc Event=lost Event=retired-pages Event=XID:13", "s");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)[0].events, (std::vector<GpuEvent>{{GpuEventKind::kDoubleBitEcc, 0},
                                                   {GpuEventKind::kFallenOffBus, 0},
                                                   {GpuEventKind::kRetiredPagesPending, 0},
                                                   {GpuEventKind::kXid, 13}}));
}

}  // namespace
}  // namespace rota::noded
