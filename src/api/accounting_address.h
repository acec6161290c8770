#pragma once

// Where the controller reaches rotadbd: AccountingStorageHost, with none or
// "localhost" meaning the loopback address (rotadbd then listens there only).

#include <string>

#include "conf/slurm_conf.h"

namespace rota::api {

inline std::string AccountingStorageAddress(const conf::SlurmConf& settings) {
  const std::string& host = settings.accounting_storage_host;
  return host.empty() || host == "localhost" ? "127.0.0.1" : host;
}

}  // namespace rota::api
