#pragma once

// GRES specifications: "gpu", "gpu:2", "gpu:a100:2", "gpu:1g.10gb:1", lists
// "gpu:a100:2,nic:1". Used by --gres, the Gres= field of NodeName lines and
// the TRES strings. The count defaults to 1; a count may carry a K/M/G
// multiplier (1024-based), as Slurm allows for countable GRES.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota {

struct GresSpec {
  std::string name;  // "gpu"
  std::string type;  // "a100"; empty when untyped
  uint64_t count = 1;

  // "gpu:a100:2", "gpu:2" (untyped); a count of one is still printed.
  std::string ToString() const;
  bool operator==(const GresSpec&) const = default;
};

// A GRES count: decimal with an optional K/M/G multiplier (1024-based), e.g. "2k" == 2048.
Result<uint64_t> ParseGresCount(std::string_view text);

// One item. InvalidArgument quoting the input for empty names, empty fields,
// bad counts or too many fields.
Result<GresSpec> ParseGresSpec(std::string_view text);
// A comma-separated list; "" and "(null)" give an empty list.
Result<std::vector<GresSpec>> ParseGresList(std::string_view text);
std::string FormatGresList(const std::vector<GresSpec>& list);

}  // namespace rota
