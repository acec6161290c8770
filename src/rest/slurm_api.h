#pragma once

// /slurm/v0.0.38: what slurmrestd's openapi/v0.0.38 serves from slurmctld,
// answered from rotactld as the requesting user: ping, diag, jobs (list, one,
// submit, update, cancel or signal), nodes, partitions, reservations.

#include "rest/rest_json.h"
#include "rest/rest_router.h"
#include "rota.pb.h"

namespace rota::rest {

inline constexpr std::string_view kSlurmPrefix = "/slurm/v0.0.38";

void AddSlurmRoutes(Router& router);

// POST /slurm/v0.0.38/job/submit (slurm_api_submit.cc).
HttpResponse SubmitJob(const HttpRequest& request, const PathParams&, Backend& backend);
// The v0.0.38_job_properties of a submission as sbatch's options, so that a
// job submitted over REST is read by the same parser as one from sbatch.
// kInvalidArgument naming the property that cannot be taken.
Result<std::vector<std::string>> JobPropertiesAsOptions(const Json& job, int64_t now);

// GET nodes, partitions and reservations (slurm_api_cluster.cc).
HttpResponse GetNodes(const HttpRequest&, const PathParams& params, Backend& backend);
HttpResponse GetPartitions(const HttpRequest&, const PathParams& params, Backend& backend);
HttpResponse GetReservations(const HttpRequest&, const PathParams& params, Backend& backend);

// A node's state as v0.0.38 splits it: the base state in lower case ("idle",
// "mixed", "down", ...) and the flags ("DRAIN", "NOT_RESPONDING",
// "RESERVED", ...).
struct NodeState {
  std::string base;
  std::vector<std::string> flags;
  bool Has(std::string_view flag) const;
};
NodeState NodeStateOf(const wire::NodeInfo& node);

// One node as v0.0.38_node.
Json NodeJson(const wire::NodeInfo& node);

}  // namespace rota::rest
