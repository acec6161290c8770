// Registrations, heartbeats and SlurmdTimeout: which nodes answer, and
// whether what they have matches what slurm.conf promises.
#include "ctld/core/node_liveness.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "common/gres_spec.h"
#include "common/strings.h"
#include "ctld/core/job_control.h"
#include "ctld/core/job_shape.h"

namespace rota::ctld {
namespace {

// Counts by GRES name, and by (name, type) for typed entries.
struct GresCounts {
  std::map<std::string, uint64_t> by_name;
  std::map<std::pair<std::string, std::string>, uint64_t> by_type;

  void Add(const GresSpec& g) {
    by_name[g.name] += g.count;
    if (!g.type.empty()) by_type[{g.name, g.type}] += g.count;
  }
};

}  // namespace

bool HasConfigOverrides(const conf::SlurmConf& settings) {
  for (const std::string& p : settings.slurmd_parameters) {
    if (EqualsIgnoreCase(Trim(p), "config_overrides")) return true;
  }
  return false;
}

std::string HardwareShortfall(const conf::NodeConfig& configured,
                              const wire::NodeRegisterRequest& reported) {
  std::vector<std::string> reasons;
  if (reported.cpus() != 0 && reported.cpus() < configured.cpus) {
    reasons.push_back(
        fmt::format("Low socket*core*thread count ({} < {})", reported.cpus(), configured.cpus));
  }
  if (reported.real_memory_mb() != 0 && reported.real_memory_mb() < configured.real_memory_mb) {
    reasons.push_back(fmt::format("Low RealMemory ({} < {})", reported.real_memory_mb(),
                                  configured.real_memory_mb));
  }
  GresCounts want;
  for (const GresSpec& g : configured.gres) want.Add(g);
  GresCounts have;
  // An unreadable report counts as nothing found.
  for (const GresSpec& g : ParseGresList(reported.gres()).value_or({})) have.Add(g);
  for (const auto& [name, count] : want.by_name) {
    uint64_t found = have.by_name[name];
    if (found < count) {
      reasons.push_back(fmt::format("gres/{} count reported lower than configured ({} < {})", name,
                                    found, count));
      continue;
    }
    for (const auto& [key, typed] : want.by_type) {
      if (key.first != name || have.by_type[key] >= typed) continue;
      reasons.push_back(fmt::format("gres/{}:{} count reported lower than configured ({} < {})",
                                    name, key.second, have.by_type[key], typed));
      break;
    }
  }
  return Join(reasons, ", ");
}

Status JobControl::NodeRegistered(const wire::NodeRegisterRequest& request, int64_t now,
                                  Effects& effects) {
  NodeRuntime* n = nodes_.Find(request.node());
  if (n == nullptr) return NotFound(kInvalidNodeName);
  const conf::SlurmConf& settings = config_->settings;
  bool was_silent = !n->responding;
  bool changed = false;
  n->responding = true;
  n->boot_time = request.boot_time();
  n->last_heard = now;
  if (was_silent) {
    // ReturnToService=1 returns nodes that were DOWN for not responding;
    // 2 returns DOWN nodes whatever set them DOWN. Heartbeats of a node that
    // kept answering are no return, so an admin's DOWN sticks meanwhile.
    const bool was_not_responding = n->down_not_responding;
    const bool was_admin_down = n->admin_down;
    if (settings.return_to_service >= 1) n->down_not_responding = false;
    if (settings.return_to_service == 2) n->admin_down = false;
    changed = n->down_not_responding != was_not_responding || n->admin_down != was_admin_down;
    if (changed && !n->down_not_responding && !n->admin_down && !n->drain) {
      n->reason.clear();
      n->reason_time = 0;
    }
  }
  if (request.hardware_reported()) {
    std::string shortfall =
        HasConfigOverrides(settings) ? "" : HardwareShortfall(*n->config, request);
    if (shortfall != n->hardware_shortfall) {
      n->hardware_shortfall = std::move(shortfall);
      changed |= DrainForShortfall(*n, now);
    }
  }
  if (changed) PersistNode(*n, now, effects);
  if (request.jobs_reported()) ReconcileNodeJobs(request, now, effects);
  if (settings.slurmd_timeout > 0) NoteWake(now + settings.slurmd_timeout);
  jobs_.Touch();
  return Status::Ok();
}

bool JobControl::DrainForShortfall(NodeRuntime& node, int64_t now) {
  if (node.hardware_shortfall.empty() || (node.drain && node.reason == node.hardware_shortfall)) {
    return false;
  }
  node.drain = true;
  node.reason = node.hardware_shortfall;
  node.reason_time = now;
  node.reason_uid = 0;  // Slurm's own doing, not a user's
  return true;
}

void JobControl::CheckNodeLiveness(int64_t now, Effects& effects) {
  const int64_t timeout = config_->settings.slurmd_timeout;
  if (timeout <= 0) return;  // SlurmdTimeout=0: nodes are never timed out.
  for (NodeRuntime& n : nodes_.nodes()) {
    // Jobs restored on a node not heard from since: its time starts now.
    if (n.last_heard == 0 && n.running_jobs > 0) n.last_heard = now;
    if (n.last_heard == 0 || (!n.responding && n.running_jobs == 0)) continue;
    int64_t deadline = n.last_heard + timeout;
    if (now >= deadline) {
      MarkNotResponding(n, now, effects);
    } else {
      NoteWake(deadline);
    }
  }
}

void JobControl::MarkNotResponding(NodeRuntime& node, int64_t now, Effects& effects) {
  node.responding = false;
  node.down_not_responding = true;
  if (node.reason.empty()) {
    node.reason = kNotResponding;
    node.reason_time = now;
    node.reason_uid = 0;
  }
  PersistNode(node, now, effects);
  FailJobsOn(node.config->name, now, effects);
  jobs_.Touch();
}

}  // namespace rota::ctld
