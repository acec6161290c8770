#include "rest/rest_json.h"

#include "cli/query/squeue_json.h"

namespace rota::rest {

Json Envelope(ApiFlavor flavor) {
  Json out;
  out["meta"] = cli::OpenApiMeta(flavor == ApiFlavor::kSlurmdb);
  out["errors"] = Json::array();
  return out;
}

HttpResponse JsonAnswer(const Json& body, int http_status) {
  HttpResponse r;
  r.status = http_status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

HttpResponse ErrorAnswer(ApiFlavor flavor, int http_status, std::string_view message,
                         int slurm_errno) {
  Json out = Envelope(flavor);
  out["errors"].push_back({{"error", std::string(message)}, {"errno", slurm_errno}});
  return JsonAnswer(out, http_status);
}

HttpResponse StatusAnswer(ApiFlavor flavor, const Status& status, int not_found_errno) {
  switch (status.code()) {
    case StatusCode::kPermissionDenied:
      return ErrorAnswer(flavor, 403, status.message(), kEslurmAccessDenied);
    case StatusCode::kNotFound:
      return ErrorAnswer(flavor, 404, status.message(), not_found_errno);
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
    case StatusCode::kAlreadyExists:
      return ErrorAnswer(flavor, 400, status.message(), kSlurmError);
    case StatusCode::kUnavailable:
      return ErrorAnswer(flavor, 503, status.message(), kSlurmError);
    default:
      return ErrorAnswer(flavor, 500, status.message(), kSlurmError);
  }
}

Result<Json> ParseJsonBody(const HttpRequest& request) {
  Json body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    return InvalidArgument("the request body is not a JSON object");
  }
  return body;
}

}  // namespace rota::rest
