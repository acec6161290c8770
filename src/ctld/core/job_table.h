#pragma once

// The controller's jobs: their records, their scripts and environments, and
// the job ids. Records are shared with views published to other threads
// (squeue's listings, snapshots), so a change goes through Mutable, which
// copies a shared record first: a published view never sees a change.
// Pending jobs' requests are parsed (ShapeJob) once, not at every pass: the
// shape is kept until the record or the configuration changes.
// Finished jobs stay for MinJobAge (300 s by default: at a few hundred jobs
// a second, tens of thousands of them), so what the passes and timers walk is
// the live jobs (`live`), and the finished jobs wait for their purge in
// order of their end (`TakeFinishedBy`).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "ctld/core/job_shape.h"
#include "rota.pb.h"
#include "sched/cluster_model.h"

namespace rota::ctld {

// An immutable view of every job, for listing commands on other threads.
using JobView = std::vector<std::shared_ptr<const wire::JobRecord>>;

class JobTable {
 public:
  using Ptr = std::shared_ptr<const wire::JobRecord>;
  using Map = std::map<uint32_t, Ptr>;  // Ordered: passes walk jobs by id

  explicit JobTable(uint32_t first_job_id);
  // Not copied: the live jobs point into this table's own records. A move
  // keeps them (std::map's elements move with it).
  JobTable(const JobTable&) = delete;
  JobTable& operator=(const JobTable&) = delete;
  JobTable(JobTable&&) = default;
  JobTable& operator=(JobTable&&) = default;

  // ---- Reading ----
  Map::const_iterator begin() const { return jobs_.begin(); }
  Map::const_iterator end() const { return jobs_.end(); }
  Map::const_iterator find(uint32_t id) const { return jobs_.find(id); }
  size_t size() const { return jobs_.size(); }
  bool contains(uint32_t id) const { return jobs_.count(id) > 0; }
  // Null when there is no such job.
  const wire::JobRecord* Find(uint32_t id) const;
  // The record, shared (launches and views hold it); the job must exist.
  const Ptr& at(uint32_t id) const { return jobs_.at(id); }
  // The script and environment of a job (an array's tasks share the array's);
  // null when it has none or it cannot be read.
  std::shared_ptr<const wire::JobPayload> FindPayload(const wire::JobRecord& job) const;
  // The packed payloads by submission id, for snapshots.
  const std::map<uint32_t, std::shared_ptr<const std::string>>& payloads() const {
    return payloads_;
  }
  // The id the next submission would take, unless a live job holds it.
  uint32_t next_id() const { return next_id_; }
  // ShapeJob of `job` (in the table) in `partition`: parsed on first use and
  // kept until the job's request changes (Replace, Insert) or ForgetShapes.
  // Errors are not kept. Debug builds check on every use that the request
  // did not change behind the table's back.
  // REQUIRES: what ShapeJob requires; the same configuration and model until
  // ForgetShapes.
  Result<JobShape> ShapeOf(const wire::JobRecord& job, const conf::PartitionConfig& partition,
                           const conf::ClusterConfig& config,
                           const sched::ClusterModel& model) const;
  // The nodes `job` named (-w) when they are every node it needs
  // (NamesAllItsNodes), else empty: what the main pass keeps off when it does
  // not fit, instead of holding back its partition.
  std::vector<uint32_t> PinnedNodes(const wire::JobRecord& job,
                                    const conf::PartitionConfig& partition,
                                    const conf::ClusterConfig& config,
                                    const sched::ClusterModel& model) const;

  // Every job that has not finished is among these (in id order, each with
  // its record), and so may be some that finished since the last
  // PruneFinished: readers still check the state. Insert, Replace and Mutable
  // add the job. The records are the table's own (std::map keeps its
  // elements in place), so a walk costs what a walk of the table did.
  using LiveMap = std::map<uint32_t, const Ptr*>;
  const LiveMap& live() const { return live_; }

  // ---- Changing ----
  // The record to change in place; copied first when a view shares it.
  // Not for its request (spec): that goes through Replace.
  wire::JobRecord& Mutable(uint32_t id);
  // The job's new record, its request changed (scontrol update).
  void Replace(uint32_t id, const wire::JobRecord& record);
  // Adds or replaces a record. A record written before payloads were kept
  // apart carries its script inline: it moves to the payloads.
  void Insert(wire::JobRecord job);
  // Forgets a job and its payload.
  void Erase(uint32_t id);
  // Keeps a submission's payload (packing it unless it already is).
  void StorePayload(const wire::JobPayload& payload);
  // A new id: the next one that no live job holds.
  uint32_t AllocateId();
  // Ids below `id` are taken (a snapshot's or a record's next id).
  void RaiseNextId(uint32_t id);
  void Clear();
  // Moves the jobs that finished out of the live jobs, into the queue of
  // finished jobs by end time. One that finished with a backfill plan still
  // on it (cancelled while pending) stays until the backfill pass, which walks
  // the live jobs, has cleared the plan.
  void PruneFinished();
  // The finished jobs that ended at or before `ended_by` (oldest first), out
  // of the queue; and when the next one ended. REQUIRES: PruneFinished first,
  // so that a job that finished again is queued by its new end.
  std::vector<uint32_t> TakeFinishedBy(int64_t ended_by);
  std::optional<int64_t> NextFinishedEnd() const;
  // Something readers see changed outside the records (a node's state):
  // the next Publish builds a new view.
  void Touch() { ++version_; }
  // The configuration or the node model changed: every kept shape goes.
  void ForgetShapes() { shapes_.clear(); }

  // A consistent view of all jobs; the same view while nothing changed.
  std::shared_ptr<const JobView> Publish();

 private:
  Map jobs_;
  LiveMap live_;  // See live()
  // Finished jobs by (end time, id) as PruneFinished found them; an entry is
  // checked against the record when it is taken (the job may be gone, or
  // requeued and live again).
  std::set<std::pair<int64_t, uint32_t>> finished_;
  // Scripts and environments by the submission's job id, out of the records.
  // Packed (model/job_payload.h): one small allocation per submission.
  std::map<uint32_t, std::shared_ptr<const std::string>> payloads_;
  uint32_t next_id_;
  // Kept shapes by job id, with the partition each was made for.
  struct KeptShape {
    const conf::PartitionConfig* partition;
    JobShape shape;
#ifndef NDEBUG
    std::string request{};  // The spec it was made from, serialized
#endif
  };
  mutable std::unordered_map<uint32_t, KeptShape> shapes_;
  uint64_t version_ = 0;  // Bumped on every change visible to readers
  uint64_t published_version_ = UINT64_MAX;
  std::shared_ptr<const JobView> published_;
};

}  // namespace rota::ctld
