#include "model/task_distribution.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::model {

namespace {

// The sockets or cores level: "*" leaves the default. Words in any case.
bool ParseInnerLevel(std::string_view word, TaskDistribution::SocketLevel& level) {
  if (word == "*") return true;
  if (EqualsIgnoreCase(word, "block")) {
    level = TaskDistribution::kSocketBlock;
  } else if (EqualsIgnoreCase(word, "cyclic")) {
    level = TaskDistribution::kSocketCyclic;
  } else if (EqualsIgnoreCase(word, "fcyclic")) {
    level = TaskDistribution::kSocketFcyclic;
  } else {
    return false;
  }
  return true;
}

}  // namespace

Result<TaskDistribution> ParseTaskDistribution(std::string_view text) {
  const Status invalid = InvalidArgument("Invalid --distribution specification");
  // ",Pack" and ",NoPack" (the node level's packing) change nothing here.
  if (const size_t comma = text.find(','); comma != std::string_view::npos) {
    const std::string_view pack = text.substr(comma + 1);
    if (!EqualsIgnoreCase(pack, "pack") && !EqualsIgnoreCase(pack, "nopack")) return invalid;
    text = text.substr(0, comma);
  }
  std::vector<std::string_view> levels = Split(text, ':');
  if (levels.size() > 3) return invalid;
  TaskDistribution d;
  TaskDistribution::SocketLevel cores = TaskDistribution::kSocketCyclic;
  if ((levels.size() > 1 && !ParseInnerLevel(levels[1], d.sockets)) ||
      (levels.size() > 2 && !ParseInnerLevel(levels[2], cores))) {
    return invalid;
  }
  const std::string_view node_level = levels.empty() ? std::string_view() : levels[0];
  if (node_level.empty() && levels.size() > 1) return invalid;  // ":cyclic"
  if (node_level.empty() || node_level == "*" || EqualsIgnoreCase(node_level, "block")) return d;
  if (EqualsIgnoreCase(node_level, "cyclic")) {
    d.kind = TaskDistribution::kCyclic;
    return d;
  }
  if (StartsWithIgnoreCase(node_level, "plane=")) {
    std::optional<uint64_t> n = ParseUint(node_level.substr(6));
    if (n && *n > 0 && *n <= 1000000) {
      d.kind = TaskDistribution::kPlane;
      d.plane = static_cast<uint32_t>(*n);
      return d;
    }
  }
  if (EqualsIgnoreCase(node_level, "arbitrary")) {
    d.kind = TaskDistribution::kArbitrary;
    return d;
  }
  return invalid;
}

std::vector<uint32_t> TasksPerNode(uint32_t tasks, const std::vector<uint32_t>& capacity,
                                   const TaskDistribution& distribution) {
  const size_t nodes = capacity.size();
  std::vector<uint32_t> per_node(nodes, 1);
  uint32_t left = tasks - static_cast<uint32_t>(nodes);
  if (distribution.kind == TaskDistribution::kBlock ||
      distribution.kind == TaskDistribution::kArbitrary) {
    for (size_t i = 0; i < nodes && left > 0; ++i) {
      const uint32_t more = std::min(capacity[i] - 1, left);
      per_node[i] += more;
      left -= more;
    }
    return per_node;
  }
  // Dealt round the nodes with room, one (cyclic) or a plane at a time; the
  // first round's one each is already given.
  const uint32_t deal = distribution.kind == TaskDistribution::kPlane ? distribution.plane : 1;
  if (deal > 1) {
    // A plane's first block on each node: the rest of it, as far as it fits.
    for (size_t i = 0; i < nodes && left > 0; ++i) {
      const uint32_t more = std::min({deal - 1, capacity[i] - per_node[i], left});
      per_node[i] += more;
      left -= more;
    }
  }
  while (left > 0) {
    bool dealt = false;
    for (size_t i = 0; i < nodes && left > 0; ++i) {
      const uint32_t more = std::min({deal, capacity[i] - per_node[i], left});
      per_node[i] += more;
      left -= more;
      dealt = dealt || more > 0;
    }
    if (!dealt) break;  // No room left anywhere (the caller checked the sum)
  }
  return per_node;
}

std::vector<uint32_t> TaskIds(const std::vector<uint32_t>& tasks_per_node,
                              const TaskDistribution& distribution) {
  const size_t nodes = tasks_per_node.size();
  std::vector<std::vector<uint32_t>> on(nodes);
  uint32_t total = 0;
  for (uint32_t n : tasks_per_node) total += n;
  if (distribution.kind == TaskDistribution::kBlock ||
      distribution.kind == TaskDistribution::kArbitrary) {
    uint32_t next = 0;
    for (size_t i = 0; i < nodes; ++i) {
      for (uint32_t k = 0; k < tasks_per_node[i]; ++k) on[i].push_back(next++);
    }
  } else {
    const uint32_t deal = distribution.kind == TaskDistribution::kPlane ? distribution.plane : 1;
    uint32_t next = 0;
    while (next < total) {
      for (size_t i = 0; i < nodes && next < total; ++i) {
        for (uint32_t k = 0; k < deal && on[i].size() < tasks_per_node[i] && next < total; ++k) {
          on[i].push_back(next++);
        }
      }
    }
  }
  std::vector<uint32_t> ids;
  ids.reserve(total);
  for (const std::vector<uint32_t>& list : on) ids.insert(ids.end(), list.begin(), list.end());
  return ids;
}

std::vector<uint32_t> StepTaskIdsOnNode(const wire::JobStepRecord& step, int node) {
  uint32_t first = 0;
  for (int i = 0; i < node && i < step.tasks_per_node_size(); ++i) first += step.tasks_per_node(i);
  const uint32_t count = node < step.tasks_per_node_size() ? step.tasks_per_node(node) : 0;
  std::vector<uint32_t> ids;
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t at = first + k;
    ids.push_back(static_cast<int>(at) < step.task_ids_size() ? step.task_ids(static_cast<int>(at))
                                                              : at);
  }
  return ids;
}

Result<std::vector<std::string>> ParseHostfile(std::string_view text, uint32_t tasks) {
  std::vector<std::string> hosts;
  for (std::string_view line : Split(text, '\n')) {
    line = Trim(line.substr(0, line.find('#')));
    for (std::string_view item : SplitOutsideBrackets(line, ',')) {
      item = Trim(item);
      if (item.empty()) continue;
      Result<std::vector<std::string>> names = ExpandHostlist(item);
      if (!names.ok()) return names.status();
      hosts.insert(hosts.end(), names->begin(), names->end());
      // Bounded by the tasks a step may have, whatever the file holds.
      if (hosts.size() > (1u << 20)) return InvalidArgument("the hostfile names too many hosts");
    }
  }
  if (hosts.empty()) return InvalidArgument("the hostfile names no host");
  if (tasks > hosts.size()) {
    return InvalidArgument(fmt::format("the hostfile names {} hosts, fewer than the {} tasks asked",
                                       hosts.size(), tasks));
  }
  if (tasks > 0) hosts.resize(tasks);
  return hosts;
}

std::string_view LayoutName(const TaskDistribution& distribution) {
  switch (distribution.kind) {
    case TaskDistribution::kCyclic:
      return "Cyclic";
    case TaskDistribution::kPlane:
      return "Plane";
    case TaskDistribution::kArbitrary:
      return "Arbitrary";
    case TaskDistribution::kBlock:
      break;
  }
  return "Block";
}

}  // namespace rota::model
