#pragma once

// The option names in a cell of docs/options.md's tables, for the tests that
// check those tables against the commands' own: "`-n`, `--ntasks`" names
// --ntasks and -n.

#include <string>
#include <string_view>
#include <vector>

namespace rota::testing {

struct OptionNames {
  std::vector<std::string> long_names;  // Without the "--"
  std::vector<char> letters;
};

inline OptionNames OptionNamesOfCell(std::string_view cell) {
  OptionNames names;
  for (size_t tick = cell.find('`'); tick != std::string_view::npos;
       tick = cell.find('`', tick + 1)) {
    const size_t end = cell.find('`', tick + 1);
    if (end == std::string_view::npos) break;
    const std::string_view name = cell.substr(tick + 1, end - tick - 1);
    if (name.starts_with("--")) {
      names.long_names.emplace_back(name.substr(2));
    } else if (name.size() == 2 && name[0] == '-') {
      names.letters.push_back(name[1]);
    }
    tick = end;
  }
  return names;
}

}  // namespace rota::testing
