#pragma once

// The fixture of the controller core's tests: a ControllerCore on a
// slurm.conf written inline, a fake clock (`now_`, moved by the test), three
// callers, and the steps every core test takes: submit, tick, look a job up.
// Test-only; a test fixture derives from CoreTest and calls Start.

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "ctld/core/controller_core.h"
#include "testing/config_files.h"

namespace rota::ctld::testing {

class CoreTest : public ::testing::Test {
 protected:
  static constexpr int64_t kT0 = 1'800'000'000;
  using SpecEdit = std::function<void(wire::JobSpec&)>;

  // Loads a slurm.conf of ClusterName, SlurmctldHost and `cluster_lines`,
  // makes the core and, with `register_nodes`, has every configured node's
  // daemon register now. Fails the test (fatally) when the file does not load.
  void Start(const std::string& cluster_lines, bool register_nodes = true) {
    auto loaded =
        rota::testing::LoadConfigFiles(dir_, {"ClusterName=c\nSlurmctldHost=h\n" + cluster_lines});
    ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
    load_warnings_ = loaded.Text();
    config_ = *loaded.config;
    core_ = std::make_unique<ControllerCore>(config_);
    if (!register_nodes) return;
    for (const conf::NodeConfig& node : config_->nodes) {
      Effects e;
      ASSERT_TRUE(core_->NodeRegistered(node.name, kT0, now_, e).ok()) << node.name;
    }
  }

  // Submits a job named "job" as `who`, `edit` applied to its request.
  Result<wire::SubmitJobResponse> SubmitAs(const Caller& who, const SpecEdit& edit) {
    wire::SubmitJobRequest req;
    req.mutable_spec()->set_name("job");
    edit(*req.mutable_spec());
    Effects e;
    return core_->Submit(req, who, now_, e);
  }
  // The same, expected to be accepted; its id (0 when refused).
  uint32_t SubmitOkAs(const Caller& who, const SpecEdit& edit) {
    Result<wire::SubmitJobResponse> r = SubmitAs(who, edit);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->job_id() : 0;
  }
  // One pass at `now_`: timers, priorities, node liveness, scheduling.
  Effects Tick() {
    Effects e;
    core_->Tick(now_, e);
    return e;
  }
  const wire::JobRecord& Job(uint32_t id) const {
    const wire::JobRecord* job = core_->FindJob(id);
    EXPECT_NE(job, nullptr) << "no job " << id;
    static const wire::JobRecord kNone;
    return job != nullptr ? *job : kNone;
  }

  rota::testing::TempDir dir_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  std::string load_warnings_;  // What loading the configuration said
  std::unique_ptr<ControllerCore> core_;
  int64_t now_ = kT0;
  Caller alice_{1000, 1000, "alice", "alice", false};
  Caller bob_{1001, 1001, "bob", "bob", false};
  Caller root_{0, 0, "root", "root", true};
};

}  // namespace rota::ctld::testing
