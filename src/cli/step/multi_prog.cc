#include "cli/step/multi_prog.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "common/strings.h"

namespace rota::cli {
namespace {

// One line of the file: its ranks (empty with `any`) and its words.
struct Line {
  std::vector<uint32_t> ranks;
  bool any = false;  // "*"
  std::vector<std::string> words;
};

// Words split at blanks, with '...' and "..." kept whole.
Result<std::vector<std::string>> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) return InvalidArgument("unmatched quote");
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::optional<std::vector<uint32_t>> Ranks(std::string_view text) {
  std::vector<uint32_t> ranks;
  for (std::string_view item : Split(text, ',')) {
    size_t dash = item.find('-');
    std::optional<uint64_t> first = ParseUint(item.substr(0, dash));
    std::optional<uint64_t> last =
        dash == std::string_view::npos ? first : ParseUint(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last > 1'000'000) return std::nullopt;
    for (uint64_t r = *first; r <= *last; ++r) ranks.push_back(static_cast<uint32_t>(r));
  }
  return ranks;
}

// `word` for sh: literal text single-quoted, "%t" and "%o" replaced by
// `rank` and `offset` (words for sh themselves: a number or "$SLURM_PROCID").
std::string ShellWord(std::string_view word, const std::string& rank, const std::string& offset) {
  std::string out = "'";
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '%' && i + 1 < word.size() && (word[i + 1] == 't' || word[i + 1] == 'o')) {
      out += "'" + (word[i + 1] == 't' ? rank : offset) + "'";
      ++i;
    } else if (word[i] == '\'') {
      out += "'\\''";
    } else {
      out += word[i];
    }
  }
  return out + "'";
}

std::string ExecLine(const std::vector<std::string>& words, const std::string& rank,
                     const std::string& offset) {
  std::string line = "exec";
  for (const std::string& w : words) line += " " + ShellWord(w, rank, offset);
  return line;
}

}  // namespace

Result<std::vector<std::string>> MultiProgCommand(std::string_view config,
                                                  std::string_view file_name, uint32_t num_tasks) {
  auto invalid = [&](size_t number, std::string_view why) {
    return InvalidArgument(
        fmt::format("Configuration file {} invalid, line {}: {}", file_name, number, why));
  };
  std::vector<Line> lines;
  std::vector<std::string_view> raw = Split(config, '\n');
  for (size_t i = 0; i < raw.size(); ++i) {
    std::string_view text = raw[i];
    if (size_t hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
    text = Trim(text);
    if (text.empty()) continue;
    Result<std::vector<std::string>> words = Words(text);
    if (!words.ok()) return invalid(i + 1, words.status().message());
    if (words->size() < 2) return invalid(i + 1, "no program for the ranks");
    Line line;
    if ((*words)[0] == "*") {
      line.any = true;
    } else {
      std::optional<std::vector<uint32_t>> ranks = Ranks((*words)[0]);
      if (!ranks) return invalid(i + 1, "bad task ranks " + (*words)[0]);
      line.ranks = std::move(*ranks);
    }
    line.words.assign(words->begin() + 1, words->end());
    lines.push_back(std::move(line));
  }
  // Each rank's line and its offset there; a rank named twice is an error.
  std::map<uint32_t, std::pair<const Line*, uint32_t>> by_rank;
  const Line* any = nullptr;
  for (const Line& line : lines) {
    if (line.any) {
      if (any == nullptr) any = &line;
      continue;
    }
    for (uint32_t i = 0; i < line.ranks.size(); ++i) {
      const uint32_t rank = line.ranks[i];
      if (num_tasks > 0 && rank >= num_tasks) {
        return InvalidArgument(
            fmt::format("Configuration file {} invalid, task rank {} is not "
                        "below the step's {} tasks",
                        file_name, rank, num_tasks));
      }
      if (!by_rank.try_emplace(rank, &line, i).second) {
        return InvalidArgument(fmt::format(
            "Configuration file {} invalid, duplicate record for task {}", file_name, rank));
      }
    }
  }
  std::string script = "case \"$SLURM_PROCID\" in\n";
  for (const auto& [rank, where] : by_rank) {
    const std::string r = std::to_string(rank);
    script += fmt::format("{}) {} ;;\n", r,
                          ExecLine(where.first->words, r, std::to_string(where.second)));
  }
  if (any != nullptr) {
    // The "*" line's offset: its rank among the ranks no other line names.
    if (num_tasks > 0) {
      uint32_t offset = 0;
      for (uint32_t rank = 0; rank < num_tasks; ++rank) {
        if (by_rank.count(rank)) continue;
        const std::string r = std::to_string(rank);
        script += fmt::format("{}) {} ;;\n", r, ExecLine(any->words, r, std::to_string(offset++)));
      }
    } else {
      script +=
          fmt::format("*) {} ;;\n", ExecLine(any->words, "\"$SLURM_PROCID\"", "\"$SLURM_PROCID\""));
    }
  } else if (num_tasks > 0) {
    for (uint32_t rank = 0; rank < num_tasks; ++rank) {
      if (!by_rank.count(rank)) {
        return InvalidArgument(fmt::format(
            "Configuration file {} invalid, no record for task id {}", file_name, rank));
      }
    }
  }
  const std::string unnamed = "srun: error: " + std::string(file_name) + ": no program for task %t";
  script += "*) echo " + ShellWord(unnamed, "\"$SLURM_PROCID\"", "") + " >&2; exit 1 ;;\nesac\n";
  std::string name(file_name.substr(file_name.rfind('/') + 1));
  return std::vector<std::string>{"/bin/sh", "-c", script, name};
}

}  // namespace rota::cli
