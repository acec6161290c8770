#include "dbd/dbd_conf.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "common/strings.h"
#include "conf/value_parsers.h"

namespace rota::dbd {
namespace {

// slurmdbd.conf keys of Slurm's that rotadbd does not use.
constexpr std::array<std::string_view, 32> kIgnoredKeys = {
    "ArchiveDir",        "ArchiveEvents",    "ArchiveJobs",       "ArchiveResvs",
    "ArchiveScript",     "ArchiveSteps",     "ArchiveSuspend",    "ArchiveTXN",
    "ArchiveUsage",      "AuthAltTypes",     "AuthAltParameters", "AuthInfo",
    "AuthType",          "CommitDelay",      "DbdBackupHost",     "DebugFlags",
    "DebugLevel",        "DebugLevelSyslog", "LogFile",           "LogTimeFormat",
    "MaxQueryTimeRange", "MessageTimeout",   "PidFile",           "PurgeEventAfter",
    "PurgeJobAfter",     "PurgeResvAfter",   "PurgeStepAfter",    "PurgeSuspendAfter",
    "PurgeTXNAfter",     "PurgeUsageAfter",  "SlurmUser",         "StorageParameters",
};

}  // namespace

DbdConf ParseDbdConf(const std::vector<conf::ConfigLine>& lines, conf::Diagnostics& diags) {
  DbdConf out;
  for (const conf::ConfigLine& line : lines) {
    for (const conf::KeyValue& kv : line.pairs) {
      auto is = [&](std::string_view key) { return EqualsIgnoreCase(kv.key, key); };
      auto port = [&](std::optional<uint16_t>& field) {
        uint16_t value = 0;
        Status s = conf::ParsePortValue(kv.value, value);
        if (!s.ok()) {
          diags.Error(line.where, fmt::format("{}={} {}", kv.key, kv.value, s.message()));
        } else {
          field = value;
        }
      };
      if (is("StorageType")) {
        if (EqualsIgnoreCase(kv.value, "accounting_storage/sqlite")) {
          out.storage = StorageKind::kSqlite;
        } else if (EqualsIgnoreCase(kv.value, "accounting_storage/pgsql")) {
          out.storage = StorageKind::kPgsql;
        } else {
          diags.Error(line.where,
                      fmt::format("StorageType={} is not supported (rotadbd stores in "
                                  "accounting_storage/sqlite or accounting_storage/pgsql)",
                                  kv.value));
        }
      } else if (is("StorageHost")) {
        out.storage_host = kv.value;
      } else if (is("StoragePort")) {
        port(out.storage_port);
      } else if (is("StorageUser")) {
        out.storage_user = kv.value;
      } else if (is("StoragePass")) {
        out.storage_pass = kv.value;
      } else if (is("StorageLoc")) {
        out.storage_loc = kv.value;
      } else if (is("DbdPort")) {
        port(out.dbd_port);
      } else if (is("DbdHost") || is("DbdAddr")) {
        out.dbd_host = kv.value;
      } else if (is("PrivateData")) {
        std::vector<std::string> values;
        Status s = conf::ParseChoiceListValue(
            kv.value, {"accounts", "events", "jobs", "reservations", "usage", "users"}, values);
        if (!s.ok()) {
          diags.Error(line.where, fmt::format("{}={} {}", kv.key, kv.value, s.message()));
        } else {
          out.private_data = std::move(values);
        }
      } else {
        bool known = false;
        for (std::string_view k : kIgnoredKeys) known = known || is(k);
        diags.Warning(line.where, known ? fmt::format("{} is not used by rotadbd (ignored)", kv.key)
                                        : fmt::format("unknown key {} (ignored)", kv.key));
      }
    }
  }
  if (out.storage_port && out.storage == StorageKind::kSqlite) {
    diags.Warning(conf::SourceLocation{lines.empty() ? "" : lines.front().where.file, 0},
                  "StoragePort has no meaning for accounting_storage/sqlite (ignored)");
  }
  return out;
}

DbdConf LoadDbdConf(const std::string& path, bool required, conf::Diagnostics& diags) {
  return ParseDbdConf(conf::ReadConfigFile(path, required, diags), diags);
}

std::string DbdConfPathBeside(const std::string& slurm_conf_path) {
  const size_t slash = slurm_conf_path.rfind('/');
  return slash == std::string::npos ? "slurmdbd.conf"
                                    : slurm_conf_path.substr(0, slash + 1) + "slurmdbd.conf";
}

}  // namespace rota::dbd
