#pragma once

// RPC method ids of the controller's service (the u16 in every request frame).
// Never renumber: old commands talk to new controllers.

#include <cstdint>

namespace rota::api {

enum Method : uint16_t {
  kPing = 1,           // Empty -> PingResponse
  kSubmitJob = 2,      // SubmitJobRequest -> SubmitJobResponse
  kListJobs = 3,       // ListJobsRequest -> ListJobsResponse
  kSignalJobs = 4,     // SignalJobsRequest -> SignalJobsResponse
  kUpdateJob = 5,      // UpdateJobRequest -> UpdateJobResponse
  kUpdateNode = 6,     // UpdateNodeRequest -> Empty
  kListNodes = 7,      // Empty -> ListNodesResponse
  kReconfigure = 8,    // Empty -> Empty
  kNodeRegister = 20,  // (node daemon) NodeRegisterRequest -> NodeRegisterResponse
  kJobExited = 21,     // (node daemon) JobExitedRequest -> Empty
  kJobGpuIdle = 22,    // (node daemon) JobGpuIdleRequest -> Empty
  // Job steps (proto/step_rpc.proto).
  kCreateStep = 40,  // CreateStepRequest -> CreateStepResponse
  kStepEnded = 41,   // StepEndedRequest -> Empty
  kListSteps = 42,   // ListStepsRequest -> ListStepsResponse
  kSignalStep = 43,  // SignalStepRequest -> Empty
  // sdiag (proto/diag.proto).
  kDiag = 80,  // DiagRequest -> DiagResponse
  // priority/multifactor breakdown for sprio (proto/priority.proto).
  kListPriorities = 81,  // PriorityRequest -> PriorityResponse
  // Accounting policy (proto/policy.proto): sacctmgr after a change.
  kPolicyChanged = 82,  // PolicyChangedRequest -> Empty
  // Advance reservations (proto/reservation.proto): scontrol.
  kCreateReservation = 83,  // ReservationRequest -> ReservationResponse
  kUpdateReservation = 84,  // ReservationRequest -> ReservationResponse
  kDeleteReservation = 85,  // ReservationNameRequest -> Empty
  kListReservations = 86,   // ReservationNameRequest -> ListReservationsResponse
  // Fair-share tree with usage for sshare (proto/fairshare.proto).
  kListFairshare = 87,  // FairshareRequest -> FairshareResponse
  // rota why: every cause that holds a pending job (proto/why.proto).
  kExplainJob = 88,  // WhyRequest -> WhyResponse
  // scontrol token: a JSON Web Token for auth/jwt (proto/token.proto).
  kIssueToken = 89,  // TokenRequest -> TokenResponse
  // scontrol takeover: the backup controller takes control (Empty -> Empty).
  kTakeover = 90,
  // A node daemon or command without slurm.conf (SlurmctldParameters=
  // enable_configless): Empty -> ConfigFilesResponse.
  kFetchConfig = 91,
  // Served by the node daemon (rotad), called by the controller.
  kLaunchJob = 30,  // LaunchJobRequest -> Empty
  kSignalJob = 31,  // SignalJobRequest -> Empty
  // PrologFlags=Alloc/Contain, to a job's nodes other than its first
  // (proto/job_prepare.proto).
  kPrepareJob = 34,  // PrepareJobRequest -> Empty (cage made, Prolog run)
  // A controller that starts asks its nodes to register at once.
  kRegisterNow = 35,  // Empty -> Empty
  // sstat, to each node of a job's running steps (proto/step_stats.proto).
  kStepStats = 36,  // StepStatsRequest -> StepStatsResponse
  // Served by the node daemon, called by srun (and the controller for scancel).
  kLaunchTasks = 32,  // LaunchTasksRequest -> Empty (tasks started)
  kSignalTasks = 33,  // SignalTasksRequest -> Empty
};

}  // namespace rota::api
