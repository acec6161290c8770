#pragma once

// What the cluster will have free, over time: the backfill planner's picture.
// It starts from what is free now (running jobs hold their resources), knows
// when each running allocation ends (its job's start + time limit) and takes
// the bookings the planner makes for jobs it starts or reserves. Asked "what
// is free on every node throughout [start, end)", it answers with NodeUsage
// values the ordinary Select can place a job in, so a reservation is exactly
// where the selection would put the job at that time.
//
// Slots and GPUs keep their identity (a booking holds cores 0-3, not "four
// cores"), so what is free throughout an interval is what no allocation
// overlapping it holds. Memory is counted as the sum of every overlapping
// booking, which can only understate what is free.
//
// Times are rounded up to `resolution` seconds (bf_resolution): an allocation
// is assumed to end at the next multiple, never earlier than it may.
// Pure: no clock; `now` is given.

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <memory_resource>
#include <vector>

#include "sched/allocation.h"
#include "sched/cluster_model.h"
#include "sched/node_order.h"

namespace rota::sched {

inline constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

class AvailabilityProfile {
 public:
  // `usage_now`: what is free at `now` on every node (running jobs taken).
  // REQUIRES: resolution >= 1, usage_now parallel to model.nodes.
  AvailabilityProfile(const ClusterModel& model, std::vector<NodeUsage> usage_now, int64_t now,
                      int64_t resolution = 1);

  // A running allocation (already taken in usage_now) ends at `end`
  // (kForever: never): from then on its resources are free.
  void AddRelease(int64_t end, const Allocation& allocation);
  // Books `allocation` over [start, end) (end kForever: for ever). Booking
  // never fails: the caller placed it in FreeDuring's answer.
  void Book(int64_t start, int64_t end, const Allocation& allocation);
  // Nothing of `node` is free throughout [start, end) (an advance
  // reservation's window, seen by jobs outside it). The totals are left as
  // they are: they stay an upper bound.
  void Block(int64_t start, int64_t end, uint32_t node);

  // What is free on every node throughout [start, end). The answer is kept
  // in view `view` (0 to kViews - 1) and brought up to date for its next
  // question: only nodes with a hold that starts, ends or is booked between
  // the two questions are computed again. A caller whose questions move
  // forward in time (one kind of request searching later and later) keeps
  // one view busy with few changes. Valid until the next FreeDuring on the
  // same view or Book.
  //
  // A view also counts its "open" nodes: those with at least `share.cpus`
  // free CPUs and `share.gpus` free GPUs, not held exclusively (the least
  // one node of the caller's request needs), for the share of its last
  // question (a new share counts every node again).
  struct Share {  // Value-initialize: Share{} is zeros
    uint32_t cpus;
    uint32_t gpus;
  };
  static constexpr size_t kViews = 16;
  const std::vector<NodeUsage>& FreeDuring(int64_t start, int64_t end, size_t view = 0,
                                           Share share = {});
  // Of the last FreeDuring on `view`: how many nodes are open, and whether `node` is.
  size_t OpenCount(size_t view) const { return views_[view % kViews].open_count; }
  bool IsOpen(size_t view, uint32_t node) const {
    return (views_[view % kViews].open[node >> 6] >> (node & 63)) & 1u;
  }
  // The open nodes of `view` that are also in `among` (a node bit set, as
  // NodeBits makes), ascending, into `out`.
  void OpenNodes(size_t view, const std::vector<uint64_t>& among, std::vector<uint32_t>& out) const;
  // The open nodes of the last FreeDuring on `view`, as a node bit set.
  const std::vector<uint64_t>& OpenBits(size_t view) const { return views_[view % kViews].open; }
  // The nodes of the last FreeDuring on `view` in the selection's order
  // (SelectInOrder). Made on first use, then kept up to date with the view.
  const NodeOrder& Order(size_t view);
  // `nodes` as a bit set over the cluster's nodes.
  std::vector<uint64_t> NodeBits(const std::vector<uint32_t>& nodes) const;
  // The nodes nothing holds at now() (no running allocation, no booking
  // over now), as a node bit set: the wholly idle ones.
  std::vector<uint64_t> IdleNowBits() const;

