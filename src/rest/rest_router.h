#pragma once

// The route table: a method and a path pattern ("/slurm/v0.0.38/job/{job_id}")
// to a handler. A trailing slash is optional on every route, as slurmrestd
// documents its paths with one and clients call them without.

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "rest/rest_types.h"

namespace rota::rest {

// The values of a route's {name} parts.
using PathParams = std::map<std::string, std::string>;

using Handler = std::function<HttpResponse(const HttpRequest&, const PathParams&, Backend&)>;

struct Route {
  std::string method;
  std::string pattern;
  Handler handler;
};

class Router {
 public:
  void Add(std::string method, std::string pattern, Handler handler);

  struct Match {
    const Route* route = nullptr;  // Null: nothing matched.
    PathParams params;
    bool path_known = false;  // The path matched some route, not with this method.
  };
  Match Find(std::string_view method, std::string_view path) const;

  const std::vector<Route>& routes() const { return routes_; }

 private:
  std::vector<Route> routes_;
};

}  // namespace rota::rest
