#pragma once

// A small dynamic bitset of a node's CPU slots (cores, or hardware threads
// under CR_CPU). Nodes have at most a few hundred slots, so a handful of
// 64-bit words keeps every test and update a few instructions.

#include <bit>
#include <cstdint>
#include <vector>

namespace rota::sched {

class SlotSet {
 public:
  SlotSet() = default;
  explicit SlotSet(uint32_t size, bool filled = false) : size_(size), words_((size + 63) / 64) {
    if (filled) {
      for (uint32_t i = 0; i < size; ++i) Set(i);
    }
  }

  uint32_t size() const { return size_; }
  bool Test(uint32_t i) const { return (words_[i >> 6] >> (i & 63)) & 1u; }
  void Set(uint32_t i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
  void Clear(uint32_t i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  uint32_t Count() const {
    uint32_t n = 0;
    for (uint64_t w : words_) n += static_cast<uint32_t>(std::popcount(w));
    return n;
  }
  // Members in [begin, end), ascending.
  uint32_t CountIn(uint32_t begin, uint32_t end) const {
    uint32_t n = 0;
    for (uint32_t i = begin; i < end; ++i) n += Test(i);
    return n;
  }
  std::vector<uint32_t> Members() const {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < size_; ++i) {
      if (Test(i)) out.push_back(i);
    }
    return out;
  }
  bool operator==(const SlotSet&) const = default;

 private:
  uint32_t size_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace rota::sched
