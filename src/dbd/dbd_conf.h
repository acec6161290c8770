#pragma once

// slurmdbd.conf: where rotadbd keeps accounting. Read from beside slurm.conf
// (or the file named by rotadbd --dbd-config); without one, rotadbd uses its
// SQLite file under StateSaveLocation. Only the storage keys matter to
// rotadbd; Slurm's other slurmdbd.conf keys are accepted with a warning, so
// an existing file can be reused as it is.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conf/config_reader.h"
#include "conf/diagnostics.h"

namespace rota::dbd {

enum class StorageKind { kSqlite, kPgsql };

struct DbdConf {
  StorageKind storage = StorageKind::kSqlite;  // StorageType
  std::string storage_host;                    // StorageHost (empty: localhost)
  std::optional<uint16_t> storage_port;        // StoragePort (empty: 5432)
  std::string storage_user;                    // StorageUser
  std::string storage_pass;                    // StoragePass
  // StorageLoc: the database name (pgsql; default slurm_acct_db) or the
  // database file (sqlite; default <state dir>/accounting.sqlite).
  std::string storage_loc;
  std::optional<uint16_t> dbd_port;  // DbdPort: overrides AccountingStoragePort
  std::string dbd_host;              // DbdHost / DbdAddr: informational
  // PrivateData (lower case); unset: slurm.conf's applies (private_data.h).
  std::optional<std::vector<std::string>> private_data;
};

// Errors and warnings go to `diags`, each naming file and line.
DbdConf ParseDbdConf(const std::vector<conf::ConfigLine>& lines, conf::Diagnostics& diags);

// Reads and parses `path`; a missing file gives the defaults unless `required`.
DbdConf LoadDbdConf(const std::string& path, bool required, conf::Diagnostics& diags);

// slurmdbd.conf in the directory of `slurm_conf_path`.
std::string DbdConfPathBeside(const std::string& slurm_conf_path);

}  // namespace rota::dbd
