#include "cli/step/task_output.h"

#include <fmt/format.h>

namespace rota::cli {

TaskOutput::TaskOutput(bool label, uint32_t num_tasks)
    : label_(label),
      width_(static_cast<int>(std::to_string(num_tasks > 0 ? num_tasks - 1 : 0).size())) {}

std::string TaskOutput::Prefix(uint32_t task) const {
  return fmt::format("{:>{}}: ", task, width_);
}

std::string TaskOutput::Add(uint32_t task, int stream, std::string_view data) {
  if (!label_) return std::string(data);
  std::string& partial = partial_[{task, stream}];
  std::string out;
  size_t start = 0;
  while (start < data.size()) {
    size_t nl = data.find('\n', start);
    if (nl == std::string_view::npos) {
      partial.append(data.substr(start));
      break;
    }
    out += Prefix(task);
    out += partial;
    partial.clear();
    out.append(data.substr(start, nl + 1 - start));
    start = nl + 1;
  }
  return out;
}

std::string TaskOutput::Flush(uint32_t task, int stream) {
  auto it = partial_.find({task, stream});
  if (it == partial_.end() || it->second.empty()) return "";
  std::string out = Prefix(task) + it->second + "\n";
  partial_.erase(it);
  return out;
}

}  // namespace rota::cli