  // An upper bound of the CPUs and GPUs free throughout [start, end) summed
  // over the cluster: when it is short, no placement can fit, and FreeDuring
  // need not be asked.
  struct Totals {
    int64_t cpus = 0;
    int64_t gpus = 0;
  };
  Totals MinTotalsDuring(int64_t start, int64_t end) const;

  // The first moment after `t` when something is given back (a running
  // allocation or a booking ends); kForever when nothing is.
  int64_t NextFreeingAfter(int64_t t) const;

  // `t` rounded up to a multiple of the resolution (kForever stays).
  int64_t RoundUp(int64_t t) const;
  int64_t now() const { return now_; }
  int64_t resolution() const { return resolution_; }
  size_t booking_count() const { return bookings_.size(); }

 private:
  struct Hold {
    int64_t start = 0;  // Releases: now (held from the start)
    int64_t end = 0;
    NodeAllocation allocation;
  };
  // Total free CPUs and GPUs from `time` until the next segment.
  struct Segment {
    int64_t time = 0;
    Totals free;
  };
  // Splits the segment holding `t` there; returns the index of the segment starting at t.
  size_t SplitAt(int64_t t);
  void AddToTotals(int64_t start, int64_t end, int64_t cpus, int64_t gpus);
  int64_t CpusOf(const NodeAllocation& a) const;

  const ClusterModel& model_;
  int64_t now_;
  int64_t resolution_;
  std::vector<NodeUsage> base_;
  std::vector<Hold> releases_;
  std::vector<Hold> bookings_;
  // Per node: indices into releases_ / bookings_.
  std::vector<std::vector<uint32_t>> node_releases_;
  std::vector<std::vector<uint32_t>> node_bookings_;
  // One kept answer: what is free throughout [start, end), and the nodes
  // whose part of it is out of date.
  struct View {
    std::vector<NodeUsage> usage;  // Empty until first used
    int64_t start = 0;
    int64_t end = 0;
    std::vector<uint32_t> dirty;
    std::vector<bool> is_dirty;
    Share share{};
    std::vector<uint64_t> open;  // Bit per node
    size_t open_count = 0;
    NodeOrder order;
    bool ordered = false;  // `order` is in use and kept in step
  };
  static void MarkDirty(View& v, uint32_t node);
  // Marks the nodes of `events` with a time in [from, to) (a half-open range).
  static void MarkRange(View& v, const std::pmr::multimap<int64_t, uint32_t>& events, int64_t from,
                        int64_t to);
  void MarkDirtyEverywhere(uint32_t node);
  void Recompute(const View& v, uint32_t node, NodeUsage& u) const;
  bool IsOpenIn(const View& v, uint32_t node) const;
  // Counts the open nodes of `v` afresh for its share.
  void CountOpen(View& v) const;

  std::vector<int64_t> freeing_times_;  // Sorted, unique
  // Hold times by node, to find what changes between two FreeDuring questions.
  // The three maps below take a node for every hold of a node, and a pass
  // makes and drops thousands: they come from one arena, given back whole
  // when the profile goes. (Behind a pointer, so that a profile can move.)
  std::unique_ptr<std::pmr::monotonic_buffer_resource> arena_ =
      std::make_unique<std::pmr::monotonic_buffer_resource>();
  std::pmr::multimap<int64_t, uint32_t> release_ends_{arena_.get()};
  std::pmr::multimap<int64_t, uint32_t> booking_starts_{arena_.get()};
  std::pmr::multimap<int64_t, uint32_t> booking_ends_{arena_.get()};
  std::vector<Segment> segments_;  // Sorted by time; first at now_
  std::vector<View> views_;
};

}  // namespace rota::sched
