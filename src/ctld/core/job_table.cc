#include "ctld/core/job_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "model/job_payload.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

// Finished, and no backfill plan left on it to clear (see PruneFinished).
bool DoneWith(const wire::JobRecord& job) {
  return model::IsFinished(job.state()) && job.sched_start_time() == 0 && job.sched_nodes().empty();
}

}  // namespace

JobTable::JobTable(uint32_t first_job_id) : next_id_(std::max(1u, first_job_id)) {}

const wire::JobRecord* JobTable::Find(uint32_t id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : it->second.get();
}

std::shared_ptr<const wire::JobPayload> JobTable::FindPayload(const wire::JobRecord& job) const {
  auto it = payloads_.find(job.array_job_id() != 0 ? job.array_job_id() : job.job_id());
  if (it == payloads_.end()) return nullptr;
  Result<wire::JobPayload> payload = model::UnpackPayload(job.job_id(), *it->second);
  if (!payload.ok()) return nullptr;
  return std::make_shared<const wire::JobPayload>(std::move(payload).value());
}

std::vector<uint32_t> JobTable::PinnedNodes(const wire::JobRecord& job,
                                            const conf::PartitionConfig& partition,
                                            const conf::ClusterConfig& config,
                                            const sched::ClusterModel& model) const {
  Result<JobShape> shape = ShapeOf(job, partition, config, model);
  if (!shape.ok() || !NamesAllItsNodes(*shape)) return {};
  return shape->request.required_nodes;
}

Result<JobShape> JobTable::ShapeOf(const wire::JobRecord& job,
                                   const conf::PartitionConfig& partition,
                                   const conf::ClusterConfig& config,
                                   const sched::ClusterModel& model) const {
  auto it = shapes_.find(job.job_id());
  if (it != shapes_.end() && it->second.partition == &partition) {
#ifndef NDEBUG
    if (it->second.request != job.spec().SerializeAsString()) {
      std::fprintf(stderr, "JobTable: job %u's request changed without Replace\n", job.job_id());
      std::abort();
    }
#endif
    return it->second.shape;
  }
  Result<JobShape> shape = ShapeJob(job.spec(), partition, config, model);
  if (shape.ok()) {
    KeptShape kept{&partition, *shape};
#ifndef NDEBUG
    kept.request = job.spec().SerializeAsString();
#endif
    shapes_.insert_or_assign(job.job_id(), std::move(kept));
  }
  return shape;
}

wire::JobRecord& JobTable::Mutable(uint32_t id) {
  Ptr& p = jobs_.at(id);
  ++version_;
  live_.try_emplace(id, &p);  // The change may make a finished job live again (requeue).
  if (p.use_count() > 1) {
    auto copy = std::make_shared<wire::JobRecord>(*p);
    wire::JobRecord& record = *copy;
    p = std::move(copy);
    return record;
  }
  // Alone: every record is made non-const (Insert, the copy above), so it
  // may be changed in place.
  return const_cast<wire::JobRecord&>(*p);
}

void JobTable::Replace(uint32_t id, const wire::JobRecord& record) {
  Mutable(id) = record;
  shapes_.erase(id);
}

void JobTable::Insert(wire::JobRecord job) {
  const uint32_t id = job.job_id();
  if (!job.spec().script().empty() || job.spec().environment_size() > 0) {
    wire::JobPayload payload;
    payload.set_job_id(id);
    payload.set_script(std::move(*job.mutable_spec()->mutable_script()));
    payload.mutable_environment()->Swap(job.mutable_spec()->mutable_environment());
    job.mutable_spec()->clear_script();
    job.mutable_spec()->clear_environment();
    StorePayload(payload);
  }
  RaiseNextId(id + 1);
  shapes_.erase(id);
  Ptr& slot = jobs_[id];
  slot = std::make_shared<wire::JobRecord>(std::move(job));
  live_.insert_or_assign(id, &slot);
  ++version_;
}

void JobTable::Erase(uint32_t id) {
  jobs_.erase(id);
  live_.erase(id);
  payloads_.erase(id);
  shapes_.erase(id);
  ++version_;
}

void JobTable::StorePayload(const wire::JobPayload& payload) {
  payloads_[payload.job_id()] = std::make_shared<const std::string>(
      payload.packed().empty() ? model::PackPayload(payload) : payload.packed());
}

uint32_t JobTable::AllocateId() {
  uint32_t id = next_id_++;
  while (jobs_.count(id) > 0) id = next_id_++;  // Never reuse a live id.
  return id;
}

void JobTable::RaiseNextId(uint32_t id) { next_id_ = std::max(next_id_, id); }

void JobTable::Clear() {
  jobs_.clear();
  live_.clear();
  finished_.clear();
  payloads_.clear();
  shapes_.clear();
  ++version_;
}

void JobTable::PruneFinished() {
  for (auto it = live_.begin(); it != live_.end();) {
    const wire::JobRecord& job = **it->second;
    if (DoneWith(job)) {
      finished_.emplace(job.end_time(), it->first);
      it = live_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<uint32_t> JobTable::TakeFinishedBy(int64_t ended_by) {
  std::vector<uint32_t> taken;
  while (!finished_.empty() && finished_.begin()->first <= ended_by) {
    const auto [end, id] = *finished_.begin();
    finished_.erase(finished_.begin());
    auto job = jobs_.find(id);
    // Gone, or live again: a later PruneFinished queues it by its new end.
    if (job == jobs_.end() || live_.count(id) > 0) continue;
    if (job->second->end_time() != end) {
      finished_.emplace(job->second->end_time(), id);  // Changed after it was queued
      continue;
    }
    taken.push_back(id);
  }
  return taken;
}

std::optional<int64_t> JobTable::NextFinishedEnd() const {
  if (finished_.empty()) return std::nullopt;
  return finished_.begin()->first;
}

std::shared_ptr<const JobView> JobTable::Publish() {
  if (published_ && published_version_ == version_) return published_;
  auto view = std::make_shared<JobView>();
  view->reserve(jobs_.size());
  for (const auto& [id, job] : jobs_) view->push_back(job);
  published_ = std::move(view);
  published_version_ = version_;
  return published_;
}

}  // namespace rota::ctld
