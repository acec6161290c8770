#include "noded/gpu/discovery/word_lines.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/strings.h"

namespace rota::noded {

Status ForEachWordLine(
    std::string_view text, std::string_view origin,
    const std::function<std::string(const std::vector<std::string_view>&)>& line) {
  int line_number = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++line_number;
    std::string spaced(raw.substr(0, raw.find('#')));
    std::replace(spaced.begin(), spaced.end(), '\t', ' ');
    std::vector<std::string_view> words;
    for (std::string_view word : Split(spaced, ' ')) {
      if (!Trim(word).empty()) words.push_back(Trim(word));
    }
    if (words.empty()) continue;
    if (std::string why = line(words); !why.empty()) {
      return InvalidArgument(fmt::format("{}:{}: {}", origin, line_number, why));
    }
  }
  return Status::Ok();
}

}  // namespace rota::noded
