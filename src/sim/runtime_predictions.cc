#include "sim/runtime_predictions.h"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "common/strings.h"
#include "sim/swf_reader.h"

namespace rota::sim {

Result<RuntimePredictions> ParseRuntimePredictions(std::string_view text, const std::string& name) {
  RuntimePredictions predictions;
  const std::vector<std::string_view> lines = Split(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = Trim(lines[i].substr(0, lines[i].find('#')));
    if (line.empty()) continue;
    const size_t line_no = i + 1;
    const size_t gap = line.find_first_of(" \t");
    const std::optional<uint64_t> id =
        gap == std::string_view::npos ? std::nullopt : ParseUint(line.substr(0, gap));
    const std::optional<int64_t> seconds =
        gap == std::string_view::npos ? std::nullopt : ParseInt(Trim(line.substr(gap)));
    if (!id || !seconds) {
      return InvalidArgument(
          fmt::format("{}:{}: expected \"JOBID SECONDS\", got \"{}\"", name, line_no, line));
    }
    if (*seconds <= 0) {
      return InvalidArgument(
          fmt::format("{}:{}: the prediction for job {} is not positive", name, line_no, *id));
    }
    if (!predictions.emplace(*id, *seconds).second) {
      return InvalidArgument(fmt::format("{}:{}: job {} is listed twice", name, line_no, *id));
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
