#include "ctld/server/state_loop.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cstdlib>

#include "common/log.h"

namespace rota::ctld {

using SteadyClock = std::chrono::steady_clock;

StateLoop::StateLoop(std::unique_ptr<ControllerCore> core, std::unique_ptr<StateStore> store,
                     EffectSink* sink, WallClock clock, Options options)
    : core_(std::move(core)),
      store_(std::move(store)),
      sink_(sink),
      clock_(std::move(clock)),
      options_(options) {}

StateLoop::~StateLoop() { Stop(); }

void StateLoop::Start() {
  thread_ = std::thread([this] { Run(); });
}

void StateLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StateLoop::StartSnapshot(uint64_t covers_seq) {
  snapshot_seq_ = covers_seq;
  snapshot_ =
      std::async(std::launch::async, [view = core_->TakeSnapshotView(), ops = store_->file_ops(),
                                      dir = store_->dir(), covers_seq] {
        return StateStore::WriteSnapshotData(ops, dir, view.Serialize(), covers_seq);
      });
}

void StateLoop::FinishSnapshot(bool wait) {
  if (!snapshot_.valid()) return;
  if (!wait && snapshot_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  Status s = snapshot_.get();
  if (s.ok()) s = store_->AdoptSnapshot(snapshot_seq_);
  if (!s.ok()) spdlog::error("snapshot failed: {}", s.ToString());
}

void StateLoop::Enqueue(Work work, Refuse refuse) {
  Push({std::move(work), /*wants_pass=*/true, /*read=*/false, std::move(refuse)});
}

void StateLoop::EnqueueWithoutPass(Work work, Refuse refuse) {
  Push({std::move(work), /*wants_pass=*/false, /*read=*/false, std::move(refuse)});
}

void StateLoop::EnqueueRead(Work work) {
  Push({std::move(work), /*wants_pass=*/false, /*read=*/true, nullptr});
}

void StateLoop::Push(Queued queued) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(queued));
  }
  cv_.notify_one();
}

StateLoop::Stats StateLoop::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::string StateLoop::refusing_changes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refusing_;
}

bool StateLoop::PassDue(SteadyClock::time_point now, bool wanted) const {
  if (refusing()) return false;  // What a pass starts could not be recorded.
  if (now - last_pass_ >= options_.periodic_pass) return true;
  // After a change, pass again soon — but never spend more than about a third
  // of the loop's time scheduling, however deep the queue.
  auto gap =
      std::max<std::chrono::microseconds>(std::chrono::microseconds(500), 2 * last_pass_duration_);
  return (wanted || pass_wanted_) && now - last_pass_ >= gap;
}

void StateLoop::Run() {
  std::deque<Queued> batch;
  while (true) {
    // Only this thread touches the core: work out the wake-up before locking.
    auto wake = last_pass_ + options_.periodic_pass;
    if (pass_wanted_) {
      wake =
          std::min(wake, last_pass_ + std::max<std::chrono::microseconds>(
                                          std::chrono::microseconds(500), 2 * last_pass_duration_));
    }
    if (std::optional<int64_t> t = core_->NextWakeTime()) {
      int64_t secs = *t - clock_();
      wake = std::min(wake, SteadyClock::now() + std::chrono::seconds(std::max<int64_t>(0, secs)));
    }
    // While refusing no pass runs, so only the next try is due.
    if (refusing()) wake = last_retry_ + options_.retry_durable;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_until(lock, wake, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_ && queue_.empty()) {
        lock.unlock();
        FinishSnapshot(true);
        return;
      }
      size_t n = std::min(queue_.size(), options_.max_batch);
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    RunBatch(batch);
    batch.clear();
  }
}

void StateLoop::RunBatch(std::deque<Queued>& batch) {
  if (refusing() && SteadyClock::now() - last_retry_ >= options_.retry_durable) TryToResume();
  if (!refusing() &&
      std::any_of(batch.begin(), batch.end(), [](const Queued& q) { return !q.read; })) {
    EnoughSpace();
  }
  if (refusing()) return RunBatchWhileRefusing(batch);
  int64_t now = clock_();
  Effects effects;
  std::vector<Reply> replies;
  replies.reserve(batch.size());
  bool wanted = false;
  if (options_.follow_clock_steps) {
    if (const int64_t step = clock_steps_.Sample(now, SteadyClock::now()); step != 0) {
      spdlog::warn(
          "the wall clock stepped {:+} s; running and pending jobs and node contacts keep their "
          "durations",
          step);
      core_->ClockStepped(step, now, effects);
      wanted = true;
    }
  }
  for (Queued& q : batch) {
    replies.push_back(q.work(*core_, now, effects));
    wanted |= q.wants_pass;
  }
  // Any command may have changed what can run (a node registering writes no
  // record, yet frees a whole node), so each batch with one asks for a pass.
  // Reads and held submissions cannot: a batch of those alone waits for no pass.
  pass_wanted_ |= wanted;

  // The batch is answered as soon as what it changed is durable: the pass
  // comes after, so that a pass over a deep queue never delays an answer. A
  // request that arrives meanwhile is applied after the pass, so it sees what
  // the pass started.
  int stage = 0;
  if (Status durable = MakeDurable(effects, &stage); !durable.ok()) {
    Hold({std::move(effects), std::move(replies), stage}, durable);
    return;
  }
  for (Reply& r : replies) {
    if (r) r();
  }

  Effects pass_effects;
  auto steady_now = SteadyClock::now();
  bool passed = false;
  if (PassDue(steady_now, wanted)) {
    core_->Tick(now, pass_effects);
    auto end = SteadyClock::now();
    last_pass_duration_ = std::chrono::duration_cast<std::chrono::microseconds>(end - steady_now);
    last_pass_ = end;
    pass_wanted_ = false;
    passed = true;
    // What the pass started is durable before any node hears of it.
    int pass_stage = 0;
    if (Status durable = MakeDurable(pass_effects, &pass_stage); !durable.ok()) {
      Carry(effects);
      Hold({std::move(pass_effects), {}, pass_stage}, durable);
      pass_effects = Effects();
    }
  }
  Carry(effects);
  Carry(pass_effects);

  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.batches;
  stats_.commands += batch.size();
  if (passed) {
    ++stats_.passes;
    stats_.last_pass_us = last_pass_duration_.count();
    stats_.max_pass_us = std::max<uint64_t>(stats_.max_pass_us, stats_.last_pass_us);
  }
}

