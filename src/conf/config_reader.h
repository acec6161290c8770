#pragma once

// Reads a file in Slurm's configuration syntax into logical lines of Key=Value
// pairs, shared by slurm.conf, gres.conf, cgroup.conf and topology.conf:
// - '#' starts a comment (write "\#" for a literal '#');
// - a line ending in '\' continues on the next one (the logical line keeps the
//   number of its first physical line);
// - "Include PATTERN" reads other files in place (globs allowed; a relative
//   pattern is relative to the including file's directory);
// - pairs are separated by blanks; a value may be double-quoted to hold blanks;
//   the first '=' splits key from value (PriorityWeightTRES=CPU=1000 is one pair).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conf/diagnostics.h"

namespace rota::conf {

struct KeyValue {
  std::string key;    // As written; compare with EqualsIgnoreCase.
  std::string value;  // Quotes removed.
};

struct ConfigLine {
  SourceLocation where;
  std::vector<KeyValue> pairs;

  // The value of the first pair whose key matches (case-insensitive), or nullptr.
  const std::string* Find(std::string_view key) const;
};

// A line without its comment: everything from an unescaped '#' on goes;
// "\#" becomes '#'.
std::string StripComment(std::string_view raw);

// The pattern of an "Include PATTERN" line (its comment already stripped),
// quotes taken off; nullopt for any other line, "" for an Include naming nothing.
std::optional<std::string> IncludePatternOf(std::string_view uncommented_line);

// The paths an Include pattern matches, sorted; none when nothing matches.
std::vector<std::string> GlobPaths(const std::string& pattern);

// Reads `path`. Problems (unreadable file, a token that is not Key=Value, an
// unterminated quote, an Include that matches nothing or loops) are recorded
// in `diags`; the lines that could be read are returned either way.
// A missing top-level file is an error when `required`, otherwise nothing.
std::vector<ConfigLine> ReadConfigFile(const std::string& path, bool required, Diagnostics& diags);

// Splits one logical line (comments already removed) into pairs. Exposed for tests.
std::vector<KeyValue> TokenizeConfigLine(std::string_view text, const SourceLocation& where,
                                         Diagnostics& diags);

}  // namespace rota::conf
