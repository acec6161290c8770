#pragma once

// Pending reasons, spelled exactly as Slurm's squeue and scontrol print them.
// A job that cannot start is not an error: it is a decision with a reason.

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
