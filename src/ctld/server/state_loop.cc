#include "ctld/server/state_loop.h"

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

void StateLoop::Enqueue(Work work) { Push({std::move(work), /*wants_pass=*/true}); }

void StateLoop::EnqueueWithoutPass(Work work) { Push({std::move(work), /*wants_pass=*/false}); }

void StateLoop::EnqueueRead(Work work) { Push({std::move(work), /*wants_pass=*/false}); }

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

bool StateLoop::PassDue(SteadyClock::time_point now, bool wanted) const {
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
  int64_t now = clock_();
  Effects effects;
  std::vector<Reply> replies;
  replies.reserve(batch.size());
  bool wanted = false;
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
  MakeDurable(effects);
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
    MakeDurable(pass_effects);
  }
  if (sink_ != nullptr) {
    for (const Effects* e : {&effects, &pass_effects}) {
      if (!e->launches.empty() || !e->signals.empty() || !e->mails.empty() || !e->scripts.empty()) {
        sink_->Carry(*e);
      }
    }
  }

  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.batches;
  stats_.commands += batch.size();
  if (passed) {
    ++stats_.passes;
    stats_.last_pass_us = last_pass_duration_.count();
    stats_.max_pass_us = std::max<uint64_t>(stats_.max_pass_us, stats_.last_pass_us);
  }
}

void StateLoop::MakeDurable(const Effects& effects) {
  if (accounting_ != nullptr && (!effects.accounting.empty() || !effects.node_events.empty())) {
    Status s = accounting_->Record(effects.accounting);
    if (s.ok()) s = accounting_->RecordNodeEvents(effects.node_events);
    if (!s.ok()) {
      spdlog::critical("cannot make accounting records durable ({}); stopping", s.ToString());
      std::abort();
    }
  }
  if (effects.records.empty()) return;
  std::vector<std::string> payloads;
  payloads.reserve(effects.records.size());
  for (const wire::StateRecord& r : effects.records) payloads.push_back(r.SerializeAsString());
  Result<uint64_t> seq = store_->Append(payloads);
  if (!seq.ok()) {
    // Nothing of this batch may be acknowledged or carried out, and the
    // in-memory state is now ahead of the disk: stop here; a restart recovers
    // what was durable.
    spdlog::critical("cannot make state durable ({}); stopping", seq.status().ToString());
    std::abort();
  }
  FinishSnapshot(false);
  if (!snapshot_.valid() && store_->bytes_since_snapshot() >= options_.snapshot_after_bytes) {
    StartSnapshot(*seq);
  }
}

}  // namespace rota::ctld
