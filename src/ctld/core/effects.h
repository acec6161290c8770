#pragma once

// What the controller core asks the world to do. The core never does I/O:
// each command appends effects here and the server (or the simulator)
// carries them out — records are made durable before any reply is sent.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "node_events.pb.h"
#include "rota.pb.h"

namespace rota::ctld {

// Start a job's batch script on its first node (the node daemon's business).
struct LaunchJob {
  std::shared_ptr<const wire::JobRecord> job;
  std::shared_ptr<const wire::JobPayload> payload;  // Script and environment
};

// Deliver a signal to a running job's processes on its nodes.
struct SignalJob {
  uint32_t job_id = 0;
  std::vector<std::string> nodes;
  int signal = 0;
  bool batch_only = false;
  bool terminate = false;   // SIGKILL after KillWait if the job is still there
  bool steps_only = false;  // srun's tasks only, not the batch script (wire::SignalJobRequest)
};

// Run slurm.conf's MailProg as `MailProg -s SUBJECT RECIPIENT` with
// `environment` (a job's --mail-type event; ctld/core/job_mail.h).
struct MailNotice {
  uint32_t job_id = 0;
  std::string recipient;
  std::string subject;
  std::vector<std::string> environment;  // NAME=value
};

// Run slurm.conf's EpilogSlurmctld or PrologSlurmctld (`program`) for a job,
// with the job's variables (ctld/core/job_script_env.h). A prolog's outcome
// goes back to ControllerCore::PrologSlurmctldDone with `run`.
struct ControllerScript {
  uint32_t job_id = 0;
  std::string program;
  std::vector<std::string> environment;  // NAME=value
  bool prolog = false;
  uint32_t run = 0;  // The job's restart count when asked
};

struct Effects {
  std::vector<wire::StateRecord> records;  // To append to the write-ahead log
  std::vector<LaunchJob> launches;
  std::vector<SignalJob> signals;
  // Job attempts started or ended, for rotadbd (accounting_records.h). Made
  // durable in the accounting outbox before the batch's log records.
  std::vector<wire::AccountingJob> accounting;
  // Nodes gone out of service or back (node_events.h), made durable with them.
  std::vector<wire::NodeEvent> node_events;
  std::vector<MailNotice> mails;
  std::vector<ControllerScript> scripts;

  bool empty() const {
    return records.empty() && launches.empty() && signals.empty() && accounting.empty() &&
           node_events.empty() && mails.empty() && scripts.empty();
  }
};

}  // namespace rota::ctld
