#include "cli/refused_option.h"

#include <cstring>
#include <iostream>

namespace rota::cli {

bool ReportRefusedOption(std::string_view command, int c, const option* long_options,
                         int long_index, std::span<const RefusedOption> refused) {
  for (const RefusedOption& r : refused) {
    const bool by_name = c == kRefusedOption && long_index >= 0 &&
                         std::strcmp(long_options[long_index].name, r.name) == 0;
    const bool by_letter = r.letter != 0 && c == r.letter;
    if (by_name || by_letter) {
      std::cerr << command << ": error: --" << r.name << ": " << r.why << "\n";
      return true;
    }
  }
  return false;
}

}  // namespace rota::cli
