#pragma once

// --constraint expressions over node features, as sbatch documents them:
//   a&b  a,b   every node has both        a|b     each node has either
//   [a|b]      all nodes have the same one of them (tried in order)
//   a*2        at least two of the job's nodes have a (the others need not)
//   (a|b)&c    parentheses group
// Parsed once at submission; matching a node is a walk over a small tree.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::sched {

class FeatureExpr {
 public:
  // Empty text: matches every node. InvalidArgument on a syntax error.
  static Result<FeatureExpr> Parse(std::string_view text);

  bool empty() const { return nodes_.empty(); }
  // The text it was parsed from.
  const std::string& source() const { return source_; }
  // Every feature name the expression mentions.
  std::vector<std::string> Names() const;

  // Whether a node with `has` (feature -> present) may be part of the job.
  // Counted terms (a*2) do not restrict single nodes; `bracket_choice` picks
  // the option of the [..] group in force (ignored when there is none).
  bool Matches(const std::function<bool(const std::string&)>& has, size_t bracket_choice = 0) const;

  // The [a|b] group's options; empty when the expression has none.
  const std::vector<std::string>& bracket_options() const { return bracket_; }
  // a*N terms: at least N of the job's nodes have the feature.
  struct Count {
    std::string feature;
    uint32_t nodes = 0;
  };
  const std::vector<Count>& counts() const { return counts_; }

 private:
  enum class Kind : uint8_t { kFeature, kAnd, kOr, kTrue, kBracket };
  struct Node {
    Kind kind = Kind::kTrue;
    std::string feature;
    std::vector<uint32_t> children;
  };
  class Parser;

  bool Eval(uint32_t i, const std::function<bool(const std::string&)>& has, size_t choice) const;

  std::vector<Node> nodes_;  // nodes_[0] is the root when not empty
  std::vector<std::string> bracket_;
  std::vector<Count> counts_;
  std::string source_;
};

}  // namespace rota::sched
