#include "ctld/server/state_loop.h"

#include <gtest/gtest.h>

#include <future>

#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

// Submits through the loop and waits for the (durable) answer.
uint32_t SubmitThrough(StateLoop& loop, const std::string& name) {
  std::promise<uint32_t> done;
  loop.Enqueue([&](ControllerCore& core, int64_t now, Effects& effects) -> StateLoop::Reply {
    wire::SubmitJobRequest req;
    req.mutable_spec()->set_name(name);
    req.mutable_spec()->set_hold(true);
    req.mutable_spec()->set_script("#!/bin/sh\necho " + name + "\n");
    auto r = core.Submit(req, Caller{0, 0, "root", "root", true}, now, effects);
    uint32_t id = r.ok() ? r->job_id() : 0;
    return [&done, id] { done.set_value(id); };
  });
  return done.get_future().get();
}

TEST(StateLoopTest, SnapshotsAndLogTogetherRecoverEverySubmission) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {"ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=4\n"
                                      "PartitionName=p Nodes=n1 Default=YES\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  std::string state_dir = (dir.path() / "state").string();
  std::vector<uint32_t> ids;
  std::string before;
  {
    Recovered recovered;
    auto store = StateStore::Open(state_dir, &recovered);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    StateLoop::Options options;
    options.snapshot_after_bytes = 1;  // A snapshot after every batch.
    auto core = std::make_unique<ControllerCore>(*loaded.config);
    ControllerCore* view = core.get();
    StateLoop loop(
        std::move(core), std::move(store).value(), nullptr, [] { return int64_t{1000}; }, options);
    loop.Start();
    for (int i = 0; i < 20; ++i) ids.push_back(SubmitThrough(loop, "job" + std::to_string(i)));
    loop.Stop();
    before = view->Snapshot().SerializeAsString();
  }
  EXPECT_EQ(ids.front(), 1u);
  EXPECT_EQ(ids.back(), 20u);

  Recovered recovered;
  auto store = StateStore::Open(state_dir, &recovered);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(recovered.snapshot.has_value());  // The loop did write snapshots.
  wire::StateSnapshot snapshot;
  ASSERT_TRUE(snapshot.ParseFromString(*recovered.snapshot));
  std::vector<wire::StateRecord> records(recovered.records.size());
  for (size_t i = 0; i < records.size(); ++i)
    ASSERT_TRUE(records[i].ParseFromString(recovered.records[i]));
  ControllerCore restored(*loaded.config);
  restored.Restore(&snapshot, records);
  EXPECT_EQ(restored.Snapshot().SerializeAsString(), before);
  EXPECT_EQ(restored.FindPayload(*restored.FindJob(20))->script(), "#!/bin/sh\necho job19\n");
}

}  // namespace
}  // namespace rota::ctld
