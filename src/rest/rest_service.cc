#include "rest/rest_service.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "cli/client/accounting_client.h"
#include "cli/client/controller_client.h"
#include "rest/dashboard_api.h"
#include "rest/metrics.h"
#include "rest/openapi_document.h"
#include "rest/rest_json.h"
#include "rest/slurm_api.h"
#include "rest/slurmdb_api.h"

namespace rota::rest {
namespace {

// The daemons as one REST caller: clients made on first use, with the
// caller's credentials, for this request only.
class DaemonBackend final : public Backend {
 public:
  DaemonBackend(std::shared_ptr<const conf::ClusterConfig> config, RestCaller caller)
      : config_(std::move(config)), caller_(std::move(caller)) {}

  Result<std::string> CallController(uint16_t method,
                                     const google::protobuf::MessageLite& request) override {
    if (!controller_) {
      auto issuer = NewIssuer();
      if (!issuer.ok()) return issuer.status();
      auto client = cli::ControllerClient::Create(config_, std::move(issuer).value());
      if (!client.ok()) return client.status();
      controller_ = std::move(client).value();
    }
    return controller_->CallForBody(method, request);
  }

  Result<std::string> CallAccounting(uint16_t method,
                                     const google::protobuf::MessageLite& request) override {
    if (!accounting_) {
      auto issuer = NewIssuer();
      if (!issuer.ok()) return issuer.status();
      auto client = cli::AccountingClient::Create(config_, std::move(issuer).value());
      if (!client.ok()) return client.status();
      accounting_ = std::move(client).value();
    }
    return accounting_->CallForBody(method, request);
  }

  uint32_t uid() const override { return caller_.uid; }
  const std::string& user_name() const override { return caller_.user; }
  const conf::ClusterConfig& config() const override { return *config_; }
  int64_t now() const override { return static_cast<int64_t>(std::time(nullptr)); }

 private:
  Result<std::unique_ptr<auth::CredentialIssuer>> NewIssuer() {
    if (!caller_.make_issuer) return auth::PermissionDenied("this request acts for nobody");
    return caller_.make_issuer();
  }

  std::shared_ptr<const conf::ClusterConfig> config_;
  RestCaller caller_;
  std::unique_ptr<cli::ControllerClient> controller_;
  std::unique_ptr<cli::AccountingClient> accounting_;
};

// The OpenAPI document and the dashboard's own files hold no cluster data.
bool IsPublic(const std::string& path) {
  return path.starts_with("/openapi") || path == "/" || path == "/dashboard.js" ||
         path == "/dashboard.css";
}

}  // namespace

void AddAllRoutes(Router& router) {
  AddSlurmRoutes(router);
  AddSlurmdbRoutes(router);
  AddMetricsRoute(router);
  AddOpenApiRoutes(router);
  AddDashboardRoutes(router);
}

RestService::RestService(std::shared_ptr<const conf::ClusterConfig> config,
                         RestServiceOptions options)
    : config_(std::move(config)), options_(std::move(options)) {
  AddAllRoutes(router_);
}

HttpResponse RestService::Serve(const HttpRequest& request) const {
  const auto started = std::chrono::steady_clock::now();
  std::string user = "-";
  HttpResponse answer;
  Router::Match match = router_.Find(request.method, request.path);
  if (match.route == nullptr) {
    answer = match.path_known
                 ? ErrorAnswer(ApiFlavor::kRota, 405,
                               "method " + request.method + " is not allowed on " + request.path,
                               kEslurmRestInvalidQuery)
                 : ErrorAnswer(ApiFlavor::kRota, 404, "no such path: " + request.path,
                               kEslurmRestInvalidQuery);
  } else if (IsPublic(request.path)) {
    DaemonBackend unused(config_, RestCaller{});
    answer = match.route->handler(request, match.params, unused);
  } else {
    Result<RestCaller> caller = ResolveRestCaller(request, options_.auth);
    if (!caller.ok()) {
      answer = ErrorAnswer(ApiFlavor::kRota, 401, caller.status().message(), kEslurmAccessDenied);
    } else {
      user = caller->user;
      DaemonBackend backend(config_, std::move(caller).value());
      answer = match.route->handler(request, match.params, backend);
    }
  }
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
  spdlog::info("{} {} {} -> {} ({} us)", user, request.method, request.path, answer.status, micros);
  return answer;
}

}  // namespace rota::rest
