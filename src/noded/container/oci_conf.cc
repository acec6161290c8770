#include "noded/container/oci_conf.h"

#include <fmt/format.h>

#include <filesystem>

#include "common/strings.h"
#include "conf/config_reader.h"

namespace rota::noded {

Result<OciConf> LoadOciConf(const std::string& path, conf::Diagnostics& diags) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound(path + " does not exist");
  OciConf oci;
  // Keys of Slurm's whose behaviour Rota does not have (it runs the
  // container with RunTimeRun only).
  static constexpr std::string_view kNotActedOn[] = {
      "ContainerPath", "CreateEnvFile",        "DebugFlags",    "DisableHooks",  "EnvExclude",
      "FileDebug",     "IgnoreFileConfigJson", "MountSpoolDir", "RunTimeCreate", "RunTimeDelete",
      "RunTimeKill",   "RunTimeQuery",         "RunTimeStart",  "SrunPath",      "SrunArgs",
      "StdIODebug",    "SyslogDebug",          "OCIPattern"};
  for (const conf::ConfigLine& line : conf::ReadConfigFile(path, true, diags)) {
    for (const conf::KeyValue& kv : line.pairs) {
      if (EqualsIgnoreCase(kv.key, "RunTimeRun")) {
        oci.run = kv.value;
      } else if (EqualsIgnoreCase(kv.key, "RunTimeEnvExclude")) {
        try {
          std::regex check(kv.value);
          oci.env_exclude = kv.value;
        } catch (const std::regex_error& e) {
          diags.Error(line.where,
                      fmt::format("RunTimeEnvExclude={} is not a regular expression: {}", kv.value,
                                  e.what()));
        }
      } else if (std::any_of(std::begin(kNotActedOn), std::end(kNotActedOn),
                             [&](std::string_view k) { return EqualsIgnoreCase(k, kv.key); })) {
        diags.Warning(line.where, fmt::format("{} is accepted, has no effect in Rota", kv.key));
      } else {
        diags.Warning(line.where, fmt::format("unknown key {} (ignored)", kv.key));
      }
    }
  }
  return oci;
}

std::string ExpandOciPattern(std::string_view pattern, const OciPatternValues& v) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char letter = pattern[++i];
    switch (letter) {
      case '%':
        out += '%';
        break;
      case 'b':
        out += v.bundle;
        break;
      case 'r':
        out += v.rootfs;
        break;
      case 'n':
        out += v.node;
        break;
      case 'u':
        out += v.user;
        break;
      case 'U':
        out += std::to_string(v.uid);
        break;
      case 'j':
        out += std::to_string(v.job_id);
        break;
      case 's':
        out += std::to_string(v.step_id);
        break;
      case 't':
        out += std::to_string(v.task_id);
        break;
      case 'm':
        out += v.spool;
        break;
      default:
        out += '%';
        out += letter;
    }
  }
  return out;
}

}  // namespace rota::noded
