#include "cli/accounting/sacct_job_selection.h"

#include <algorithm>

#include "common/strings.h"

namespace rota::cli {
namespace {

std::optional<uint32_t> JobNumber(std::string_view text, bool zero_ok) {
  std::optional<uint64_t> n = ParseUint(text);
  if (!n || (*n == 0 && !zero_ok) || *n > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*n);
}

}  // namespace

Status SacctJobSelection::Add(std::string_view list) {
  for (std::string_view piece : Split(list, ',')) {
    Item item;
    std::string_view job = piece;
    if (size_t dot = piece.find('.'); dot != std::string_view::npos) {
      job = piece.substr(0, dot);
      item.step = std::string(piece.substr(dot + 1));
    }
    std::string_view id = job;
    if (size_t underscore = job.find('_'); underscore != std::string_view::npos) {
      id = job.substr(0, underscore);
      item.task = JobNumber(job.substr(underscore + 1), /*zero_ok=*/true);
      if (!item.task) return InvalidArgument("Bad job/step specified: " + std::string(piece));
    }
    std::optional<uint32_t> n = JobNumber(id, /*zero_ok=*/false);
    if (!n || (piece.find('.') != std::string_view::npos && item.step.empty())) {
      return InvalidArgument("Bad job/step specified: " + std::string(piece));
    }
    item.id = *n;
    items_.push_back(std::move(item));
  }
  return Status::Ok();
}

std::vector<uint32_t> SacctJobSelection::QueryIds() const {
  std::vector<uint32_t> ids;
  for (const Item& item : items_) ids.push_back(item.id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool SacctJobSelection::Names(const Item& item, const wire::AccountingJob& job) const {
  if (item.task) return job.array_job_id() == item.id && job.array_task_id() == *item.task;
  return job.job_id() == item.id || job.array_job_id() == item.id;
}

void SacctJobSelection::Apply(std::vector<wire::AccountingJob>& jobs,
                              std::map<uint32_t, std::vector<std::string>>& only_steps) const {
  std::vector<wire::AccountingJob> kept;
  kept.reserve(jobs.size());
  for (wire::AccountingJob& job : jobs) {
    bool named = false, whole = false;
    std::vector<std::string> steps;
    for (const Item& item : items_) {
      if (!Names(item, job)) continue;
      named = true;
      if (item.step.empty()) {
        whole = true;
      } else {
        steps.push_back(item.step);
      }
    }
    if (!named) continue;
    if (!whole) only_steps[job.job_id()] = std::move(steps);
    kept.push_back(std::move(job));
  }
  jobs = std::move(kept);
}

}  // namespace rota::cli
