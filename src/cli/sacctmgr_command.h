#pragma once
// sacctmgr's command line, parsed into one request, and its listings. Pure:
// the RPC and the prompt live in sacctmgr_main.cc.
//
//   sacctmgr [-i] [-n] [-P|-p] add|create  account|user|qos NAME[,NAME...] [Key=Value ...]
//   sacctmgr [-n] [-P|-p]      show|list   account|user|qos [NAME[,NAME...]] [where Name=...]
//                                          [format=Field,Field%N,...]
//   sacctmgr [-i]              delete|remove account|user|qos [where] Name=NAME[,NAME...] | NAME
//   sacctmgr [-i]              modify|update account|user|qos [where] NAME... set Key=Value ...
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "accounting_admin.pb.h"
#include "cli/sacct_fields.h"
#include "common/status.h"

namespace rota::cli {

enum class SacctmgrVerb { kAdd, kShow, kDelete, kModify };

struct SacctmgrCommand {
  SacctmgrVerb verb = SacctmgrVerb::kShow;
  std::string kind;  // "account", "user", "qos"
  std::vector<std::string> names;
  // add, modify (after `set`): Key=Value as typed.
  std::vector<std::pair<std::string, std::string>> settings;
  std::string format;  // show: format=
};

// `words`: the arguments after the options. InvalidArgument with a message
// for the user.
Result<SacctmgrCommand> ParseSacctmgrCommand(const std::vector<std::string>& words);

// The entities to add (settings as typed; rotadbd checks and completes them).
std::vector<wire::AcctEntity> EntitiesToAdd(const SacctmgrCommand& command);

// `sacctmgr show KIND`: Slurm's default columns for the kind, or `format`.
Result<std::string> RenderEntities(const std::string& kind, const std::string& format,
                                   SacctLayout layout, bool no_header,
                                   const std::vector<wire::AcctEntity>& entities);

// The modify request: names and settings (an empty value clears one).
wire::ModifyEntitiesRequest ModifyRequest(const SacctmgrCommand& command);

// " Adding Account(s)\n  physics\n" and the like.
std::string DescribeAdd(const SacctmgrCommand& command);

}  // namespace rota::cli
