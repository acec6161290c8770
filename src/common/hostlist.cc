#include "common/hostlist.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>

#include "common/strings.h"

namespace rota {
namespace {

constexpr uint64_t kUint64Max = std::numeric_limits<uint64_t>::max();

// One "lo-hi" (or single "n") inside brackets. `width` is the digit count of
// the low bound as written, which is the zero padding of every expanded name.
struct NumberRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
};

// One item of an expression, e.g. "rack[1-2]-n[01-03]": literal text around
// bracket groups. Always literals.size() == groups.size() + 1.
struct HostPattern {
  std::vector<std::string_view> literals;
  std::vector<std::vector<NumberRange>> groups;
};

// Counts saturate at kUint64Max so that an absurd expression is reported as
// "too many hosts" instead of wrapping around to a small number.
uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a > kUint64Max - b ? kUint64Max : a + b; }
uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  if (a != 0 && b > kUint64Max / a) return kUint64Max;
  return a * b;
}

bool IsSeparator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), IsDigit);
}

Status Invalid(std::string_view expr, std::string_view reason) {
  std::string message = "invalid hostlist \"";
  message += expr;
  message += "\": ";
  message += reason;
  return InvalidArgument(std::move(message));
}

// Parses one bound of a range; `what` is the whole range for the message.
Result<uint64_t> ParseBound(std::string_view expr, std::string_view text, std::string_view what) {
  if (!AllDigits(text)) return Invalid(expr, "range \"" + std::string(what) + "\" is not numeric");
  std::optional<uint64_t> value = ParseUint(text);
  if (!value) return Invalid(expr, "number " + std::string(text) + " is too large");
  return *value;
}

// Parses the text between '[' and ']'.
Result<std::vector<NumberRange>> ParseGroup(std::string_view expr, std::string_view body) {
  if (body.empty()) return Invalid(expr, "empty brackets \"[]\"");
  std::vector<NumberRange> ranges;
  for (std::string_view piece : Split(body, ',')) {
    if (piece.empty()) return Invalid(expr, "empty range in \"[" + std::string(body) + "]\"");
    size_t dash = piece.find('-');
    std::string_view lo_text = piece.substr(0, dash);
    std::string_view hi_text = dash == std::string_view::npos ? lo_text : piece.substr(dash + 1);
    Result<uint64_t> lo = ParseBound(expr, lo_text, piece);
    if (!lo.ok()) return lo.status();
    Result<uint64_t> hi = ParseBound(expr, hi_text, piece);
    if (!hi.ok()) return hi.status();
    if (*hi < *lo) return Invalid(expr, "range " + std::string(piece) + " is reversed");
    ranges.push_back(NumberRange{*lo, *hi, lo_text.size()});
  }
  return ranges;
}

Result<std::vector<HostPattern>> ParseExpression(std::string_view expr) {
  std::vector<HostPattern> patterns;
  HostPattern current;
  bool in_item = false;
  size_t literal_start = 0;
  auto finish_item = [&](size_t end) {
    if (!in_item) return;
    current.literals.push_back(expr.substr(literal_start, end - literal_start));
    patterns.push_back(std::move(current));
    current = HostPattern();
    in_item = false;
  };

  size_t i = 0;
  while (i < expr.size()) {
    char c = expr[i];
    if (IsSeparator(c)) {
      finish_item(i);
      ++i;
      continue;
    }
    if (!in_item) {
      in_item = true;
      literal_start = i;
    }
    if (c == ']') return Invalid(expr, "']' without a matching '['");
    if (c != '[') {
      ++i;
      continue;
    }
    size_t close = i + 1;
    while (close < expr.size() && expr[close] != ']') {
      if (expr[close] == '[') return Invalid(expr, "nested '['");
      ++close;
    }
    if (close == expr.size()) return Invalid(expr, "'[' is not closed");
    Result<std::vector<NumberRange>> group = ParseGroup(expr, expr.substr(i + 1, close - i - 1));
    if (!group.ok()) return group.status();
    current.literals.push_back(expr.substr(literal_start, i - literal_start));
    current.groups.push_back(std::move(group).value());
    i = close + 1;
    literal_start = i;
  }
  finish_item(expr.size());
  if (patterns.empty()) return Invalid(expr, "it names no hosts");
  return patterns;
}

