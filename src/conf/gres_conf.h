#pragma once

// gres.conf: how each node's generic resources (GPUs above all) map to devices.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "conf/diagnostics.h"

namespace rota::conf {

// One device (or, for count-only GRES, one counted pool) on one node.
struct GresDevice {
  std::string name;  // "gpu"
  std::string type;  // "a100"; empty when untyped
  std::string file;  // "/dev/nvidia3"; empty for count-only GRES
  // MultipleFiles= beyond the first (which is `file`): one device reached
  // through several files, e.g. a MIG instance's parent GPU and capabilities.
  std::vector<std::string> more_files;
  std::vector<uint32_t> cores;     // Cores= affinity (core indices); empty: any
  uint64_t count = 1;              // 1 per file; Count= for count-only GRES
  std::vector<std::string> flags;  // Flags=
  SourceLocation where;            // The gres.conf line that declared it
};

struct GresConf {
  // AutoDetect=nvml|off|... as given on a global line ("" when never given).
  std::string autodetect;
  // AutoDetect given on NodeName lines, per node.
  std::map<std::string, std::string> autodetect_by_node;
  // Devices per node name, in file order. Lines without NodeName= apply to
  // every node of slurm.conf.
  std::map<std::string, std::vector<GresDevice>> devices_by_node;

  const std::vector<GresDevice>* DevicesOf(const std::string& node) const;
  // The AutoDetect mode in force for `node`.
  std::string AutoDetectFor(const std::string& node) const;
};

}  // namespace rota::conf
