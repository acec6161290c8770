#include "sched/availability_profile.h"

#include <algorithm>
#include <bit>

namespace rota::sched {
namespace {

// Marks what `a` holds as taken in `usage`, whatever else holds it too: an
// interval's free set is what no overlapping allocation holds.
void Occupy(const ClusterModel& model, NodeUsage& usage, const NodeAllocation& a) {
  const NodeShape& n = model.nodes[a.node];
  for (uint32_t s : a.slots) {
    if (s < n.slots() && usage.free_slots.Test(s)) {
      usage.free_slots.Clear(s);
      --usage.free_per_socket[n.SocketOf(s)];
      --usage.free_count;
    }
  }
  usage.free_gpus &= ~a.gpus;
  usage.free_mem_mb = usage.free_mem_mb > a.mem_mb ? usage.free_mem_mb - a.mem_mb : 0;
  ++usage.allocations;
  if (a.exclusive) usage.held_exclusively = true;
}

}  // namespace

AvailabilityProfile::AvailabilityProfile(const ClusterModel& model,
                                         std::vector<NodeUsage> usage_now, int64_t now,
                                         int64_t resolution)
    : model_(model),
      now_(now),
      resolution_(std::max<int64_t>(1, resolution)),
      base_(std::move(usage_now)),
      node_releases_(model.nodes.size()),
      node_bookings_(model.nodes.size()),
      views_(kViews) {
  Totals t;
  for (size_t i = 0; i < base_.size(); ++i) {
    t.cpus += int64_t{base_[i].free_count} * model.nodes[i].cpus_per_slot();
    t.gpus += std::popcount(base_[i].free_gpus);
  }
  segments_.push_back({now_, t});
}

int64_t AvailabilityProfile::RoundUp(int64_t t) const {
  if (t == kForever || resolution_ == 1) return t;
  int64_t r = t % resolution_;
  return r == 0 ? t : t + (resolution_ - r);
}

int64_t AvailabilityProfile::CpusOf(const NodeAllocation& a) const {
  return static_cast<int64_t>(a.slots.size()) * model_.nodes[a.node].cpus_per_slot();
}

size_t AvailabilityProfile::SplitAt(int64_t t) {
  t = std::max(t, now_);
  auto it = std::upper_bound(segments_.begin(), segments_.end(), t,
                             [](int64_t v, const Segment& s) { return v < s.time; });
  size_t i = static_cast<size_t>(it - segments_.begin()) - 1;  // segments_[0].time == now_
  if (segments_[i].time == t) return i;
  segments_.insert(segments_.begin() + static_cast<ptrdiff_t>(i) + 1,
                   Segment{t, segments_[i].free});
  return i + 1;
}

void AvailabilityProfile::AddToTotals(int64_t start, int64_t end, int64_t cpus, int64_t gpus) {
  if (end != kForever && end <= std::max(start, now_)) return;
  size_t first = SplitAt(start);
  size_t last = end == kForever ? segments_.size() : SplitAt(end);
  for (size_t i = first; i < last; ++i) {
    segments_[i].free.cpus += cpus;
    segments_[i].free.gpus += gpus;
  }
}

void AvailabilityProfile::AddRelease(int64_t end, const Allocation& allocation) {
  if (end == kForever) return;  // Held for ever: base_ already has it taken.
  // An allocation past its end is still being killed: free from the next step.
  end = RoundUp(std::max(end, now_ + 1));
  int64_t cpus = 0;
  int64_t gpus = 0;
  for (const NodeAllocation& a : allocation.nodes) {
    node_releases_[a.node].push_back(static_cast<uint32_t>(releases_.size()));
    releases_.push_back({now_, end, a});
    release_ends_.emplace(end, a.node);
    MarkDirtyEverywhere(a.node);
    cpus += CpusOf(a);
    gpus += std::popcount(a.gpus);
  }
  AddToTotals(end, kForever, cpus, gpus);
  auto it = std::lower_bound(freeing_times_.begin(), freeing_times_.end(), end);
  if (it == freeing_times_.end() || *it != end) freeing_times_.insert(it, end);
}

void AvailabilityProfile::Book(int64_t start, int64_t end, const Allocation& allocation) {
  end = RoundUp(end);
  int64_t cpus = 0;
  int64_t gpus = 0;
  for (const NodeAllocation& a : allocation.nodes) {
    node_bookings_[a.node].push_back(static_cast<uint32_t>(bookings_.size()));
    bookings_.push_back({start, end, a});
    booking_starts_.emplace(start, a.node);
    booking_ends_.emplace(end, a.node);
    MarkDirtyEverywhere(a.node);
    cpus += CpusOf(a);
    gpus += std::popcount(a.gpus);
  }
  AddToTotals(start, end, -cpus, -gpus);
  if (end != kForever) {
    auto it = std::lower_bound(freeing_times_.begin(), freeing_times_.end(), end);
    if (it == freeing_times_.end() || *it != end) freeing_times_.insert(it, end);
  }
}

void AvailabilityProfile::Block(int64_t start, int64_t end, uint32_t node) {
  end = RoundUp(end);
  if (end != kForever && end <= std::max(start, now_)) return;
  const NodeShape& shape = model_.nodes[node];
  NodeAllocation whole;
  whole.node = node;
  whole.slots.resize(shape.slots());
  for (uint32_t s = 0; s < shape.slots(); ++s) whole.slots[s] = s;
  whole.gpus = shape.gpus.size() >= 64 ? ~GpuMask{0} : (GpuMask{1} << shape.gpus.size()) - 1;
  whole.mem_mb = shape.memory_mb;
  whole.exclusive = true;
  node_bookings_[node].push_back(static_cast<uint32_t>(bookings_.size()));
  bookings_.push_back({start, end, std::move(whole)});
  booking_starts_.emplace(start, node);
  booking_ends_.emplace(end, node);
  MarkDirtyEverywhere(node);
  if (end != kForever) {
    auto it = std::lower_bound(freeing_times_.begin(), freeing_times_.end(), end);
    if (it == freeing_times_.end() || *it != end) freeing_times_.insert(it, end);
  }
}

void AvailabilityProfile::MarkDirty(View& v, uint32_t node) {
  if (!v.is_dirty[node]) {
    v.is_dirty[node] = true;
    v.dirty.push_back(node);
  }
}

void AvailabilityProfile::MarkDirtyEverywhere(uint32_t node) {
  for (View& v : views_) {
    if (!v.usage.empty()) MarkDirty(v, node);
  }
}

void AvailabilityProfile::MarkRange(View& v, const std::pmr::multimap<int64_t, uint32_t>& events,
                                    int64_t from, int64_t to) {
  if (from >= to) return;
  for (auto it = events.lower_bound(from); it != events.end() && it->first < to; ++it) {
    MarkDirty(v, it->second);
  }
}

void AvailabilityProfile::Recompute(const View& v, uint32_t n, NodeUsage& u) const {
  u = base_[n];
  for (uint32_t r : node_releases_[n]) {
    if (releases_[r].end <= v.start) GiveBack(model_, u, releases_[r].allocation);
  }
  for (uint32_t b : node_bookings_[n]) {
    const Hold& h = bookings_[b];
    if (h.start < v.end && h.end > v.start) Occupy(model_, u, h.allocation);
  }
}

const std::vector<NodeUsage>& AvailabilityProfile::FreeDuring(int64_t start, int64_t end,
                                                              size_t view, Share share) {
  View& v = views_[view % kViews];
  if (v.usage.empty()) {
    // First use: as if it had answered for [now, now), where nothing given
    // back or booked counts; every node with a hold is out of date.
    v.usage = base_;
    v.start = now_;
    v.end = now_;
    v.is_dirty.assign(base_.size(), false);
    for (uint32_t n = 0; n < base_.size(); ++n) {
      if (!node_releases_[n].empty() || !node_bookings_[n].empty()) MarkDirty(v, n);
    }
    v.share = share;
    CountOpen(v);
  }
  // A release counts when its end <= start; a booking when start < its end
  // and its start < end. Only holds whose time lies between the old and the
  // new bounds change their answer: ends in (s_lo, s_hi], starts in [e_lo, e_hi).
  auto [s_lo, s_hi] = std::minmax(v.start, start);
  auto [e_lo, e_hi] = std::minmax(v.end, end);
  if (s_lo != s_hi) {
    MarkRange(v, release_ends_, s_lo + 1, s_hi + 1);
    MarkRange(v, booking_ends_, s_lo + 1, s_hi + 1);
  }
  MarkRange(v, booking_starts_, e_lo, e_hi);
  v.start = start;
  v.end = end;
  for (uint32_t n : v.dirty) {
    Recompute(v, n, v.usage[n]);
    if (v.ordered) v.order.Update(n, v.usage[n]);
    v.is_dirty[n] = false;
    bool open = IsOpenIn(v, n);
    uint64_t bit = uint64_t{1} << (n & 63);
    if (open != ((v.open[n >> 6] & bit) != 0)) {
      v.open[n >> 6] ^= bit;
      if (open) {
        ++v.open_count;
      } else {
        --v.open_count;
      }
    }
  }
  v.dirty.clear();
  if (share.cpus != v.share.cpus || share.gpus != v.share.gpus) {
    // A view passed on to a request of another share: count again.
    v.share = share;
    CountOpen(v);
  }
  return v.usage;
}

const NodeOrder& AvailabilityProfile::Order(size_t view) {
  View& v = views_[view % kViews];
  if (!v.ordered) {
    v.order.Reset(model_, v.usage.empty() ? base_ : v.usage);
    v.ordered = true;
  }
  return v.order;
}

bool AvailabilityProfile::IsOpenIn(const View& v, uint32_t n) const {
  const NodeUsage& u = v.usage[n];
  return !u.held_exclusively && u.free_count * model_.nodes[n].cpus_per_slot() >= v.share.cpus &&
         static_cast<uint32_t>(std::popcount(u.free_gpus)) >= v.share.gpus;
}

void AvailabilityProfile::CountOpen(View& v) const {
  v.open.assign((base_.size() + 63) / 64, 0);
  v.open_count = 0;
  for (uint32_t n = 0; n < base_.size(); ++n) {
    if (IsOpenIn(v, n)) {
      v.open[n >> 6] |= uint64_t{1} << (n & 63);
      ++v.open_count;
    }
  }
}

void AvailabilityProfile::OpenNodes(size_t view, const std::vector<uint64_t>& among,
                                    std::vector<uint32_t>& out) const {
  const View& v = views_[view % kViews];
  out.clear();
  for (size_t w = 0; w < v.open.size() && w < among.size(); ++w) {
    for (uint64_t bits = v.open[w] & among[w]; bits != 0; bits &= bits - 1) {
      out.push_back(static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits))));
    }
  }
}