uint64_t CountPattern(const HostPattern& pattern) {
  uint64_t count = 1;
  for (const std::vector<NumberRange>& group : pattern.groups) {
    uint64_t in_group = 0;
    for (const NumberRange& r : group)
      in_group = SaturatingAdd(in_group, SaturatingAdd(r.hi - r.lo, 1));
    count = SaturatingMul(count, in_group);
  }
  return count;
}

// Parses and counts, refusing anything over the limit; the one gate that
// both CountHostlist and ExpandHostlist pass before allocating names.
Result<std::vector<HostPattern>> ParseWithinLimit(std::string_view expr, size_t max_hosts,
                                                  uint64_t* total) {
  Result<std::vector<HostPattern>> patterns = ParseExpression(expr);
  if (!patterns.ok()) return patterns.status();
  uint64_t count = 0;
  for (const HostPattern& p : *patterns) count = SaturatingAdd(count, CountPattern(p));
  if (count > max_hosts) {
    std::string message = "hostlist \"";
    message += expr;
    message += "\" names more than " + std::to_string(max_hosts) + " hosts";
    return OutOfRange(std::move(message));
  }
  *total = count;
  return patterns;
}

// Appends `value` zero-padded to `width` digits (wider values are not cut).
void AppendPadded(std::string* out, uint64_t value, size_t width) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  size_t digits = static_cast<size_t>(end - buf);
  if (digits < width) out->append(width - digits, '0');
  out->append(buf, digits);
}

std::vector<std::string> ExpandGroup(const std::vector<NumberRange>& group) {
  std::vector<std::string> numbers;
  for (const NumberRange& r : group) {
    // Written as a do-while so that hi == UINT64_MAX cannot loop forever.
    uint64_t v = r.lo;
    do {
      std::string text;
      AppendPadded(&text, v, r.width);
      numbers.push_back(std::move(text));
    } while (v++ != r.hi);
  }
  return numbers;
}

void ExpandPattern(const HostPattern& pattern, std::vector<std::string>* out) {
  std::vector<std::vector<std::string>> numbers;
  size_t name_size = 0;
  for (std::string_view literal : pattern.literals) name_size += literal.size();
  for (const std::vector<NumberRange>& group : pattern.groups) {
    numbers.push_back(ExpandGroup(group));
    name_size += numbers.back().front().size() + 2;
  }
  // An odometer over the groups: the rightmost index turns fastest, so the
  // leftmost group varies slowest, as Slurm expands rack[1-2]-n[01-03].
  std::vector<size_t> index(numbers.size(), 0);
  while (true) {
    std::string name;
    name.reserve(name_size);
    name += pattern.literals[0];
    for (size_t g = 0; g < numbers.size(); ++g) {
      name += numbers[g][index[g]];
      name += pattern.literals[g + 1];
    }
    out->push_back(std::move(name));
    size_t g = numbers.size();
    while (g > 0) {
      --g;
      if (++index[g] < numbers[g].size()) break;
      index[g] = 0;
      if (g == 0) return;
    }
    if (numbers.empty()) return;
  }
}

// A host name split for compression: "rack1-n01" -> prefix "rack1-n",
// number 1, width 2. Names without a trailing number keep has_number false.
struct SplitName {
  std::string_view name;
  std::string_view prefix;
  bool has_number = false;
  uint64_t number = 0;
  size_t width = 0;
};

SplitName SplitHostName(std::string_view name) {
  SplitName split{name, name};
  size_t start = name.size();
  while (start > 0 && IsDigit(name[start - 1])) --start;
  if (start == name.size()) return split;
  // A number too long for uint64 cannot be folded; the name then stands alone.
  std::optional<uint64_t> number = ParseUint(name.substr(start));
  if (!number) return split;
  split.prefix = name.substr(0, start);
  split.has_number = true;
  split.number = *number;
  split.width = name.size() - start;
  return split;
}

