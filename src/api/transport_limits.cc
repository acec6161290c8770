#include "api/transport_limits.h"

#include <fmt/format.h>

#include <optional>

#include "api/dbd_methods.h"
#include "api/methods.h"
#include "common/strings.h"

namespace rota::api {
namespace {

constexpr uint32_t kQueryBody = 256u << 10;
constexpr uint32_t kOtherBody = 1u << 20;
constexpr uint32_t kReportBody = 8u << 20;
// Bounded by FrameLimits::max_body_bytes (64 MiB) as every frame is.
constexpr uint32_t kLargeBody = UINT32_MAX;

rpc::MethodBodyLimits Limits(std::initializer_list<std::pair<const uint16_t, uint32_t>> listed) {
  rpc::MethodBodyLimits limits;
  limits.by_method = listed;
  limits.other = kOtherBody;
  return limits;
}

Result<std::optional<uint64_t>> PositiveNumber(const EnvLookup& lookup, const char* name) {
  const char* text = lookup(name);
  if (text == nullptr) return std::optional<uint64_t>();
  std::optional<uint64_t> value = ParseUint(text);
  if (!value || *value == 0) {
    return InvalidArgument(fmt::format("{}=\"{}\": expected a positive whole number", name, text));
  }
  return value;
}

}  // namespace

rpc::MethodBodyLimits ControllerBodyLimits() {
  return Limits({
      {kSubmitJob, kLargeBody},
      {kCreateStep, kLargeBody},  // srun's environment
      {kNodeRegister, kReportBody},
      {kPing, kQueryBody},
      {kListJobs, kQueryBody},
      {kListNodes, kQueryBody},
      {kReconfigure, kQueryBody},
      {kListSteps, kQueryBody},
      {kDiag, kQueryBody},
      {kListPriorities, kQueryBody},
      {kPolicyChanged, kQueryBody},
      {kListReservations, kQueryBody},
      {kListFairshare, kQueryBody},
      {kExplainJob, kQueryBody},
      {kIssueToken, kQueryBody},
      {kTakeover, kQueryBody},
      {kFetchConfig, kQueryBody},
  });
}

rpc::MethodBodyLimits NodeBodyLimits() {
  return Limits({
      {kLaunchJob, kLargeBody},
      {kLaunchTasks, kLargeBody},
      {kPrepareJob, kLargeBody},
      {kPing, kQueryBody},
      {kRegisterNow, kQueryBody},
      {kStepStats, kQueryBody},
  });
}

rpc::MethodBodyLimits DbdBodyLimits() {
  return Limits({
      {kDbdRecordJobs, kLargeBody},
      {kDbdAddEntities, kReportBody},
      {kDbdModifyEntities, kReportBody},
      {kDbdDeleteEntities, kReportBody},
      {kDbdPing, kQueryBody},
  });
}

Status ApplyTransportLimits(rpc::MethodBodyLimits body_limits, auth::CredentialVerifier* verifier,
                            rpc::ServerOptions* options, const EnvLookup& lookup) {
  options->body_limits = std::move(body_limits);
  options->screen_credential = [verifier](uint16_t, std::string_view credential, std::string_view) {
    return verifier->Screen(credential, auth::SystemUnixNow());
  };
  auto apply = [&](const char* name, auto set) -> Status {
    Result<std::optional<uint64_t>> value = PositiveNumber(lookup, name);
    if (!value.ok()) return value.status();
    if (value->has_value()) set(**value);
    return Status::Ok();
  };
  ROTA_RETURN_IF_ERROR(
      apply("ROTA_RPC_MAX_CONNECTIONS", [&](uint64_t n) { options->max_connections = n; }));
  ROTA_RETURN_IF_ERROR(apply("ROTA_RPC_MAX_CONNECTIONS_PER_PEER",
                             [&](uint64_t n) { options->max_connections_per_peer = n; }));
  ROTA_RETURN_IF_ERROR(apply("ROTA_RPC_IDLE_TIMEOUT", [&](uint64_t seconds) {
    options->idle_timeout = std::chrono::seconds(seconds);
  }));
  ROTA_RETURN_IF_ERROR(apply("ROTA_RPC_UNAUTHENTICATED_TIMEOUT", [&](uint64_t seconds) {
    options->unauthenticated_timeout = std::chrono::seconds(seconds);
  }));
  return Status::Ok();
}

}  // namespace rota::api
