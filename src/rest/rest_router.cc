#include "rest/rest_router.h"

#include "common/strings.h"

namespace rota::rest {
namespace {

std::string_view WithoutTrailingSlash(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

// Whether `path` fits `pattern` part for part; fills `params`.
bool Fits(std::string_view pattern, std::string_view path, PathParams& params) {
  std::vector<std::string_view> want = Split(WithoutTrailingSlash(pattern), '/');
  std::vector<std::string_view> have = Split(WithoutTrailingSlash(path), '/');
  if (want.size() != have.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    std::string_view w = want[i];
    if (w.size() > 2 && w.front() == '{' && w.back() == '}') {
      if (have[i].empty()) return false;
      params[std::string(w.substr(1, w.size() - 2))] = std::string(have[i]);
    } else if (w != have[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

void Router::Add(std::string method, std::string pattern, Handler handler) {
  routes_.push_back({std::move(method), std::move(pattern), std::move(handler)});
}

Router::Match Router::Find(std::string_view method, std::string_view path) const {
  Match match;
  for (const Route& route : routes_) {
    PathParams params;
    if (!Fits(route.pattern, path, params)) continue;
    match.path_known = true;
    if (route.method != method) continue;
    match.route = &route;
    match.params = std::move(params);
    return match;
  }
  return match;
}

}  // namespace rota::rest
