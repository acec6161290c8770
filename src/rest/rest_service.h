#pragma once

// rotarestd's request path: find the route, decide who the request acts for
// (rest_caller.h), reach the daemons as that user (a Backend of real clients),
// run the handler, log one line. The OpenAPI document is served to anyone;
// everything else needs a caller.

#include <memory>
#include <string>

#include "conf/cluster_config.h"
#include "rest/rest_caller.h"
#include "rest/rest_router.h"

namespace rota::rest {

struct RestServiceOptions {
  RestAuthOptions auth;
};

class RestService {
 public:
  RestService(std::shared_ptr<const conf::ClusterConfig> config, RestServiceOptions options);

  // Thread-safe: called on every connection's thread.
  HttpResponse Serve(const HttpRequest& request) const;

  const Router& router() const { return router_; }

 private:
  std::shared_ptr<const conf::ClusterConfig> config_;
  RestServiceOptions options_;
  Router router_;
};

// Every route rotarestd serves, on `router`: /slurm, /slurmdb, /metrics, and
// the OpenAPI document. Shared with the tests that check the document.
void AddAllRoutes(Router& router);

}  // namespace rota::rest
