#pragma once

// The OpenAPI 3 document rotarestd serves at /openapi/v3 (and /openapi,
// /openapi.json): the paths and schemas of /slurm/v0.0.38 and
// /slurmdb/v0.0.38 as this daemon implements them. Written here, not taken
// from Slurm; the field names and types follow slurmrestd's v0.0.38 so that
// a client generated from either works with both. rest_openapi_test checks
// every route against it and every answer's fields against its schemas.

#include "rest/rest_json.h"
#include "rest/rest_router.h"

namespace rota::rest {

// The whole document.
Json OpenApiDocument();

// The parts each area contributes: {"paths": {...}, "schemas": {...}}.
Json OpenApiSlurmPart();    // slurm_openapi.cc
Json OpenApiSlurmdbPart();  // slurmdb_openapi.cc

// GET /openapi/v3, /openapi and /openapi.json: the document.
void AddOpenApiRoutes(Router& router);

}  // namespace rota::rest
