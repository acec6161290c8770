#pragma once

// sshare's table over the controller's FairshareResponse, as Slurm 22.05
// prints it: fixed-width columns with headers right-justified, each account
// indented one space per level, or '|'-separated with -p/-P.

#include <string>
#include <vector>

#include "fairshare.pb.h"

namespace rota::cli {

struct SshareOptions {
  // Field names, each optionally "%width" ("Account%30"; "%0": the field's
  // own width); empty: the default
  // (Account User RawShares NormShares RawUsage EffectvUsage FairShare),
  // with `long_format` NormUsage and, under Fair Tree, LevelFS too.
  std::vector<std::string> fields;
  bool long_format = false;
  bool no_header = false;
  bool parsable = false;    // -p: '|' after every field
  bool parsable2 = false;   // -P: '|' between fields
  bool users_only = false;  // -U: the users' rows, not the accounts'
  bool partitions = false;  // -m: the default shows Partition after User
  std::string cluster;      // Cluster's value: the local ClusterName
};

// -e: the field names -o takes, four to a line, as Slurm's sshare lists them.
std::string SshareHelpFormat();

// The whole output, each line ending in '\n'. An unknown field is an error:
// `error` is set and "" returned.
std::string FormatSshare(const wire::FairshareResponse& response, const SshareOptions& options,
                         std::string* error);

}  // namespace rota::cli
