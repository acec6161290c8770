#pragma once

// Plays the controller towards node 1 of a NodedCluster: builds the launch
// request a controller would send it, and sends requests with the cluster's
// credentials (through cli::NodeCaller) — for tests that drive rotad without
// a rotactld.

#include <chrono>
#include <memory>
#include <string>

#include "api/auth_settings.h"
#include "auth/credential.h"
#include "cli/client/node_caller.h"
#include "conf/config_loader.h"
#include "tests/integration/noded_harness.h"

namespace rota::testing {

class DirectLaunch {
 public:
  // Reads the cluster's slurm.conf for its credentials; ok() says whether it could.
  explicit DirectLaunch(const NodedCluster& cluster) : cluster_(cluster) {
    conf::Diagnostics diags;
    auto config = conf::LoadClusterConfig(cluster.conf(), diags);
    if (!config.ok()) {
      status_ = InvalidArgument(diags.ToString());
      return;
    }
    config_ = *config;
    auto issuer = auth::MakeIssuer(api::AuthSettingsFor(*config_));
    if (!issuer.ok()) {
      status_ = issuer.status();
      return;
    }
    issuer_ = std::move(issuer).value();
    caller_ = std::make_unique<cli::NodeCaller>(*config_, *issuer_);
  }
  const Status& status() const { return status_; }

  // Job `id` on node 1 running `script`, with `gpus` a100s, named `name`.
  wire::LaunchJobRequest Job(uint32_t id, const std::string& script, uint32_t gpus,
                             const std::string& name) const {
    wire::LaunchJobRequest req;
    wire::JobLaunch& job = *req.mutable_job();
    job.set_job_id(id);
    job.add_nodes(cluster_.Node(1));
    job.set_cpus_per_node(1);
    job.add_mem_by_node_mb(200);
    job.set_gpus_per_node(gpus);
    job.set_gpu_type(gpus > 0 ? "a100" : "");
    wire::JobSpec& spec = *job.mutable_spec();
    spec.set_name(name);
    spec.set_partition("batch");
    spec.set_user("root");
    spec.set_work_dir(cluster_.work_dir());
    req.mutable_payload()->set_job_id(id);
    req.mutable_payload()->set_script(script);
    req.mutable_payload()->add_environment("PATH=/usr/local/bin:/usr/bin:/bin");
    req.set_cluster_name("ndtest");
    return req;
  }

  // One call to node 1's rotad, as the controller makes it.
  Status Send(uint16_t method, const google::protobuf::MessageLite& message) const {
    return caller_->Call(cluster_.Node(1), method, message, std::chrono::seconds(10));
  }

  // What job `id` wrote to its default output file.
  std::string Output(uint32_t id) const {
    return ReadFileText(cluster_.work_dir() + "/slurm-" + std::to_string(id) + ".out");
  }

 private:
  const NodedCluster& cluster_;
  Status status_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  std::unique_ptr<auth::CredentialIssuer> issuer_;
  std::unique_ptr<cli::NodeCaller> caller_;
};

}  // namespace rota::testing
