#include "sched/select.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <tuple>

#include "sched/node_plan.h"

namespace rota::sched {
namespace {

struct Candidate {
  uint32_t node = 0;
  uint32_t task_cap = 1;  // Tasks it can hold (when tasks are spread freely)
  uint32_t gpu_cap = 0;   // --gpus GPUs it can give
  // Preference: Weight, the caller's rank (NodeRank), then the tightest fit.
  std::tuple<uint32_t, uint64_t, uint32_t, uint32_t, MemoryMb, uint32_t> key;
};

// What a set of candidates adds up to, to test "is this enough" per leaf or
// switch without trying a placement.
struct Sum {
  uint32_t nodes = 0;
  uint64_t tasks = 0;
  uint64_t gpus = 0;
};

// The largest n in [lo, hi] for which fits(n) holds, given fits(lo) and that
// fits is monotone (more tasks or GPUs never fit where fewer did not).
template <typename Fits>
uint32_t LargestFitting(uint32_t lo, uint32_t hi, Fits fits) {
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

class Chooser {
 public:
  static constexpr size_t kAttempts = 8;  // Placements Place tries
  Chooser(const ClusterModel& model, const std::vector<NodeUsage>& usage, const Request& req,
          size_t bracket_choice, const NodeRank* rank = nullptr)
      : model_(model), usage_(usage), req_(req), choice_(bracket_choice), rank_(rank) {}

  // Run for a request WalksInOrder accepts, over the nodes set in `among`
  // (and `also`): the nodes are assessed best first, and only until Place
  // has every node it could choose.
  Selection RunOrdered(const NodeOrder& order, const std::vector<uint64_t>& among,
                       const std::vector<uint64_t>* also) {
    const bool fixed = req_.nodes_fixed;
    // Place drops a node whose exact placement fails and chooses again, at
    // most kAttempts times: the best N plus that many more are all it sees
    // of a fixed count; one node that holds the job alone per attempt
    // otherwise.
    const size_t want = fixed ? size_t{req_.nodes} + kAttempts : kAttempts;
    uint32_t t0 = MinTasks();
    uint32_t min_gpus = req_.gpus_per_socket > 0
                            ? req_.gpus_per_socket * std::max(1u, req_.sockets_per_node)
                            : FixedGpus(t0) + MinJobGpus();
    uint64_t cpus = std::max<uint64_t>(
        {uint64_t{t0} * req_.cpus_per_task, uint64_t{req_.cpus_per_gpu} * min_gpus, 1});
    uint32_t min_slots = req_.exclusive
                             ? 0
                             : static_cast<uint32_t>((cpus + order.max_cpus_per_slot() - 1) /
                                                     order.max_cpus_per_slot());
    std::vector<Candidate> fit;
    fit.reserve(want);
    size_t alone = 0;
    order.Walk(min_gpus, min_slots, [&](uint32_t n) {
      auto set = [n](const std::vector<uint64_t>& bits) { return (bits[n >> 6] >> (n & 63)) & 1u; };
      if (!set(among) || (also != nullptr && !set(*also))) return true;
      if (std::binary_search(req_.excluded_nodes.begin(), req_.excluded_nodes.end(), n)) {
        return true;
      }
      std::optional<Candidate> c = Assess(n);
      if (!c) return true;
      fit.push_back(*c);
      if (fixed) return fit.size() < want;
      Sum s;
      Add(s, *c);
      if (Enough(s)) ++alone;
      return alone < want;
    });
    return Place(std::move(fit), std::vector<bool>(model_.nodes.size(), false));
  }

  Selection Run(const std::vector<uint32_t>& candidates) {
    Selection out;
    std::vector<Candidate> fit;
    fit.reserve(candidates.size());
    std::vector<bool> required(model_.nodes.size(), false);
    for (uint32_t r : req_.required_nodes) required[r] = true;
    for (uint32_t n : candidates) {
      if (std::binary_search(req_.excluded_nodes.begin(), req_.excluded_nodes.end(), n)) continue;
      std::optional<Candidate> c = Assess(n);
      if (c) {
        fit.push_back(*c);
      } else if (required[n]) {
        out.detail = "required node " + model_.nodes[n].name + " cannot hold the job now";
        return out;
      }
    }
    for (uint32_t r : req_.required_nodes) {
      if (std::none_of(fit.begin(), fit.end(), [&](const Candidate& c) { return c.node == r; })) {
        out.detail = "required node " + model_.nodes[r].name + " is not available";
        return out;
      }
    }
    // --spread-job sets topology aside, as Slurm's does.
    if (!model_.switches.empty() && !req_.spread_job) return WithTopology(fit, required);
    return Place(std::move(fit), required);
  }

 private:
  uint32_t MinTasks() const { return req_.tasks_per_node > 0 ? req_.tasks_per_node : 1; }
  uint32_t MinJobGpus() const {
    if (req_.gpus_per_job == 0) return 0;
    return !req_.nodes_fixed || req_.gpus_per_job >= req_.nodes ? 1 : 0;
  }
  uint32_t FixedGpus(uint32_t tasks) const {
    return req_.gpus_per_node + req_.gpus_per_task * tasks;
  }

  // NeedsOf the smallest share, computed again only when the node's layout
  // differs from the last one asked about.
  const ShareNeeds& SmallestShareNeeds(const NodeShape& node) const {
    auto layout = std::make_tuple(node.cpus_per_slot(), node.slots(), node.memory_mb);
    if (!cached_layout_ || *cached_layout_ != layout) {
      uint32_t t0 = MinTasks();
      cached_needs_ = NeedsOf(node, req_, {t0, FixedGpus(t0) + MinJobGpus()});
      cached_layout_ = layout;
    }
    return cached_needs_;
  }

  // Whether node `n` can take the smallest share, with its capacities.
  std::optional<Candidate> Assess(uint32_t n) const {
    const NodeShape& node = model_.nodes[n];
    const NodeUsage& u = usage_[n];
    if (!req_.constraint.empty() &&
        !req_.constraint.Matches([&](const std::string& f) { return node.HasFeature(f); },
                                 choice_)) {
      return std::nullopt;
    }
    uint32_t t0 = MinTasks();
    if (!FitsNeeds(node, u, req_, SmallestShareNeeds(node))) return std::nullopt;
    Candidate c;
    c.node = n;
    c.task_cap = t0;
    if (req_.tasks_per_node == 0 && req_.tasks > 1) {
      // The most tasks it holds: fits is monotone in the task count.
      c.task_cap = LargestFitting(t0, req_.tasks, [&](uint32_t t) {
        return QuickFits(node, u, req_, {t, FixedGpus(t) + MinJobGpus()});
      });
    }
    if (req_.gpus_per_job > 0) {
      c.gpu_cap = LargestFitting(MinJobGpus(), req_.gpus_per_job, [&](uint32_t g) {
        return QuickFits(node, u, req_, {t0, FixedGpus(t0) + g});
      });
    }
    GpuMask of_type = req_.wants_gpus() ? GpusOfType(node, req_.gpu_type) : ~GpuMask{0};
    c.key = {node.weight,
             rank_ != nullptr && *rank_ ? (*rank_)(n) : 0,
             static_cast<uint32_t>(std::popcount(u.free_gpus & of_type)),
             u.free_count,
             u.free_mem_mb,
             n};
    return c;
  }

  bool Enough(const Sum& s) const {
    return s.tasks >= req_.tasks && s.gpus >= req_.gpus_per_job && s.nodes >= req_.nodes;
  }
  // --spread-job with a free node count: another node is welcome while
  // there are more tasks than nodes and the limit allows.
  bool Spreads(const Sum& s) const {
    return req_.spread_job && !req_.nodes_fixed && s.nodes < req_.tasks && !TooMany(s.nodes + 1);
  }
  bool TooMany(uint32_t nodes) const {
    if (req_.nodes_fixed) return nodes > req_.nodes;
    return req_.max_nodes > 0 && nodes > req_.max_nodes;
  }
  static void Add(Sum& s, const Candidate& c) {
    ++s.nodes;
    s.tasks += c.task_cap;
    s.gpus += c.gpu_cap;
  }

  // Picks nodes from `fit` (required ones first, counted features next, then
  // by preference), spreads tasks and GPUs and places each share. A node that
  // fails its exact placement is dropped and the choice made again.
  Selection Place(std::vector<Candidate> fit, const std::vector<bool>& required) {
    Selection out;
    // Places `chosen`; false when a node of it failed and was dropped from
    // `fit` (choose again), true when `out` is the answer.
    auto placed = [&](const std::vector<const Candidate*>& chosen) {
      std::optional<uint32_t> failed;
      Allocation a = Spread(chosen, failed);
      if (!failed) {
        out.allocation = std::move(a);
        out.detail.clear();
        return true;
      }
      if (required[*failed]) {
        out.detail = "required node " + model_.nodes[*failed].name + " cannot hold the job now";
        return true;
      }
      fit.erase(std::remove_if(fit.begin(), fit.end(),
                               [&](const Candidate& c) { return c.node == *failed; }),
                fit.end());
      return false;
    };
    for (size_t attempt = 0; attempt < kAttempts && req_.contiguous; ++attempt) {
      std::vector<const Candidate*> run = ContiguousRun(fit);
      if (run.empty()) {
        out.detail = "no run of contiguous nodes can hold the job now";
        return out;
      }
      if (placed(run)) return out;
    }
    for (size_t attempt = 0; attempt < kAttempts && !req_.contiguous; ++attempt) {
      // Only the best few need order for most jobs: sort a prefix now and the
      // rest when the walk below gets there.
      auto by_key = [](const Candidate& a, const Candidate& b) { return a.key < b.key; };
      size_t sorted = fit.size();
      if (req_.constraint.counts().empty() && req_.nodes_fixed) {
        sorted = std::min(fit.size(), size_t{req_.nodes} * 2 + 16);
        std::partial_sort(fit.begin(), fit.begin() + static_cast<long>(sorted), fit.end(), by_key);
      } else {
        std::sort(fit.begin(), fit.end(), by_key);
      }
      auto ensure_sorted = [&](size_t i) {
        if (i >= sorted && sorted < fit.size()) {
          std::sort(fit.begin() + static_cast<long>(sorted), fit.end(), by_key);
          sorted = fit.size();
        }
      };
      std::vector<const Candidate*> chosen;
      std::vector<bool> taken(fit.size(), false);
      Sum sum;
      auto take = [&](size_t i) {
        taken[i] = true;
        chosen.push_back(&fit[i]);
        Add(sum, fit[i]);
      };
      for (size_t i = 0; i < fit.size(); ++i) {
        if (required[fit[i].node]) take(i);
      }
      if (!req_.nodes_fixed && !req_.spread_job && chosen.empty() &&
          req_.constraint.counts().empty()) {
        // A free node count packs the job: one node when one can hold it all
        // (the tightest such), before spreading it over several.
        for (size_t i = 0; i < fit.size(); ++i) {
          Sum alone;
          Add(alone, fit[i]);
          if (Enough(alone)) {
            take(i);
            sum = alone;
            break;
          }
        }
      }
      for (const FeatureExpr::Count& count : req_.constraint.counts()) {
        uint32_t have = 0;
        for (const Candidate* c : chosen) have += model_.nodes[c->node].HasFeature(count.feature);
        for (size_t i = 0; i < fit.size() && have < count.nodes; ++i) {
          if (!taken[i] && model_.nodes[fit[i].node].HasFeature(count.feature)) {
            take(i);
            ++have;
          }
        }
        if (have < count.nodes) {
          out.detail = "fewer than " + std::to_string(count.nodes) + " nodes with " + count.feature;
          return out;
        }
      }
      for (size_t i = 0; i < fit.size() && (!Enough(sum) || Spreads(sum)); ++i) {
        ensure_sorted(i);
        if (!taken[i] && !(req_.nodes_fixed && sum.nodes >= req_.nodes)) take(i);
      }
      if (!Enough(sum) && req_.nodes_fixed && sum.nodes == req_.nodes) {
        // The preferred nodes are too small together: the biggest ones instead.
        chosen.erase(chosen.begin() + static_cast<long>(req_.required_nodes.size()), chosen.end());
        std::vector<size_t> order(fit.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
          return std::tie(fit[a].task_cap, fit[a].gpu_cap) >
                 std::tie(fit[b].task_cap, fit[b].gpu_cap);
        });
        sum = {};
        for (const Candidate* c : chosen) Add(sum, *c);
        for (size_t i : order) {
          if (sum.nodes >= req_.nodes) break;
          if (required[fit[i].node]) continue;
          chosen.push_back(&fit[i]);
          Add(sum, fit[i]);
        }
      }
      if (!Enough(sum) || TooMany(sum.nodes)) {
        if (out.detail.empty()) out.detail = "not enough free resources";
        return out;
      }
      if (placed(chosen)) return out;
    }
    out.detail = "no placement found";
    return out;
  }

  // --contiguous: the job's nodes must follow one another in the
  // configuration's order. The shortest run of consecutive candidates that
  // is enough and holds every required node, the first such in that order;
  // empty when there is none.
  std::vector<const Candidate*> ContiguousRun(std::vector<Candidate>& fit) const {
    std::sort(fit.begin(), fit.end(),
              [](const Candidate& a, const Candidate& b) { return a.node < b.node; });
    size_t best_start = 0, best_length = 0;
    for (size_t start = 0; start < fit.size(); ++start) {
      Sum sum;
      for (size_t end = start; end < fit.size(); ++end) {
        if (end > start && fit[end].node != fit[end - 1].node + 1) break;
        Add(sum, fit[end]);
        if (TooMany(sum.nodes) || (best_length > 0 && end - start + 1 >= best_length)) break;
        if (!Enough(sum)) continue;
        const bool holds_required =
            std::all_of(req_.required_nodes.begin(), req_.required_nodes.end(),
                        [&](uint32_t r) { return fit[start].node <= r && r <= fit[end].node; });
        if (holds_required) {
          best_start = start;
          best_length = end - start + 1;
        }
        break;
      }
    }
    std::vector<const Candidate*> run;
    for (size_t i = best_start; i < best_start + best_length; ++i) run.push_back(&fit[i]);
    return run;
  }

  // Tasks and --gpus spread over the chosen nodes: one each first (as Slurm
  // gives every node a task), then filling nodes in order up to what each
  // holds. Sets `failed` to a node whose exact placement failed.
  Allocation Spread(const std::vector<const Candidate*>& chosen, std::optional<uint32_t>& failed) {
    size_t n = chosen.size();
    std::vector<uint32_t> tasks(n, MinTasks());
    std::vector<uint32_t> gpus(n, MinJobGpus());
    // Hands out what is left of `total` beyond what `given` holds, node by node
    // up to each one's capacity.
    auto fill = [&](std::vector<uint32_t>& given, uint64_t total, uint32_t Candidate::*cap) {
      uint64_t already = 0;
      for (uint32_t g : given) already += g;
      uint64_t left = total > already ? total - already : 0;
      for (size_t i = 0; i < n && left > 0; ++i) {
        uint32_t more = static_cast<uint32_t>(std::min<uint64_t>(left, chosen[i]->*cap - given[i]));
        given[i] += more;
        left -= more;
      }
    };
    if (req_.tasks_per_node == 0 && req_.spread_job) {
      // Dealt one at a time around the nodes, as evenly as they hold them.
      uint64_t left = req_.tasks > n * uint64_t{MinTasks()} ? req_.tasks - n * MinTasks() : 0;
      while (left > 0) {
        bool dealt = false;
        for (size_t i = 0; i < n && left > 0; ++i) {
          if (tasks[i] < chosen[i]->task_cap) {
            ++tasks[i];
            --left;
            dealt = true;
          }
        }
        if (!dealt) break;
      }
    } else if (req_.tasks_per_node == 0) {
      fill(tasks, req_.tasks, &Candidate::task_cap);
    }
    if (req_.gpus_per_job > 0) fill(gpus, req_.gpus_per_job, &Candidate::gpu_cap);
    Allocation a;
    for (size_t i = 0; i < n; ++i) {
      uint32_t node = chosen[i]->node;
      std::optional<NodeAllocation> placed =
          PlanNode(model_, node, usage_[node], req_, {tasks[i], FixedGpus(tasks[i]) + gpus[i]});
      if (!placed) {
        failed = node;
        return a;
      }
      a.nodes.push_back(std::move(*placed));
    }
    return a;
  }

  // topology/tree: the fewest leaf switches that can hold the job, under the
  // lowest switch that can; a single leaf when one suffices (the tightest).
  Selection WithTopology(std::vector<Candidate>& fit, const std::vector<bool>& required) {
    const size_t switches = model_.switches.size();
    std::vector<Sum> sums(switches);
    std::vector<std::vector<size_t>> members(switches);  // Candidates per leaf
    std::vector<Candidate> unplaced;
    for (size_t i = 0; i < fit.size(); ++i) {
      int leaf = model_.nodes[fit[i].node].leaf;
      if (leaf < 0) continue;
      members[static_cast<size_t>(leaf)].push_back(i);
      for (int s = leaf; s >= 0; s = model_.switches[static_cast<size_t>(s)].parent) {
        Add(sums[static_cast<size_t>(s)], fit[i]);
      }
    }
    // Required nodes pin their leaves; plain choice only without them.
    int best = -1;
    if (req_.required_nodes.empty()) {
      for (size_t s = 0; s < switches; ++s) {
        if (!Enough(sums[s])) continue;
        if (best < 0) {
          best = static_cast<int>(s);
          continue;
        }
        const SwitchShape& a = model_.switches[s];
        const SwitchShape& b = model_.switches[static_cast<size_t>(best)];
        if (a.level < b.level ||
            (a.level == b.level && sums[s].nodes < sums[static_cast<size_t>(best)].nodes)) {
          best = static_cast<int>(s);
        }
      }
    }
    std::vector<Candidate> subset;
    uint32_t leaves = 0;
    if (best < 0) {
      subset = fit;
    } else {
      // The leaves under `best`, biggest first, until together enough.
      std::vector<size_t> under;
      for (size_t s = 0; s < switches; ++s) {
        if (members[s].empty()) continue;
        for (int p = static_cast<int>(s); p >= 0;
             p = model_.switches[static_cast<size_t>(p)].parent) {
          if (p == best) {
            under.push_back(s);
            break;
          }
        }
      }
      std::stable_sort(under.begin(), under.end(),
                       [&](size_t a, size_t b) { return sums[a].nodes > sums[b].nodes; });
      Sum acc;
      for (size_t leaf : under) {
        if (Enough(acc)) break;
        for (size_t i : members[leaf]) {
          subset.push_back(fit[i]);
          Add(acc, fit[i]);
        }
      }
    }
    Selection out = Place(std::move(subset), required);
    if (!out.allocation) return out;
    std::vector<int> used;
    for (const NodeAllocation& na : out.allocation->nodes)
      used.push_back(model_.nodes[na.node].leaf);
    std::sort(used.begin(), used.end());
    leaves = static_cast<uint32_t>(std::unique(used.begin(), used.end()) - used.begin());
    out.leaf_switches = leaves;
    if (req_.max_leaf_switches > 0 && leaves > req_.max_leaf_switches && !req_.switches_wait_over) {
      out.allocation.reset();
      out.detail = "waiting for " + std::to_string(req_.max_leaf_switches) +
                   " leaf switch(es), best is " + std::to_string(leaves);
    }
    return out;
  }

  const ClusterModel& model_;
  const std::vector<NodeUsage>& usage_;
  const Request& req_;
  size_t choice_;
  const NodeRank* rank_;  // May be null: every node ranks the same
  mutable std::optional<std::tuple<uint32_t, uint32_t, MemoryMb>> cached_layout_;
  mutable ShareNeeds cached_needs_;
};

std::vector<uint32_t> Members(const std::vector<uint64_t>& among,
                              const std::vector<uint64_t>* also) {
  std::vector<uint32_t> out;
  for (size_t w = 0; w < among.size(); ++w) {
    uint64_t bits = among[w] & (also != nullptr ? (*also)[w] : ~uint64_t{0});
    for (; bits != 0; bits &= bits - 1) {
      out.push_back(static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits))));
    }
  }
  return out;
}

