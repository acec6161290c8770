#pragma once

// slurm.conf: global settings, NodeName lines and PartitionName lines.

#include <string_view>
#include <vector>

#include "conf/cluster_config.h"
#include "conf/config_reader.h"
#include "conf/diagnostics.h"

namespace rota::conf {

// Fills config.settings, config.nodes (and node_index) and config.partitions.
// Partition node lists are resolved against the nodes defined anywhere in the
// file; unknown names are reported at the partition's line.
void ParseSlurmConf(const std::vector<ConfigLine>& lines, ClusterConfig& config,
                    Diagnostics& diags);

// The pieces, exposed for the parser above and its tests.
void ApplyGlobalPair(const KeyValue& kv, const SourceLocation& where, SlurmConf& settings,
                     Diagnostics& diags);
// Appends the nodes of one NodeName line; `defaults` are the pairs of earlier
// NodeName=DEFAULT lines.
void ParseNodeLine(const ConfigLine& line, const std::vector<KeyValue>& defaults,
                   ClusterConfig& config, Diagnostics& diags);
void ParsePartitionLine(const ConfigLine& line, const std::vector<KeyValue>& defaults,
                        ClusterConfig& config, Diagnostics& diags);
// Whether `key` is one of a NodeName or a PartitionName line (any case).
bool IsNodeLineKey(std::string_view key);
bool IsPartitionLineKey(std::string_view key);
// Resolves each partition's Nodes= against config.nodes.
void ResolvePartitionNodes(ClusterConfig& config, Diagnostics& diags);
// Nodes without Port= that share an address (several node daemons on one
// host) could not all listen on SlurmdPort: the k-th of them (in file order,
// from 0) gets SlurmdPort + k. Nodes alone on their address keep SlurmdPort.
void AssignSharedHostPorts(ClusterConfig& config);

}  // namespace rota::conf