std::vector<uint64_t> AvailabilityProfile::NodeBits(const std::vector<uint32_t>& nodes) const {
  std::vector<uint64_t> bits((base_.size() + 63) / 64, 0);
  for (uint32_t n : nodes) bits[n >> 6] |= uint64_t{1} << (n & 63);
  return bits;
}

AvailabilityProfile::Totals AvailabilityProfile::MinTotalsDuring(int64_t start, int64_t end) const {
  start = std::max(start, now_);
  auto it = std::upper_bound(segments_.begin(), segments_.end(), start,
                             [](int64_t v, const Segment& s) { return v < s.time; });
  size_t i = static_cast<size_t>(it - segments_.begin()) - 1;
  Totals m = segments_[i].free;
  for (++i; i < segments_.size() && segments_[i].time < end; ++i) {
    m.cpus = std::min(m.cpus, segments_[i].free.cpus);
    m.gpus = std::min(m.gpus, segments_[i].free.gpus);
  }
  return m;
}

std::vector<uint64_t> AvailabilityProfile::IdleNowBits() const {
  std::vector<uint64_t> bits((base_.size() + 63) / 64, 0);
  for (uint32_t n = 0; n < base_.size(); ++n) {
    if (!base_[n].idle()) continue;
    const bool booked_now = std::any_of(
        node_bookings_[n].begin(), node_bookings_[n].end(),
        [&](uint32_t b) { return bookings_[b].start <= now_ && bookings_[b].end > now_; });
    if (!booked_now) bits[n >> 6] |= uint64_t{1} << (n & 63);
  }
  return bits;
}

int64_t AvailabilityProfile::NextFreeingAfter(int64_t t) const {
  auto it = std::upper_bound(freeing_times_.begin(), freeing_times_.end(), t);
  return it == freeing_times_.end() ? kForever : *it;
}

}  // namespace rota::sched
