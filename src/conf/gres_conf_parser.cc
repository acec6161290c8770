#include "conf/gres_conf_parser.h"

#include <fmt/format.h>

#include "common/gres_spec.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/key_table.h"
#include "conf/unenforced_keys.h"

namespace rota::conf {
namespace {

// One gres.conf line before it is spread over its nodes and files.
struct GresLine {
  std::string node_names;
  std::string name;
  std::string type;
  std::string files;
  std::string multiple_files;  // MultipleFiles=: the files of one device
  std::vector<uint32_t> cores;
  std::optional<uint64_t> count;
  std::vector<std::string> flags;
  std::string autodetect;
};

Status ParseCount(std::string_view v, std::optional<uint64_t>& out) {
  Result<uint64_t> count = ParseGresCount(v);
  if (!count.ok()) return InvalidArgument("is not a count");
  out = *count;
  return Status::Ok();
}

const KeyTable<GresLine>& GresKeys() {
  using L = GresLine;
  static const KeyTable<L> table{
      {"NodeName", StringField(&L::node_names)},
      {"Name", StringField(&L::name)},
      {"Type", StringField(&L::type)},
      {"File", StringField(&L::files)},
      {"Files", StringField(&L::files)},
      {"MultipleFiles", StringField(&L::multiple_files)},
      {"Cores", [](L& l, std::string_view v) { return ParseIndexListValue(v, l.cores); }},
      {"CPUs", [](L& l, std::string_view v) { return ParseIndexListValue(v, l.cores); }},
      {"Count", [](L& l, std::string_view v) { return ParseCount(v, l.count); }},
      {"Flags",
       ChoiceListField(&L::flags, {"CountOnly", "nvidia_gpu_env", "amd_gpu_env", "intel_gpu_env",
                                   "opencl_env", "no_gpu_env", "one_sharing", "all_sharing"})},
      {"AutoDetect", ChoiceField(&L::autodetect, {"nvml", "rsmi", "oneapi", "nrt", "off"})},
  };
  return table;
}

bool InGresTypes(const ClusterConfig& config, const std::string& name) {
  for (const std::string& t : config.settings.gres_types) {
    if (EqualsIgnoreCase(t, name)) return true;
  }
  return false;
}

}  // namespace

GresConf ParseGresConf(const std::vector<ConfigLine>& lines, const ClusterConfig& config,
                       Diagnostics& diags) {
  GresConf gres;
  for (const ConfigLine& line : lines) {
    GresLine l;
    for (const KeyValue& kv : line.pairs) {
      bool known = GresKeys().Apply(kv, l, line.where, diags);
      if (!WarnIfUnenforced(KeyPlace::kGresConf, kv.key, kv.value, line.where, diags) && !known) {
        diags.Warning(line.where, fmt::format("unknown key {} (ignored)", kv.key));
      }
    }

    // The nodes this line speaks for: its NodeName= list, or every node.
    std::vector<std::string> nodes;
    if (l.node_names.empty()) {
      for (const NodeConfig& n : config.nodes) nodes.push_back(n.name);
    } else {
      Result<std::vector<std::string>> names = ExpandHostlist(l.node_names);
      if (!names.ok()) {
        diags.Error(line.where,
                    fmt::format("NodeName={}: {}", l.node_names, names.status().message()));
        continue;
      }
      std::vector<std::string> unknown;
      for (std::string& n : *names) {
        if (config.node_index.count(n) == 0) {
          unknown.push_back(n);
        } else {
          nodes.push_back(std::move(n));
        }
      }
      if (!unknown.empty()) {
        diags.Warning(line.where, fmt::format("NodeName= names {} that slurm.conf does not define "
                                              "(ignored)",
                                              CompressHostlist(unknown)));
      }
    }

    if (!l.autodetect.empty()) {
      if (l.node_names.empty()) {
        gres.autodetect = l.autodetect;
      } else {
        for (const std::string& n : nodes) gres.autodetect_by_node[n] = l.autodetect;
      }
    }
    if (l.name.empty()) {
      if (l.autodetect.empty()) diags.Error(line.where, "Name= is missing");
      continue;
    }
    if (!InGresTypes(config, l.name)) {
      diags.Error(line.where,
                  fmt::format("Name={} is not listed in GresTypes of slurm.conf", l.name));
      continue;
    }

    std::vector<std::string> files;
    if (!l.files.empty()) {
      Result<std::vector<std::string>> expanded = ExpandHostlist(l.files);
      if (!expanded.ok()) {
        diags.Error(line.where, fmt::format("File={}: {}", l.files, expanded.status().message()));
        continue;
      }
      files = std::move(expanded).value();
      if (l.count && *l.count != files.size()) {
        diags.Error(line.where, fmt::format("Count={} does not match the {} devices of File={}",
                                            *l.count, files.size(), l.files));
        continue;
      }
    }

    // MultipleFiles= is one device with several files (Slurm: a MIG instance
    // with its parent GPU and capability files), so it excludes File=.
    std::vector<std::string> one_device_files;
    if (!l.multiple_files.empty()) {
      if (!l.files.empty()) {
        diags.Error(line.where, "File= and MultipleFiles= cannot be given together");
        continue;
      }
      Result<std::vector<std::string>> expanded = ExpandHostlist(l.multiple_files);
      if (!expanded.ok()) {
        diags.Error(line.where, fmt::format("MultipleFiles={}: {}", l.multiple_files,
                                            expanded.status().message()));
        continue;
      }
      if (l.count && *l.count != 1) {
        diags.Error(
            line.where,
            fmt::format("Count={} with MultipleFiles=: the files are one device", *l.count));
        continue;
      }
      one_device_files = std::move(expanded).value();
    }

    for (const std::string& node : nodes) {
      std::vector<GresDevice>& devices = gres.devices_by_node[node];
      GresDevice d{l.name, l.type, "", {}, l.cores, 1, l.flags, line.where};
      if (!one_device_files.empty()) {
        d.file = one_device_files.front();
        d.more_files.assign(one_device_files.begin() + 1, one_device_files.end());
        devices.push_back(d);
        continue;
      }
      if (files.empty()) {
        d.count = l.count.value_or(1);
        devices.push_back(d);
        continue;
      }
      for (const std::string& f : files) {
        d.file = f;
        devices.push_back(d);
      }
    }
  }
  return gres;
}

}  // namespace rota::conf
