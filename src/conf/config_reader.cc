#include "conf/config_reader.h"

#include <fmt/format.h>
#include <glob.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "common/strings.h"

namespace rota::conf {
namespace {

// Deep enough for any real site, shallow enough to stop an Include loop quickly.
constexpr int kMaxIncludeDepth = 16;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

class Reader {
 public:
  explicit Reader(Diagnostics& diags) : diags_(diags) {}

  void ReadFile(const std::string& path, int depth, const SourceLocation* included_from) {
    std::ifstream in(path);
    if (!in) {
      if (included_from != nullptr) {
        diags_.Error(*included_from, fmt::format("cannot read included file {}", path));
      } else {
        diags_.Error({path, 0}, "cannot read file");
      }
      return;
    }
    std::string physical;
    std::string logical;
    int number = 0;
    int logical_start = 0;
    while (std::getline(in, physical)) {
      ++number;
      std::string text = StripComment(physical);
      std::string_view trimmed_end = text;
      while (!trimmed_end.empty() && IsBlank(trimmed_end.back())) trimmed_end.remove_suffix(1);
      if (logical.empty()) logical_start = number;
      if (!trimmed_end.empty() && trimmed_end.back() == '\\') {
        trimmed_end.remove_suffix(1);
        logical.append(trimmed_end);
        logical += ' ';
        continue;
      }
      logical.append(trimmed_end);
      HandleLogicalLine(logical, {path, logical_start}, depth);
      logical.clear();
    }
    if (!logical.empty()) HandleLogicalLine(logical, {path, logical_start}, depth);
  }

  std::vector<ConfigLine> TakeLines() { return std::move(lines_); }

 private:
  void HandleLogicalLine(std::string_view text, const SourceLocation& where, int depth) {
    std::string_view body = Trim(text);
    if (body.empty()) return;
    if (std::optional<std::string> pattern = IncludePatternOf(body)) {
      Include(*pattern, where, depth);
      return;
    }
    std::vector<KeyValue> pairs = TokenizeConfigLine(body, where, diags_);
    if (!pairs.empty()) lines_.push_back({where, std::move(pairs)});
  }

  void Include(std::string_view pattern_text, const SourceLocation& where, int depth) {
    if (depth >= kMaxIncludeDepth) {
      diags_.Error(where,
                   fmt::format("Include nested more than {} deep (a loop?)", kMaxIncludeDepth));
      return;
    }
    const std::string pattern(pattern_text);
    if (pattern.empty()) {
      diags_.Error(where, "Include names no file");
      return;
    }
    std::filesystem::path p(pattern);
    if (p.is_relative()) p = std::filesystem::path(where.file).parent_path() / p;
    std::vector<std::string> matches = GlobPaths(p.string());
    if (matches.empty()) {
      diags_.Error(where, fmt::format("Include {} matches no file", pattern));
      return;
    }
    for (const std::string& m : matches) ReadFile(m, depth + 1, &where);
  }

  Diagnostics& diags_;
  std::vector<ConfigLine> lines_;
};

}  // namespace

std::string StripComment(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size() && raw[i + 1] == '#') {
      out += '#';
      ++i;
    } else if (raw[i] == '#') {
      break;
    } else {
      out += raw[i];
    }
  }
  return out;
}

std::optional<std::string> IncludePatternOf(std::string_view uncommented_line) {
  std::string_view body = Trim(uncommented_line);
  // "Include PATTERN" uses a blank, not '='.
  if (!StartsWithIgnoreCase(body, "include") || body.size() <= 7 || !IsBlank(body[7])) {
    return std::nullopt;
  }
  std::string pattern(Trim(body.substr(7)));
  if (pattern.size() >= 2 && pattern.front() == '"' && pattern.back() == '"') {
    pattern = pattern.substr(1, pattern.size() - 2);
  }
  return pattern;
}

std::vector<std::string> GlobPaths(const std::string& pattern) {
  std::vector<std::string> paths;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) paths.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  return paths;  // glob sorts its matches, so Include order is deterministic.
}

const std::string* ConfigLine::Find(std::string_view key) const {
  for (const KeyValue& kv : pairs) {
    if (EqualsIgnoreCase(kv.key, key)) return &kv.value;
  }
  return nullptr;
}

std::vector<KeyValue> TokenizeConfigLine(std::string_view text, const SourceLocation& where,
                                         Diagnostics& diags) {
  std::vector<KeyValue> pairs;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsBlank(text[i])) ++i;
    if (i >= text.size()) break;
    size_t start = i;
    std::string token;
    bool in_quotes = false;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (c == '"') {
        in_quotes = !in_quotes;
        continue;
      }
      if (!in_quotes && IsBlank(c)) break;
      token += c;
    }
    std::string_view raw = text.substr(start, i - start);
    if (in_quotes) {
      diags.Error(where, fmt::format("unterminated quote in '{}'", raw));
      return pairs;
    }
    size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0) {
      diags.Error(where, fmt::format("expected Key=Value, found '{}'", raw));
      continue;
    }
    pairs.push_back({token.substr(0, eq), token.substr(eq + 1)});
  }
  return pairs;
}

std::vector<ConfigLine> ReadConfigFile(const std::string& path, bool required, Diagnostics& diags) {
  Reader reader(diags);
  if (!required && !std::filesystem::exists(path)) return {};
  reader.ReadFile(path, 0, nullptr);
  return reader.TakeLines();
}

}  // namespace rota::conf
