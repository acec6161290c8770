#pragma once

// Trackable resources (TRES) as Slurm writes them:
//   "cpu=4,mem=16G,node=1,billing=40,gres/gpu=2,gres/gpu:a100=2"
// Keys are case-insensitive on input and printed in Slurm's canonical order:
// cpu, mem, energy, node, billing, fs/disk, vmem, pages, then gres/..., license/...
// and others by name. Memory-valued keys (mem, vmem) take memory sizes and are kept
// in MB.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota {

// Canonical ordering: Slurm's fixed TRES first, then the rest by name.
bool TresKeyLess(const std::string& a, const std::string& b);

struct TresKeyOrder {
  bool operator()(const std::string& a, const std::string& b) const { return TresKeyLess(a, b); }
};

// A set of TRES with integer counts (memory in MB).
class TresCounts {
 public:
  // Parses a TRES string. Empty string -> empty set. InvalidArgument quoting the
  // offending item for unknown shapes, bad numbers or duplicate keys.
  static Result<TresCounts> Parse(std::string_view text);

  void Set(std::string_view key, uint64_t value);
  uint64_t Get(std::string_view key) const;  // 0 when absent
  bool Has(std::string_view key) const;
  bool empty() const { return counts_.empty(); }
  const std::map<std::string, uint64_t, TresKeyOrder>& counts() const { return counts_; }

  // "cpu=4,mem=16G,node=1,gres/gpu=2"; memory printed with FormatMemoryMb.
  std::string ToString() const;
  bool operator==(const TresCounts&) const = default;

 private:
  std::map<std::string, uint64_t, TresKeyOrder> counts_;
};

// Canonicalises one TRES key: "CPU" -> "cpu", "GRES/gpu" -> "gres/gpu",
// "Mem" -> "mem". InvalidArgument for an empty key or an unknown bare type
// (a bare key must be one of Slurm's fixed TRES).
Result<std::string> CanonicalTresKey(std::string_view key);

// Weights per TRES: TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=32.0" and
// PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000. A memory weight may carry a
// unit suffix (K/M/G/T): "Mem=0.25G" means 0.25 per GB, stored per MB (0.25/1024).
using TresWeights = std::map<std::string, double, TresKeyOrder>;
Result<TresWeights> ParseTresWeights(std::string_view text);

}  // namespace rota
