#include "sim/runtime_predictions.h"

#include <fmt/format.h>

#include <charconv>

#include "sim/swf_reader.h"

namespace rota::sim {
namespace {

std::string_view Trim(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

template <typename T>
bool ParseNumber(std::string_view text, T& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<RuntimePredictions> ParseRuntimePredictions(std::string_view text, const std::string& name) {
  RuntimePredictions predictions;
  size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const size_t gap = line.find_first_of(" \t");
    uint64_t id = 0;
    int64_t seconds = 0;
    if (gap == std::string_view::npos || !ParseNumber(line.substr(0, gap), id) ||
        !ParseNumber(Trim(line.substr(gap)), seconds)) {
      return InvalidArgument(
          fmt::format("{}:{}: expected \"JOBID SECONDS\", got \"{}\"", name, line_no, line));
    }
    if (seconds <= 0) {
      return InvalidArgument(
          fmt::format("{}:{}: the prediction for job {} is not positive", name, line_no, id));
    }
    if (!predictions.emplace(id, seconds).second) {
      return InvalidArgument(fmt::format("{}:{}: job {} is listed twice", name, line_no, id));
    }
  }
  return predictions;
}

Result<RuntimePredictions> ReadRuntimePredictions(const std::string& path) {
  Result<std::string> text = ReadMaybeGzip(path);
  if (!text.ok()) return text.status();
  return ParseRuntimePredictions(*text, path);
}

}  // namespace rota::sim
