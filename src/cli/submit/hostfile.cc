#include "cli/submit/hostfile.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "model/task_distribution.h"

namespace rota::cli {

Result<Hostfile> ReadHostfile(const std::string& path, uint32_t tasks) {
  std::ifstream in(path);
  if (!in) return InvalidArgument("cannot read SLURM_HOSTFILE " + path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Result<std::vector<std::string>> hosts = model::ParseHostfile(text, tasks);
  if (!hosts.ok())
    return InvalidArgument("SLURM_HOSTFILE " + path + ": " + hosts.status().message());
  Hostfile out;
  out.task_hosts = std::move(hosts).value();
  for (const std::string& host : out.task_hosts) {
    if (std::find(out.nodes.begin(), out.nodes.end(), host) == out.nodes.end()) {
      out.nodes.push_back(host);
    }
  }
  return out;
}

}  // namespace rota::cli
