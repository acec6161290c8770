#include "ctld/server/slurmctld_scripts.h"

#include "common/log.h"
#include "ctld/server/controller_program.h"

namespace rota::ctld {

SlurmctldScripts::SlurmctldScripts(std::unique_ptr<EffectSink> next) : next_(std::move(next)) {}

SlurmctldScripts::~SlurmctldScripts() {
  std::vector<Run> runs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    runs.swap(running_);
  }
  for (Run& run : runs) run.thread.join();
}

void SlurmctldScripts::SetPrologDone(PrologDone prolog_done) {
  std::lock_guard<std::mutex> lock(done_mu_);
  prolog_done_ = std::move(prolog_done);
}

void SlurmctldScripts::JoinEndedLocked() {
  std::erase_if(running_, [](Run& run) {
    if (!run.done->load()) return false;
    run.thread.join();
    return true;
  });
}

void SlurmctldScripts::Carry(const Effects& effects) {
  for (const ControllerScript& script : effects.scripts) {
    std::lock_guard<std::mutex> lock(mu_);
    JoinEndedLocked();
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread thread([this, script, done] {
      const char* what = script.prolog ? "PrologSlurmctld" : "EpilogSlurmctld";
      ProgramOutcome ran = RunControllerProgram({script.program}, script.environment, kTimeout);
      if (ran.ok) {
        spdlog::info("job {}: {} {} done", script.job_id, what, script.program);
      } else {
        spdlog::error("job {}: {} {} {}; its output was '{}'", script.job_id, what, script.program,
                      ran.problem, ran.output);
      }
      if (script.prolog) {
        std::lock_guard<std::mutex> lock(done_mu_);
        if (prolog_done_) prolog_done_(script.job_id, script.run, ran.ok);
      }
      done->store(true);
    });
    running_.push_back({std::move(thread), std::move(done)});
  }
  if (next_ != nullptr && (!effects.launches.empty() || !effects.signals.empty())) {
    next_->Carry(effects);
  }
}

}  // namespace rota::ctld
