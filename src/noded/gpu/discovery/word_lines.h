#pragma once

// The line format of the fake GPU files (the inventory, the readings
// scripts): words separated by spaces or tabs, '#' to the end of a line a
// comment, blank lines skipped.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::noded {

// Calls `line` with the words of each line that has some, in order. A
// non-empty answer is what is wrong with that line: the error then reads
// "ORIGIN:LINE: answer" and the lines after it are not read.
Status ForEachWordLine(
    std::string_view text, std::string_view origin,
    const std::function<std::string(const std::vector<std::string_view>&)>& line);

}  // namespace rota::noded
