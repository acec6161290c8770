// sdiag's request to the controller: the scheduler's statistics from the core
// (read on the state loop), the RPC statistics from the service, or, for
// root and SlurmUser, their reset.
#include <memory>

#include "ctld/server/controller_service.h"
#include "diag.pb.h"

namespace rota::ctld {
namespace {

void FillSched(const SchedStats& s, bool backfill, wire::DiagResponse& out) {
  out.set_data_since(s.since());
  out.set_jobs_submitted(s.jobs_submitted());
  out.set_jobs_started(s.jobs_started());
  out.set_jobs_completed(s.jobs_completed());
  out.set_jobs_canceled(s.jobs_canceled());
  out.set_jobs_failed(s.jobs_failed());
  const MainPassStats& m = s.main();
  out.set_schedule_cycle_last(m.last_cycle_us);
  out.set_schedule_cycle_max(m.max_cycle_us);
  out.set_schedule_cycle_counter(m.cycles);
  out.set_schedule_cycle_mean(m.MeanCycle());
  out.set_schedule_cycle_mean_depth(m.MeanDepth());
  out.set_schedule_queue_len(m.last_queue_length);
  const BackfillPassStats& b = s.backfill();
  out.set_backfill_enabled(backfill);
  out.set_bf_backfilled_jobs(b.backfilled_jobs);
  out.set_bf_last_backfilled_jobs(b.backfilled_since_reset);
  out.set_bf_cycle_counter(b.cycles);
  out.set_bf_when_last_cycle(b.last_cycle_when);
  out.set_bf_cycle_last(b.last_cycle_us);
  out.set_bf_cycle_max(b.max_cycle_us);
  out.set_bf_cycle_mean(b.MeanCycle());
  out.set_bf_last_depth(b.last_depth);
  out.set_bf_last_depth_try(b.last_depth_try);
  out.set_bf_depth_mean(b.MeanDepth());
  out.set_bf_depth_mean_try(b.MeanDepthTry());
  out.set_bf_queue_len(b.last_queue_length);
  out.set_bf_queue_len_mean(b.MeanQueueLength());
  out.set_bf_table_size(b.last_table_size);
  out.set_bf_table_size_mean(b.MeanTableSize());
}

}  // namespace

void ControllerService::Diag(const Caller& caller, const std::string& body,
                             rpc::Responder respond) {
  wire::DiagRequest req;
  if (!req.ParseFromString(body)) {
    respond.Fail(InvalidArgument("malformed request"));
    return;
  }
  if (req.reset()) {
    if (!caller.privileged) {
      respond.Fail(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
      return;
    }
    rpc_stats_.Reset();
    loop_.EnqueueRead([respond](ControllerCore& core, int64_t now, Effects&) -> StateLoop::Reply {
      core.sched_stats().Reset(now);
      return [respond] { respond(0, wire::DiagResponse().SerializeAsString()); };
    });
    return;
  }
  auto out = std::make_shared<wire::DiagResponse>();
  rpc_stats_.Fill(*out);
  out->set_gettimeofday_latency_us(WallClockLatency1000());
  out->set_refusing_changes(loop_.refusing_changes());
  loop_.EnqueueRead(
      [this, out, respond](ControllerCore& core, int64_t now, Effects&) -> StateLoop::Reply {
        out->set_now(now);
        out->set_job_states_time(now);
        FillSched(core.sched_stats(), core.scheduling_policy().backfill, *out);
        std::shared_ptr<const JobView> view = core.PublishJobs();
        return [this, out, view, respond] {
          // Counting every job is the readers' work, not the loop's.
          readers_.Post([out, view, respond] {
            uint64_t pending = 0;
            uint64_t running = 0;
            for (const auto& job : *view) {
              if (job->state() == wire::JOB_STATE_PENDING) ++pending;
              if (job->state() == wire::JOB_STATE_RUNNING) ++running;
            }
            out->set_jobs_pending(pending);
            out->set_jobs_running(running);
            respond(0, out->SerializeAsString());
          });
        };
      });
}

}  // namespace rota::ctld
