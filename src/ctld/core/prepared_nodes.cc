#include "ctld/core/prepared_nodes.h"

#include <algorithm>
#include <csignal>

#include "conf/prolog_flags.h"

namespace rota::ctld {

bool PreparesEveryNode(const conf::ClusterConfig& config) {
  return conf::PrepareEveryNode(config.settings.prolog_flags);
}

void EndOnOtherNodes(const conf::ClusterConfig& config, const wire::JobRecord& job,
                     Effects& effects) {
  if (job.nodes_size() < 2 || !PreparesEveryNode(config)) return;
  const bool ended =
      std::any_of(effects.signals.begin(), effects.signals.end(), [&](const SignalJob& s) {
        return s.job_id == job.job_id() && !s.batch_only && (s.terminate || s.signal == SIGKILL);
      });
  if (ended) return;
  effects.signals.push_back({job.job_id(),
                             {job.nodes().begin() + 1, job.nodes().end()},
                             SIGTERM,
                             /*batch_only=*/false,
                             /*terminate=*/true});
}

}  // namespace rota::ctld
