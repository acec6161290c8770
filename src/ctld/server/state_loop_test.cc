#include "ctld/server/state_loop.h"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <thread>

#include "ctld/state/state_test_util.h"
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

// A loop over one node whose periodic pass never comes during a test, so
// that every pass it makes was asked for by some work.
class StateLoopPassTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loaded_ = LoadConfigFiles(dir_, {"ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=4\n"
                                     "PartitionName=p Nodes=n1 Default=YES\n"});
    ASSERT_TRUE(loaded_.config.ok()) << loaded_.Text();
    Recovered recovered;
    auto store = StateStore::Open((dir_.path() / "state").string(), &recovered);
    ASSERT_TRUE(store.ok());
    StateLoop::Options options;
    options.periodic_pass = std::chrono::hours(1);
    loop_ = std::make_unique<StateLoop>(
        std::make_unique<ControllerCore>(*loaded_.config), std::move(store).value(), nullptr,
        [] { return int64_t{1000}; }, options);
    loop_->Start();
  }
  void TearDown() override {
    if (loop_ != nullptr) loop_->Stop();
  }

  // The pass count once the passes already asked for have happened.
  uint64_t SettledPasses() {
    uint64_t passes = loop_->stats().passes;
    for (int i = 0; i < 100; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (loop_->stats().passes == passes && i > 5) break;
      passes = loop_->stats().passes;
    }
    return passes;
  }

  // How many jobs the core holds, read through the loop.
  size_t JobCount() {
    std::promise<size_t> done;
    loop_->EnqueueRead([&](ControllerCore& core, int64_t, Effects&) -> StateLoop::Reply {
      const size_t jobs = core.PublishJobs()->size();
      return [&done, jobs] { done.set_value(jobs); };
    });
    return done.get_future().get();
  }

  TempDir dir_;
  rota::testing::LoadedConfig loaded_;
  std::unique_ptr<StateLoop> loop_;
};

