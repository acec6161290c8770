#pragma once

// A set of non-negative integers kept as sorted, disjoint ranges: job array
// task ids ("1-1000", "0-15:4", "1,3,5-7"). Cheap for the common huge
// contiguous array, exact for sparse ones.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace rota::model {

class IndexSet {
 public:
  IndexSet() = default;

  // "1-5,7,10-20:5" (a step applies to its range). InvalidArgument otherwise.
  static Result<IndexSet> Parse(std::string_view text);

  void Insert(uint32_t v);
  bool Contains(uint32_t v) const;
  // Removes and returns the smallest member.
  std::optional<uint32_t> PopFirst();
  bool Erase(uint32_t v);

  bool empty() const { return ranges_.empty(); }
  uint64_t size() const;
  std::optional<uint32_t> first() const;
  std::optional<uint32_t> last() const;
  // "1-5,7,10"; "" when empty.
  std::string ToString() const;

  bool operator==(const IndexSet&) const = default;

 private:
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;  // Inclusive, sorted, non-adjacent.
};

// --array=SPEC[%N]: the task ids and the running limit (0: none).
struct ArraySpec {
  IndexSet tasks;
  uint32_t max_running = 0;
};
Result<ArraySpec> ParseArraySpec(std::string_view text);

}  // namespace rota::model