void StateLoop::Carry(const Effects& effects) {
  if (sink_ == nullptr) return;
  if (!effects.launches.empty() || !effects.signals.empty() || !effects.mails.empty() ||
      !effects.scripts.empty()) {
    sink_->Carry(effects);
  }
}

Status StateLoop::MakeDurable(const Effects& effects, int* stage) {
  if (accounting_ != nullptr) {
    if (*stage < 1 && !effects.accounting.empty()) {
      Status s = accounting_->Record(effects.accounting);
      if (!s.ok()) return Status(s.code(), "accounting records: " + s.message());
    }
    *stage = std::max(*stage, 1);
    if (*stage < 2 && !effects.node_events.empty()) {
      Status s = accounting_->RecordNodeEvents(effects.node_events);
      if (!s.ok()) return Status(s.code(), "node events: " + s.message());
    }
  }
  *stage = 2;
  if (effects.records.empty()) return Status::Ok();
  std::vector<std::string> payloads;
  payloads.reserve(effects.records.size());
  for (const wire::StateRecord& r : effects.records) payloads.push_back(r.SerializeAsString());
  Result<uint64_t> seq = store_->Append(payloads);
  if (!seq.ok()) {
    if (seq.status().code() != StatusCode::kUnavailable) {
      // The log cannot tell what reached the disk (a failed sync): nothing
      // of this batch may be acknowledged or carried out, and nothing later
      // could be recorded after it. A restart recovers what was durable.
      spdlog::critical("cannot make state durable ({}); stopping", seq.status().ToString());
      std::abort();
    }
    return seq.status();
  }
  FinishSnapshot(false);
  if (!snapshot_.valid() && store_->bytes_since_snapshot() >= options_.snapshot_after_bytes) {
    StartSnapshot(*seq);
  }
  return Status::Ok();
}

void StateLoop::StartRefusing(std::string why) {
  std::string refusing = "the controller cannot save its state in " + store_->dir() + " (" + why +
                         "); changes are refused until it can";
  last_retry_ = SteadyClock::now();
  std::lock_guard<std::mutex> lock(mu_);
  if (refusing_.empty()) {
    // Once per episode, not once per try.
    spdlog::error("{}; serving reads meanwhile and trying again every {} ms", refusing,
                  options_.retry_durable.count());
  }
  refusing_ = std::move(refusing);
}

void StateLoop::Hold(Undurable held, const Status& why) {
  held_ = std::move(held);
  StartRefusing(why.message());
}

bool StateLoop::EnoughSpace() {
  struct statvfs fs {};
  if (statvfs(store_->dir().c_str(), &fs) != 0) return true;  // The write will tell.
  // A file system the kernel made read-only (errors=remount-ro) would fail
  // the write in a way the log cannot undo: refuse before writing.
  if ((fs.f_flag & ST_RDONLY) != 0) {
    short_of_space_ = true;
    StartRefusing("its file system is read-only");
    return false;
  }
  const uint64_t free_bytes = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  short_of_space_ = free_bytes < options_.min_free_bytes;
  if (short_of_space_) {
    StartRefusing(fmt::format("{} KiB free, less than the {} KiB kept in reserve", free_bytes >> 10,
                              options_.min_free_bytes >> 10));
  }
  return !short_of_space_;
}

void StateLoop::TryToResume() {
  last_retry_ = SteadyClock::now();
  if (held_) {
    if (!MakeDurable(held_->effects, &held_->stage).ok()) return;  // Said once already.
    Undurable held = std::move(*held_);
    held_.reset();
    for (Reply& r : held.replies) {
      if (r) r();
    }
    Carry(held.effects);
  }
  if (!EnoughSpace()) return;
  spdlog::info("the controller can save its state again; accepting changes");
  std::lock_guard<std::mutex> lock(mu_);
  refusing_.clear();
  // What was kept goes first, in its order, before anything that came later.
  while (!deferred_.empty()) {
    queue_.push_front(std::move(deferred_.back()));
    deferred_.pop_back();
  }
  pass_wanted_ = true;
}

void StateLoop::RunBatchWhileRefusing(std::deque<Queued>& batch) {
  const std::string why = refusing_changes();
  const int64_t now = clock_();
  std::vector<Reply> replies;
  for (Queued& q : batch) {
    if (q.read) {
      Effects none;
      replies.push_back(q.work(*core_, now, none));
    } else if (q.refuse) {
      q.refuse(Status(StatusCode::kUnavailable, why));
    } else {
      deferred_.push_back(std::move(q));
    }
  }
  for (Reply& r : replies) {
    if (r) r();
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.batches;
  stats_.commands += batch.size();
}

}  // namespace rota::ctld
