#pragma once
// sacctmgr's command line, parsed into one request, and its listings. Pure:
// the RPC and the prompt live in sacctmgr_main.cc.
//
//   sacctmgr [-i] [-n] [-P|-p] add|create  account|user|qos|cluster NAME[,NAME...] [Key=Value ...]
//   sacctmgr [-n] [-P|-p]      show|list   account|user|qos|cluster [NAME[,NAME...]]
//                                          [where Name=...] [format=Field,Field%N,...]
//   sacctmgr [-i]              delete|remove account|user|qos|cluster [where] Name=NAME,... | NAME
//   sacctmgr [-i]              modify|update account|user|qos [where] NAME... set Key=Value ...
//   sacctmgr [-n] [-P|-p]      show assoc [where User=... Account=...] [format=...]
//   sacctmgr [-n] [-P|-p]      show user [NAME...] withassoc
// A user's settings other than DefaultAccount and AdminLevel are its
// associations'; `where Account=` picks which (modify, delete).
#include <map>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "accounting_admin.pb.h"
#include "cli/accounting/sacct_fields.h"
#include "common/status.h"

namespace rota::cli {

// One column of a listing: header, width, and the stored setting it shows
// ("" for the entity's name).
struct EntityColumn {
  std::string_view name;    // As format= names it
  std::string_view header;  // As printed
  int width;
  std::string_view setting;
  std::string_view alias = {};  // Another name format= may use
};

// A listing of `rows` (setting -> value) with the columns `spec` names from
// `table` ("Name,MaxWall%20"). InvalidArgument for an unknown field.
Result<std::string> RenderTable(const std::vector<EntityColumn>& table, std::string_view spec,
                                SacctLayout layout, bool no_header,
                                const std::vector<std::map<std::string, std::string>>& rows);

enum class SacctmgrVerb { kAdd, kShow, kDelete, kModify };

struct SacctmgrCommand {
  SacctmgrVerb verb = SacctmgrVerb::kShow;
  std::string kind;  // "account", "user", "qos", "cluster", "assoc" (show only)
  std::vector<std::string> names;
  // where Account=... for users (modify, delete) and associations (show);
  // where User=... for associations.
  std::vector<std::string> accounts;
  std::vector<std::string> users;
  std::vector<std::string> clusters;  // where Cluster=... (show assoc)
  bool with_assoc = false;            // show user withassoc
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
