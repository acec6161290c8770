#include "cli/scontrol_hostlist.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::cli {
namespace {

// An argument with a '/' that names a readable file stands for the names in it.
std::string ExpressionFromArgument(const std::string& arg) {
  if (arg.find('/') == std::string::npos) return arg;
  std::ifstream in(arg);
  if (!in) return arg;
  std::stringstream text;
  text << in.rdbuf();
  std::string joined;
  std::string word;
  while (text >> word) joined += (joined.empty() ? "" : ",") + word;
  return joined;
}

}  // namespace

std::string DefaultHostnamesList(const char* job_nodelist, const char* nodelist) {
  for (const char* value : {job_nodelist, nodelist}) {
    if (value != nullptr && *value != '\0') return value;
  }
  return "";
}

int ShowHostlist(const std::string& entity, const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  std::string expr;
  if (!args.empty()) {
    expr = ExpressionFromArgument(args.front());
  } else if (EqualsIgnoreCase(entity, "hostnames") &&
             !DefaultHostnamesList(std::getenv("SLURM_JOB_NODELIST"), std::getenv("SLURM_NODELIST"))
                  .empty()) {
    expr = DefaultHostnamesList(std::getenv("SLURM_JOB_NODELIST"), std::getenv("SLURM_NODELIST"));
  } else {
    err << "scontrol: error: host list required\n";
    return 1;
  }
  Result<std::vector<std::string>> hosts = ExpandHostlist(expr);
  if (!hosts.ok()) {
    err << "scontrol: error: " << hosts.status().message() << '\n';
    return 1;
  }
  if (EqualsIgnoreCase(entity, "hostnames")) {
    for (const std::string& h : *hosts) out << h << '\n';
    return 0;
  }
  HostlistOrder order =
      EqualsIgnoreCase(entity, "hostlistsorted") ? HostlistOrder::kSorted : HostlistOrder::kAsGiven;
  out << CompressHostlist(*hosts, order) << '\n';
  return 0;
}

}  // namespace rota::cli