// The order of hostlistsorted. The width tie-break (n8 before n08) makes
// equal keys mean equal names, which lets kSortedUnique drop adjacent copies.
bool SplitNameLess(const SplitName& a, const SplitName& b) {
  int prefix = NaturalCompare(a.prefix, b.prefix);
  if (prefix != 0) return prefix < 0;
  if (a.has_number != b.has_number) return !a.has_number;
  if (a.number != b.number) return a.number < b.number;
  return a.width < b.width;
}

size_t DigitCount(uint64_t value) {
  size_t digits = 1;
  while (value >= 10) {
    value /= 10;
    ++digits;
  }
  return digits;
}

// A run of names printed as one "lo-hi" (or a lone name when has_number is false).
struct Run {
  std::string_view prefix;
  bool has_number = false;
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
};

// Expansion pads every number of a range to the low bound's width, so a name
// can join only if it prints that way: same width, or no leading zeros and at
// least that many digits (n8,n9,n10 fold to n[8-10], n08 and n9 do not).
bool FitsWidth(const SplitName& name, size_t range_width) {
  return name.width == range_width ||
         (name.width == DigitCount(name.number) && name.width >= range_width);
}

std::vector<Run> FoldRuns(const std::vector<SplitName>& names) {
  std::vector<Run> runs;
  for (const SplitName& name : names) {
    if (!runs.empty()) {
      Run& last = runs.back();
      if (last.has_number && name.has_number && last.prefix == name.prefix &&
          last.hi != kUint64Max && name.number == last.hi + 1 && FitsWidth(name, last.width)) {
        last.hi = name.number;
        continue;
      }
    }
    Run run;
    run.prefix = name.has_number ? name.prefix : name.name;
    run.has_number = name.has_number;
    run.lo = run.hi = name.number;
    run.width = name.width;
    runs.push_back(run);
  }
  return runs;
}

std::string PrintRuns(const std::vector<Run>& runs) {
  std::string out;
  size_t i = 0;
  while (i < runs.size()) {
    if (!out.empty()) out += ',';
    const Run& first = runs[i];
    if (!first.has_number) {
      out += first.prefix;
      ++i;
      continue;
    }
    // Ranges sharing a prefix share one bracket.
    size_t end = i + 1;
    while (end < runs.size() && runs[end].has_number && runs[end].prefix == first.prefix) ++end;
    out += first.prefix;
    bool bracket = end - i > 1 || first.lo != first.hi;
    if (bracket) out += '[';
    for (size_t r = i; r < end; ++r) {
      if (r > i) out += ',';
      AppendPadded(&out, runs[r].lo, runs[r].width);
      if (runs[r].hi != runs[r].lo) {
        out += '-';
        AppendPadded(&out, runs[r].hi, runs[r].width);
      }
    }
    if (bracket) out += ']';
    i = end;
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> ExpandHostlist(std::string_view expr, size_t max_hosts) {
  uint64_t total = 0;
  Result<std::vector<HostPattern>> patterns = ParseWithinLimit(expr, max_hosts, &total);
  if (!patterns.ok()) return patterns.status();
  std::vector<std::string> hosts;
  hosts.reserve(static_cast<size_t>(total));
  for (const HostPattern& pattern : *patterns) ExpandPattern(pattern, &hosts);
  return hosts;
}

Result<size_t> CountHostlist(std::string_view expr, size_t max_hosts) {
  uint64_t total = 0;
  Result<std::vector<HostPattern>> patterns = ParseWithinLimit(expr, max_hosts, &total);
  if (!patterns.ok()) return patterns.status();
  return static_cast<size_t>(total);
}

std::string CompressHostlist(const std::vector<std::string>& hosts, HostlistOrder order) {
  std::vector<SplitName> names;
  names.reserve(hosts.size());
  for (const std::string& host : hosts) {
    // An empty name is no host, and printing it would leave a stray comma.
    if (!host.empty()) names.push_back(SplitHostName(host));
  }
  if (order != HostlistOrder::kAsGiven) {
    std::stable_sort(names.begin(), names.end(), SplitNameLess);
  }
  if (order == HostlistOrder::kSortedUnique) {
    auto same = [](const SplitName& a, const SplitName& b) { return a.name == b.name; };
    names.erase(std::unique(names.begin(), names.end(), same), names.end());
  }
  return PrintRuns(FoldRuns(names));
}

}  // namespace rota
