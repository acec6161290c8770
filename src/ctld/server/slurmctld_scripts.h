#pragma once

// Carries out the controller's script effects: slurm.conf's PrologSlurmctld
// for each job allocated and EpilogSlurmctld for each job whose allocation
// ended (ctld/core/job_script_env.h), run as rotactld runs (root or
// SlurmUser) with the job's variables. Each runs on a thread of its own, so
// that neither the state loop nor one slow script holds up the others; a
// failure is logged, and a prolog's outcome is handed to `prolog_done`.
// Everything else goes on to `next`.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ctld/server/state_loop.h"

namespace rota::ctld {

class SlurmctldScripts : public EffectSink {
 public:
  // How long one script may run before it is killed (as rotad's Prolog and
  // Epilog: Slurm's own default is to wait for ever).
  static constexpr std::chrono::seconds kTimeout{300};

  explicit SlurmctldScripts(std::unique_ptr<EffectSink> next);
  ~SlurmctldScripts() override;  // Waits for the scripts still running.

  void Carry(const Effects& effects) override;
  // Where a PrologSlurmctld's outcome goes (the state loop); an empty one
  // (before the loop stops) drops outcomes from then on.
  using PrologDone = std::function<void(uint32_t job_id, uint32_t run, bool ok)>;
  void SetPrologDone(PrologDone prolog_done);

 private:
  struct Run {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;  // Set by the thread as it ends
  };
  // Joins the runs that have ended (a finished thread holds its stack until
  // joined). REQUIRES: mu_ held.
  void JoinEndedLocked();

  const std::unique_ptr<EffectSink> next_;
  std::mutex done_mu_;
  PrologDone prolog_done_;  // Guarded by done_mu_ (held while it is called).
  std::mutex mu_;
  std::vector<Run> running_;  // Guarded by mu_.
};

}  // namespace rota::ctld
