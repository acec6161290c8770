#pragma once

// /slurmdb/v0.0.38: accounting's jobs, associations, accounts, users and QOS
// from rotadbd, in slurmrestd's dbv0.0.38 shapes.

#include "rest/rest_router.h"

namespace rota::rest {

void AddSlurmdbRoutes(Router& router);

}  // namespace rota::rest
