#pragma once

// OpenMetrics text for Prometheus, served by rotarestd on GET /metrics: a
// pure renderer over what the controller answers (jobs, nodes, sdiag's
// statistics) and the cluster's configuration, plus the route that fetches
// those through a Backend. docs/metrics.md lists every metric family.

#include <string>
#include <string_view>

#include "conf/cluster_config.h"
#include "diag.pb.h"
#include "model/record_projection.h"
#include "rest/rest_router.h"
#include "rota.pb.h"

namespace rota::rest {

inline constexpr std::string_view kOpenMetricsContentType =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

// What one scrape reads. Borrowed: the caller keeps all four alive while
// RenderOpenMetrics runs.
struct MetricsInputs {
  const wire::ListJobsResponse& jobs;  // Unfinished jobs, whole or projected to MetricsJobFields()
  const wire::ListNodesResponse& nodes;
  const wire::DiagResponse& diag;
  const conf::ClusterConfig& config;  // Partitions: every configured one is reported
};

// The JobRecord and JobSpec fields RenderOpenMetrics reads: the projection
// GET /metrics asks the controller for.
model::JobFieldSet MetricsJobFields();

// The whole exposition: every family of docs/metrics.md, ending with "# EOF".
// Deterministic: the same inputs give the same bytes. One pass over the jobs
// and one over the nodes.
std::string RenderOpenMetrics(const MetricsInputs& in);

// GET /metrics: lists the unfinished jobs, the nodes and sdiag's statistics
// as the requesting user and answers them rendered (kOpenMetricsContentType);
// any refusal of the controller answers as StatusAnswer(ApiFlavor::kRota).
void AddMetricsRoute(Router& router);

}  // namespace rota::rest