// WalksInOrder but for the GPU type.
bool ShapeWalks(const ClusterModel& model, const Request& req) {
  if (!req.required_nodes.empty() || !req.constraint.counts().empty() || !model.switches.empty() ||
      req.contiguous || req.spread_job) {
    return false;
  }
  if (!req.nodes_fixed) return true;
  // Any N fitting nodes must be enough, so that the choice is the best N.
  if (req.gpus_per_job > 0) return false;
  if (req.tasks_per_node > 0) return uint64_t{req.tasks_per_node} * req.nodes >= req.tasks;
  return req.tasks <= req.nodes;
}

}  // namespace

bool WalksInOrder(const ClusterModel& model, const NodeOrder& order, const Request& req) {
  if (req.wants_gpus() && !order.AcceptsEveryGpu(req.gpu_type)) return false;
  return order.size() == model.nodes.size() && ShapeWalks(model, req);
}

bool WalksInOrder(const ClusterModel& model, const Request& req) {
  if (req.wants_gpus() && req.gpu_type != GpuTypes::kAny) {
    if (req.gpu_type == GpuTypes::kUnknown) return false;
    for (const NodeShape& n : model.nodes) {
      for (const GpuSlot& g : n.gpus) {
        if (g.type != req.gpu_type) return false;
      }
    }
  }
  return ShapeWalks(model, req);
}

Selection SelectInOrder(const ClusterModel& model, const std::vector<NodeUsage>& usage,
                        const NodeOrder& order, const std::vector<uint64_t>& among,
                        const std::vector<uint64_t>* also, const Request& req) {
  if (!WalksInOrder(model, order, req)) return Select(model, usage, Members(among, also), req);
  size_t options = std::max<size_t>(1, req.constraint.bracket_options().size());
  Selection last;
  for (size_t choice = 0; choice < options; ++choice) {
    last = Chooser(model, usage, req, choice).RunOrdered(order, among, also);
    if (last.allocation) return last;
  }
  return last;
}

Selection Select(const ClusterModel& model, const std::vector<NodeUsage>& usage,
                 const std::vector<uint32_t>& candidates, const Request& req,
                 const NodeRank& rank) {
  size_t options = std::max<size_t>(1, req.constraint.bracket_options().size());
  Selection last;
  for (size_t choice = 0; choice < options; ++choice) {
    last = Chooser(model, usage, req, choice, &rank).Run(candidates);
    if (last.allocation) return last;
  }
  return last;
}

}  // namespace rota::sched
