#include "sched/feature_expr.h"

#include <cctype>
#include <set>

#include "common/strings.h"

namespace rota::sched {

// Recursive descent over: or := and ('|' and)*; and := factor (('&'|',') factor)*;
// factor := NAME ['*' N] | '(' or ')' | '[' NAME ('|' NAME)* ']'.
class FeatureExpr::Parser {
 public:
  Parser(std::string_view text, FeatureExpr& out) : text_(text), out_(out) {}

  Status Run() {
    out_.nodes_.emplace_back();  // The root, filled once parsed.
    Result<uint32_t> root = Or();
    if (!root.ok()) return root.status();
    Skip();
    if (pos_ != text_.size()) return Error("unexpected '" + std::string(1, text_[pos_]) + "'");
    out_.nodes_[0] = out_.nodes_[*root];
    return Status::Ok();
  }

 private:
  Status Error(const std::string& what) const {
    return InvalidArgument("Invalid feature specification: " + what + " at position " +
                           std::to_string(pos_ + 1) + " of \"" + std::string(text_) + "\"");
  }
  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  uint32_t Add(Node n) {
    out_.nodes_.push_back(std::move(n));
    return static_cast<uint32_t>(out_.nodes_.size() - 1);
  }
  Result<std::string> Name() {
    Skip();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '-' || text_[pos_] == '.' || text_[pos_] == ':' || text_[pos_] == '=')) {
      ++pos_;
    }
    if (pos_ == start) return Error("feature name expected");
    return std::string(text_.substr(start, pos_ - start));
  }
  Result<uint32_t> Or() {
    Result<uint32_t> first = And();
    if (!first.ok()) return first;
    Node n{Kind::kOr, "", {*first}};
    while (Eat('|')) {
      Result<uint32_t> next = And();
      if (!next.ok()) return next;
      n.children.push_back(*next);
    }
    return n.children.size() == 1 ? *first : Add(std::move(n));
  }
  Result<uint32_t> And() {
    Result<uint32_t> first = Factor();
    if (!first.ok()) return first;
    Node n{Kind::kAnd, "", {*first}};
    while (Eat('&') || Eat(',')) {
      Result<uint32_t> next = Factor();
      if (!next.ok()) return next;
      n.children.push_back(*next);
    }
    return n.children.size() == 1 ? *first : Add(std::move(n));
  }
  Result<uint32_t> Factor() {
    if (Eat('(')) {
      Result<uint32_t> inner = Or();
      if (!inner.ok()) return inner;
      if (!Eat(')')) return Error("')' expected");
      return inner;
    }
    if (Eat('[')) {
      if (!out_.bracket_.empty()) return Error("only one [...] group is supported");
      do {
        Result<std::string> name = Name();
        if (!name.ok()) return name.status();
        out_.bracket_.push_back(*name);
      } while (Eat('|'));
      if (!Eat(']')) return Error("']' expected");
      return Add(Node{Kind::kBracket, "", {}});
    }
    Result<std::string> name = Name();
    if (!name.ok()) return name.status();
    if (Eat('*')) {
      Skip();
      size_t start = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      std::optional<uint64_t> n = ParseUint(text_.substr(start, pos_ - start));
      if (!n || *n == 0 || *n > 100000) return Error("node count expected after '*'");
      out_.counts_.push_back({*name, static_cast<uint32_t>(*n)});
      return Add(Node{Kind::kTrue, *name, {}});
    }
    return Add(Node{Kind::kFeature, *name, {}});
  }

  std::string_view text_;
  FeatureExpr& out_;
  size_t pos_ = 0;
};

Result<FeatureExpr> FeatureExpr::Parse(std::string_view text) {
  FeatureExpr e;
  if (Trim(text).empty()) return e;
  e.source_ = std::string(text);
  Parser p(text, e);
  Status s = p.Run();
  if (!s.ok()) return s;
  return e;
}

std::vector<std::string> FeatureExpr::Names() const {
  std::set<std::string> names(bracket_.begin(), bracket_.end());
  for (const Node& n : nodes_) {
    if (!n.feature.empty()) names.insert(n.feature);
  }
  return {names.begin(), names.end()};
}

bool FeatureExpr::Matches(const std::function<bool(const std::string&)>& has,
                          size_t bracket_choice) const {
  return nodes_.empty() || Eval(0, has, bracket_choice);
}

bool FeatureExpr::Eval(uint32_t i, const std::function<bool(const std::string&)>& has,
                       size_t choice) const {
  const Node& n = nodes_[i];
  switch (n.kind) {
    case Kind::kTrue:
      return true;
    case Kind::kFeature:
      return has(n.feature);
    case Kind::kBracket:
      return choice < bracket_.size() && has(bracket_[choice]);
    case Kind::kAnd:
      for (uint32_t c : n.children) {
        if (!Eval(c, has, choice)) return false;
      }
      return true;
    case Kind::kOr:
      for (uint32_t c : n.children) {
        if (Eval(c, has, choice)) return true;
      }
      return false;
  }
  return false;
}

}  // namespace rota::sched
