#pragma once

// Pending reasons, spelled exactly as Slurm's squeue and scontrol print them.
// A job that cannot start is not an error: it is a decision with a reason.

#include <string>
#include <string_view>

namespace rota::model::reason {

inline constexpr std::string_view kNone = "None";
inline constexpr std::string_view kPriority = "Priority";
inline constexpr std::string_view kResources = "Resources";
inline constexpr std::string_view kDependency = "Dependency";
inline constexpr std::string_view kDependencyNeverSatisfied = "DependencyNeverSatisfied";
inline constexpr std::string_view kBeginTime = "BeginTime";
inline constexpr std::string_view kJobHeldUser = "JobHeldUser";
inline constexpr std::string_view kJobHeldAdmin = "JobHeldAdmin";
// A node's Prolog failed: requeued and held (priority 0) until released,
// unless SchedulerParameters=nohold_on_prolog_fail. squeue's words, which
// users' scripts look for.
inline constexpr std::string_view kLaunchFailedRequeuedHeld = "launch failed requeued held";
inline constexpr std::string_view kPartitionTimeLimit = "PartitionTimeLimit";
inline constexpr std::string_view kPartitionNodeLimit = "PartitionNodeLimit";
inline constexpr std::string_view kPartitionConfig = "PartitionConfig";
inline constexpr std::string_view kPartitionDown = "PartitionDown";
inline constexpr std::string_view kPartitionInactive = "PartitionInactive";
inline constexpr std::string_view kReqNodeNotAvail = "ReqNodeNotAvail";
inline constexpr std::string_view kJobArrayTaskLimit = "JobArrayTaskLimit";
inline constexpr std::string_view kDeadline = "DeadLine";
inline constexpr std::string_view kLicenses = "Licenses";  // Too few of its -L licenses free
// Advance reservations: waiting for its reservation's window, the reservation
// gone, and nodes held by a maintenance reservation.
inline constexpr std::string_view kReservation = "Reservation";
inline constexpr std::string_view kReservationDeleted = "ReservationDeleted";
inline constexpr std::string_view kReservedForMaintenance =
    "ReqNodeNotAvail, Reserved for maintenance";

}  // namespace rota::model::reason

namespace rota::model {

// Why a pending job does not start now, as it is shown: one of the codes
// above, or a code with its detail ("ReqNodeNotAvail, UnavailableNodes:n3",
// a limit's "QOSGrpGRES"). Empty: nothing holds the job back. The codes
// convert to it, so a check returns `reason::kResources` or `{}`.
class PendingReason {
 public:
  PendingReason() = default;
  PendingReason(std::string_view code) : text_(code) {}  // NOLINT(google-explicit-constructor)
  PendingReason(std::string text)
      : text_(std::move(text)) {}                   // NOLINT(google-explicit-constructor)
  PendingReason(const char* text) : text_(text) {}  // NOLINT(google-explicit-constructor)
  // "code, detail", as squeue prints ReqNodeNotAvail's unavailable nodes.
  static PendingReason WithDetail(std::string_view code, std::string_view detail) {
    std::string text(code);
    text.append(", ").append(detail);
    return PendingReason(std::move(text));
  }

  // True when something holds the job back.
  bool holds() const { return !text_.empty(); }
  explicit operator bool() const { return holds(); }
  // What squeue and scontrol show, detail included.
  const std::string& text() const { return text_; }
  // The code without its detail ("ReqNodeNotAvail").
  std::string_view code() const { return std::string_view(text_).substr(0, text_.find(',')); }
  bool operator==(std::string_view text) const { return text_ == text; }

 private:
  std::string text_;
};

}  // namespace rota::model