// A listing only reads: on an idle controller it must be answered without
// a scheduling pass over every job first.
TEST_F(StateLoopPassTest, ReadsDoNotMakeAPassDue) {
  SubmitThrough(*loop_, "held");
  const uint64_t passes = SettledPasses();
  ASSERT_GT(passes, 0u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(JobCount(), 1u);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(loop_->stats().passes, passes);
  EXPECT_EQ(loop_->stats().commands, 6u);
}

// A held submission changes state but cannot start anything: a stream of them
// is kept without a pass after each; an ordinary submission still gets one.
TEST_F(StateLoopPassTest, HeldSubmissionsMakeNoPassDueButOthersDo) {
  SubmitThrough(*loop_, "first");
  const uint64_t passes = SettledPasses();
  for (int i = 0; i < 5; ++i) {
    std::promise<bool> done;
    loop_->EnqueueWithoutPass(
        [&](ControllerCore& core, int64_t now, Effects& effects) -> StateLoop::Reply {
          wire::SubmitJobRequest req;
          req.mutable_spec()->set_hold(true);
          req.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
          const bool ok = core.Submit(req, Caller{0, 0, "root", "root", true}, now, effects).ok();
          return [&done, ok] { done.set_value(ok); };
        });
    EXPECT_TRUE(done.get_future().get());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(JobCount(), 6u);
  EXPECT_EQ(SettledPasses(), passes);

  SubmitThrough(*loop_, "asks");  // Enqueue: may start something
  EXPECT_GT(SettledPasses(), passes);
}

// A held submission through the loop, answered with its job id, or 0 and the
// refusal's message.
struct Submitted {
  std::future<uint32_t> id;
  std::shared_ptr<std::string> refusal = std::make_shared<std::string>();
};
Submitted SubmitRefusable(StateLoop& loop, const std::string& name) {
  auto done = std::make_shared<std::promise<uint32_t>>();
  Submitted out{done->get_future()};
  loop.EnqueueWithoutPass(
      [done, name](ControllerCore& core, int64_t now, Effects& effects) -> StateLoop::Reply {
        wire::SubmitJobRequest req;
        req.mutable_spec()->set_name(name);
        req.mutable_spec()->set_hold(true);
        req.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
        auto r = core.Submit(req, Caller{0, 0, "root", "root", true}, now, effects);
        const uint32_t id = r.ok() ? r->job_id() : 0;
        return [done, id] { done->set_value(id); };
      },
      [done, refusal = out.refusal](const Status& why) {
        *refusal = why.message();
        done->set_value(0);
      });
  return out;
}

// A loop over one node whose state directory the tests make full or read-only.
class StateLoopDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loaded_ = LoadConfigFiles(dir_, {"ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=4\n"
                                     "PartitionName=p Nodes=n1 Default=YES\n"});
    ASSERT_TRUE(loaded_.config.ok()) << loaded_.Text();
  }
  std::string StateDir() const { return (dir_.path() / "state").string(); }
  // The store, opened through `ops` (nullptr: the real file system).
  std::unique_ptr<StateStore> OpenStore(FileOps* ops = nullptr) {
    Recovered recovered;
    auto store = StateStore::Open(StateDir(), &recovered, StateStoreOptions{ops});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  std::unique_ptr<StateLoop> StartLoop(std::unique_ptr<StateStore> store,
                                       StateLoop::Options options) {
    auto loop = std::make_unique<StateLoop>(
        std::make_unique<ControllerCore>(*loaded_.config), std::move(store), nullptr,
        [] { return int64_t{1000}; }, options);
    loop->Start();
    return loop;
  }
  // How many jobs the core holds, read through the loop.
  static size_t JobCount(StateLoop& loop) {
    std::promise<size_t> jobs;
    loop.EnqueueRead([&](ControllerCore& core, int64_t, Effects&) -> StateLoop::Reply {
      const size_t n = core.PublishJobs()->size();
      return [&jobs, n] { jobs.set_value(n); };
    });
    return jobs.get_future().get();
  }

  TempDir dir_;
  rota::testing::LoadedConfig loaded_;
};

// The state disk fills: the loop neither stops nor acknowledges what it could
// not write. Reads go on, changes are refused with the reason, and once the
// disk takes writes again the held submission is answered and recorded.
TEST_F(StateLoopDiskTest, FailedWriteHoldsTheBatchRefusesChangesAndResumes) {
  testing::CountingFileOps ops;
  StateLoop::Options options;
  options.retry_durable = std::chrono::milliseconds(20);
  options.min_free_bytes = 0;  // Only the failed writes count here.
  std::unique_ptr<StateLoop> loop = StartLoop(OpenStore(&ops), options);
  EXPECT_EQ(SubmitRefusable(*loop, "before").id.get(), 1u);

  ops.fail_writes = 1'000'000;  // Every write fails until the disk is cleared.
  Submitted held = SubmitRefusable(*loop, "held");
  for (int i = 0; i < 5000 && loop->refusing_changes().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_NE(loop->refusing_changes(), "");
  // A read in a later batch is answered, while every retry still fails.
  EXPECT_EQ(JobCount(*loop), 2u);
  Submitted refused = SubmitRefusable(*loop, "refused");
  EXPECT_EQ(refused.id.get(), 0u);
  EXPECT_NE(refused.refusal->find("cannot save its state"), std::string::npos) << *refused.refusal;
  EXPECT_NE(loop->refusing_changes().find("changes are refused"), std::string::npos);
  EXPECT_EQ(held.id.wait_for(std::chrono::seconds(0)), std::future_status::timeout);

  ops.fail_writes = 0;
  EXPECT_EQ(held.id.get(), 2u);
  EXPECT_EQ(SubmitRefusable(*loop, "after").id.get(), 3u);
  EXPECT_EQ(loop->refusing_changes(), "");
  loop->Stop();

  Recovered again;
  auto reopened = StateStore::Open(StateDir(), &again);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  // before, held and after were recorded; the refused one was not.
  auto recorded = [&](const std::string& name) {
    return std::any_of(again.records.begin(), again.records.end(),
                       [&](const std::string& r) { return r.find(name) != std::string::npos; });
  };
  EXPECT_TRUE(recorded("before"));
  EXPECT_TRUE(recorded("held"));
  EXPECT_TRUE(recorded("after"));
  EXPECT_FALSE(recorded("refused"));
}

// Below the reserve of free space, changes are refused before they are made.
TEST_F(StateLoopDiskTest, ShortOfSpaceRefusesChangesBeforeMakingThem) {
  StateLoop::Options options;
  options.min_free_bytes = uint64_t{1} << 62;  // More than any disk has.
  std::unique_ptr<StateLoop> loop = StartLoop(OpenStore(), options);
  Submitted refused = SubmitRefusable(*loop, "refused");
  EXPECT_EQ(refused.id.get(), 0u);
  EXPECT_NE(refused.refusal->find("kept in reserve"), std::string::npos) << *refused.refusal;
  EXPECT_EQ(JobCount(*loop), 0u);
  loop->Stop();
}

// A state directory on a file system that turned read-only: changes are
// refused before anything is written, and taken again once it is writable.
TEST_F(StateLoopDiskTest, ReadOnlyStateDirRefusesChangesUntilWritable) {
  ASSERT_EQ(geteuid(), 0u) << "a read-only bind mount needs root";
  std::unique_ptr<StateStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  // The store writes nothing until the first append: the directory can be
  // made read-only under it (a bind mount of itself, remounted read-only).
  const std::string state_dir = StateDir();
  ASSERT_EQ(mount(state_dir.c_str(), state_dir.c_str(), nullptr, MS_BIND, nullptr), 0)
      << strerror(errno);
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{state_dir};
  ASSERT_EQ(mount(nullptr, state_dir.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr),
            0)
      << strerror(errno);
  StateLoop::Options options;
  options.retry_durable = std::chrono::milliseconds(20);
  options.min_free_bytes = 0;
  std::unique_ptr<StateLoop> loop = StartLoop(std::move(store), options);
  Submitted refused = SubmitRefusable(*loop, "refused");
  EXPECT_EQ(refused.id.get(), 0u);
  EXPECT_NE(refused.refusal->find("read-only"), std::string::npos) << *refused.refusal;

  ASSERT_EQ(mount(nullptr, state_dir.c_str(), nullptr, MS_REMOUNT | MS_BIND, nullptr), 0)
      << strerror(errno);
  uint32_t id = 0;
  for (int i = 0; i < 500 && id == 0; ++i) {
    id = SubmitRefusable(*loop, "after").id.get();
    if (id == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(id, 1u);
  loop->Stop();
}

}  // namespace
}  // namespace rota::ctld
