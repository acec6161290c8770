#pragma once

// The JSON envelope every slurmrestd v0.0.38 answer shares: "meta" (the
// plugin and the Slurm version a client checks) and "errors" (objects with
// "error" and "errno"), plus the mapping from a daemon's Status to an HTTP
// status and a Slurm error number.

#include <nlohmann/json.hpp>
#include <string_view>

#include "common/status.h"
#include "rest/rest_types.h"

namespace rota::rest {

using Json = nlohmann::ordered_json;

enum class ApiFlavor {
  kSlurm,    // /slurm/v0.0.38: openapi/v0.0.38
  kSlurmdb,  // /slurmdb/v0.0.38: openapi/dbv0.0.38
  kRota,     // Rota's own routes (metrics, dashboard data)
};

// Slurm's error numbers that the API answers with (slurm_errno.h of 22.05).
inline constexpr int kSlurmError = -1;
inline constexpr int kEslurmInvalidPartitionName = 2000;
inline constexpr int kEslurmAccessDenied = 2002;
inline constexpr int kEslurmInvalidJobId = 2017;
inline constexpr int kEslurmInvalidNodeName = 2018;
inline constexpr int kEslurmRestInvalidQuery = 9000;
inline constexpr int kEslurmRestFailParsing = 9001;
inline constexpr int kEslurmRestEmptyResult = 9003;
inline constexpr int kEslurmRestMissingUid = 9004;

// {"meta": {...}, "errors": []} for `flavor`.
Json Envelope(ApiFlavor flavor);

// `body` as an HTTP answer (compact JSON).
HttpResponse JsonAnswer(const Json& body, int http_status = 200);

// An envelope whose errors hold one {"error": message, "errno": slurm_errno}.
HttpResponse ErrorAnswer(ApiFlavor flavor, int http_status, std::string_view message,
                         int slurm_errno);

// A daemon's refusal as an answer: kPermissionDenied is 403 with
// ESLURM_ACCESS_DENIED, kNotFound 404 with `not_found_errno`, bad input 400,
// a daemon out of reach 503, anything else 500; the message is the daemon's.
HttpResponse StatusAnswer(ApiFlavor flavor, const Status& status,
                          int not_found_errno = kSlurmError);

// The body of a request parsed as JSON: an error answer (400, "errno" 9001)
// when it is not a JSON object.
Result<Json> ParseJsonBody(const HttpRequest& request);

}  // namespace rota::rest
