#include "sched/node_plan.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace rota::sched {
namespace {

uint32_t CeilDiv(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

uint32_t Popcount(GpuMask m) { return static_cast<uint32_t>(std::popcount(m)); }

// GPUs local to socket `s` among `candidates`.
GpuMask LocalTo(const NodeShape& node, GpuMask candidates, uint32_t s) {
  GpuMask local = 0;
  for (uint32_t i = 0; i < node.gpus.size(); ++i) {
    if (((candidates >> i) & 1u) && InSocketMask(node.gpus[i].socket_mask, s)) {
      local |= GpuMask{1} << i;
    }
  }
  return local;
}

// The lowest `count` members of `mask`.
GpuMask Lowest(GpuMask mask, uint32_t count) {
  GpuMask out = 0;
  while (count-- > 0 && mask != 0) {
    GpuMask bit = mask & (~mask + 1);
    out |= bit;
    mask &= ~bit;
  }
  return out;
}

// Takes up to `want` free slots of socket `s` (lowest ids first) into `out`.
void TakeSlots(const NodeShape& node, const SlotSet& free, uint32_t s, uint32_t& want,
               std::vector<uint32_t>& out) {
  uint32_t begin = s * node.slots_per_socket();
  for (uint32_t i = begin; i < begin + node.slots_per_socket() && want > 0; ++i) {
    if (free.Test(i)) {
      out.push_back(i);
      --want;
    }
  }
}

}  // namespace

GpuMask GpusOfType(const NodeShape& node, int type) {
  if (type == GpuTypes::kAny) {
    return node.gpus.size() >= kMaxGpusPerNode ? ~GpuMask{0} : (GpuMask{1} << node.gpus.size()) - 1;
  }
  GpuMask m = 0;
  for (uint32_t i = 0; i < node.gpus.size(); ++i) {
    if (type == GpuTypes::kAny || node.gpus[i].type == type) m |= GpuMask{1} << i;
  }
  return m;
}

ShareNeeds NeedsOf(const NodeShape& node, const Request& req, NodeShare share) {
  ShareNeeds n;
  n.gpus = req.gpus_per_socket > 0 ? req.gpus_per_socket * std::max(1u, req.sockets_per_node)
                                   : share.gpus;
  uint64_t cpus = std::max<uint64_t>(
      {uint64_t{share.tasks} * req.cpus_per_task, uint64_t{req.cpus_per_gpu} * n.gpus, 1});
  n.slots = req.exclusive ? node.slots() : CeilDiv(cpus, node.cpus_per_slot());
  if (!req.exclusive && req.threads_per_core > 0 && !node.slot_is_thread &&
      req.threads_per_core < node.threads_per_core) {
    // Whole cores for each task, of which it uses threads_per_core threads
    // (Slurm's --hint=nomultithread): its cores are not shared with another.
    const uint64_t task_cores =
        uint64_t{share.tasks} * CeilDiv(uint64_t{req.cpus_per_task}, req.threads_per_core);
    const uint64_t gpu_cores =
        CeilDiv(uint64_t{req.cpus_per_gpu} * n.gpus, uint64_t{req.threads_per_core});
    n.slots = static_cast<uint32_t>(std::max<uint64_t>({task_cores, gpu_cores, 1}));
  }
  switch (req.memory) {
    case MemoryRule::kNone:
      break;
    case MemoryRule::kPerNode:
      n.mem_mb = req.mem_mb;
      break;
    case MemoryRule::kPerCpu:
      n.mem_mb = req.mem_mb * n.slots * node.cpus_per_slot();
      break;
    case MemoryRule::kPerGpu:
      n.mem_mb = req.mem_mb * n.gpus;
      break;
    case MemoryRule::kWholeNode:
      n.mem_mb = node.memory_mb;
      break;
  }
  return n;
}

bool QuickFits(const NodeShape& node, const NodeUsage& usage, const Request& req, NodeShare share) {
  if (req.tasks_per_socket > 0 && share.tasks > uint64_t{node.sockets} * req.tasks_per_socket) {
    return false;
  }
  return FitsNeeds(node, usage, req, NeedsOf(node, req, share));
}

bool FitsNeeds(const NodeShape& node, const NodeUsage& usage, const Request& req,
               const ShareNeeds& n) {
  if (usage.held_exclusively || (req.exclusive && !usage.idle())) return false;
  if (usage.free_count < n.slots || usage.free_mem_mb < n.mem_mb) return false;
  if (n.gpus == 0) return true;
  if (req.gpu_type == GpuTypes::kUnknown) return false;
  return Popcount(usage.free_gpus & GpusOfType(node, req.gpu_type)) >= n.gpus;
}

std::optional<NodeAllocation> PlanNode(const ClusterModel& model, uint32_t index,
                                       const NodeUsage& usage, const Request& req,
                                       NodeShare share) {
  const NodeShape& node = model.nodes[index];
  if (!QuickFits(node, usage, req, share)) return std::nullopt;
  ShareNeeds need = NeedsOf(node, req, share);
  NodeAllocation a;
  a.node = index;
  a.tasks = share.tasks;
  a.mem_mb = need.mem_mb;
  a.exclusive = req.exclusive;
  const GpuMask matching = usage.free_gpus & GpusOfType(node, req.gpu_type);

  // The sockets to draw from, best first.
  std::vector<uint32_t> sockets;
  if (req.gpus_per_socket > 0) {
    // Each chosen socket gives gpus_per_socket of its own GPUs.
    uint32_t wanted = std::max(1u, req.sockets_per_node);
    GpuMask left = matching;
    for (uint32_t s = 0; s < node.sockets && sockets.size() < wanted; ++s) {
      GpuMask local = LocalTo(node, left, s);
      if (Popcount(local) < req.gpus_per_socket) continue;
      GpuMask take = Lowest(local, req.gpus_per_socket);
      a.gpus |= take;
      left &= ~take;
      sockets.push_back(s);
    }
    if (sockets.size() < wanted) return std::nullopt;
  } else if (need.gpus > 0) {
    // One socket holding all the GPUs and the cores, the tightest such;
    // otherwise sockets by their GPUs until both suffice.
    int best = -1;
    for (uint32_t s = 0; s < node.sockets; ++s) {
      uint32_t g = Popcount(LocalTo(node, matching, s));
      if (g < need.gpus || usage.free_per_socket[s] < need.slots) continue;
      if (best < 0 || g < Popcount(LocalTo(node, matching, static_cast<uint32_t>(best))) ||
          (g == Popcount(LocalTo(node, matching, static_cast<uint32_t>(best))) &&
           usage.free_per_socket[s] < usage.free_per_socket[static_cast<size_t>(best)])) {
        best = static_cast<int>(s);
      }
    }
    if (best >= 0) {
      sockets.push_back(static_cast<uint32_t>(best));
    } else {
      std::vector<uint32_t> order(node.sockets);
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        uint32_t gx = Popcount(LocalTo(node, matching, x));
        uint32_t gy = Popcount(LocalTo(node, matching, y));
        return gx != gy ? gx > gy : usage.free_per_socket[x] > usage.free_per_socket[y];
      });
      GpuMask reach = 0;
      uint32_t slots = 0;
      for (uint32_t s : order) {
        if (Popcount(reach) >= need.gpus && slots >= need.slots) break;
        sockets.push_back(s);
        reach |= LocalTo(node, matching, s);
        slots += usage.free_per_socket[s];
      }
    }
    GpuMask reach = 0;
    for (uint32_t s : sockets) reach |= LocalTo(node, matching, s);
    a.gpus = Lowest(reach, need.gpus);
    if (Popcount(a.gpus) < need.gpus) {
      if (req.enforce_binding) return std::nullopt;
      a.gpus |= Lowest(matching & ~a.gpus, need.gpus - Popcount(a.gpus));
    }
  } else if (!req.exclusive) {
    // CPUs only: the tightest socket that holds them all keeps the others whole.
    int best = -1;
    for (uint32_t s = 0; s < node.sockets; ++s) {
      if (usage.free_per_socket[s] < need.slots) continue;
      if (best < 0 || usage.free_per_socket[s] < usage.free_per_socket[static_cast<size_t>(best)]) {
        best = static_cast<int>(s);
      }
    }
    if (best >= 0) sockets.push_back(static_cast<uint32_t>(best));
  }

  if (need.gpus > 0 && req.enforce_binding) {
    // Cores only from the sockets the chosen GPUs are local to.
    uint32_t local = 0;
    for (uint32_t i = 0; i < node.gpus.size(); ++i) {
      if ((a.gpus >> i) & 1u) local |= node.gpus[i].socket_mask;
    }
    std::erase_if(sockets, [&](uint32_t s) { return !InSocketMask(local, s); });
    for (uint32_t s = 0; s < node.sockets; ++s) {
      if (InSocketMask(local, s) && std::find(sockets.begin(), sockets.end(), s) == sockets.end()) {
        sockets.push_back(s);
      }
    }
  }
  uint32_t want = need.slots;
  const uint32_t task_slots = CeilDiv(req.cpus_per_task, node.cpus_per_slot());
  if (req.tasks_per_socket > 0 && need.gpus == 0 && !req.exclusive &&
      uint64_t{share.tasks} * task_slots == need.slots) {
    // --ntasks-per-socket: each socket, in order, takes the cores of at most
    // that many tasks, so the tasks bound to them are spread likewise.
    uint32_t tasks_left = share.tasks;
    for (uint32_t s = 0; s < node.sockets && tasks_left > 0; ++s) {
      const uint32_t here = std::min(
          {req.tasks_per_socket, usage.free_per_socket[s] / std::max(1u, task_slots), tasks_left});
      uint32_t take = here * task_slots;
      want -= take;
      TakeSlots(node, usage.free_slots, s, take, a.slots);
      tasks_left -= here;
    }
    if (tasks_left > 0) return std::nullopt;
    sockets.clear();
  }
  for (uint32_t s : sockets) TakeSlots(node, usage.free_slots, s, want, a.slots);
  if (want > 0) {
    // Cores off the GPUs' sockets: refused under enforce-binding.
    if (need.gpus > 0 && req.enforce_binding) return std::nullopt;
    for (uint32_t s = 0; s < node.sockets && want > 0; ++s) {
      if (std::find(sockets.begin(), sockets.end(), s) == sockets.end()) {
        TakeSlots(node, usage.free_slots, s, want, a.slots);
      }
    }
  }
  if (want > 0) return std::nullopt;
  std::sort(a.slots.begin(), a.slots.end());
  return a;
}

}  // namespace rota::sched
