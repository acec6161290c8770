#include "cli/scontrol_reservation.h"

#include <fmt/format.h>

#include <ctime>
#include <ostream>

#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/event_time.h"
#include "cli/slurm_time.h"
#include "common/duration.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/config_loader.h"

namespace rota::cli {
namespace {

struct FlagName {
  wire::ReservationFlag flag;
  const char* name;
};
constexpr FlagName kFlagNames[] = {
    {wire::RESV_FLAG_MAINT, "MAINT"},
    {wire::RESV_FLAG_IGNORE_JOBS, "IGNORE_JOBS"},
    {wire::RESV_FLAG_OVERLAP, "OVERLAP"},
    {wire::RESV_FLAG_SPEC_NODES, "SPEC_NODES"},
};

// Keys scontrol knows for reservations that Rota does not implement.
constexpr const char* kUnsupported[] = {"CoreCnt",     "Licenses",      "Features",
                                        "BurstBuffer", "TRES",          "Watts",
                                        "Groups",      "MaxStartDelay", "TresPerNode"};

std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }

std::string JoinList(const google::protobuf::RepeatedPtrField<std::string>& list) {
  return Join({list.begin(), list.end()}, ",");
}

void SplitInto(const std::string& value, google::protobuf::RepeatedPtrField<std::string>* out) {
  out->Clear();
  for (std::string_view piece : Split(value, ',')) {
    if (!piece.empty()) out->Add(std::string(piece));
  }
}

std::unique_ptr<ControllerClient> Connect(std::ostream& err) {
  auto client = ControllerClient::Create(CommandSlurmConfPath());
  if (!client.ok()) {
    err << "scontrol: error: " << client.status().message() << "\n";
    return nullptr;
  }
  return std::move(client).value();
}

}  // namespace

Result<uint32_t> ParseReservationFlags(const std::string& text) {
  uint32_t flags = 0;
  for (std::string_view piece : Split(text, ',')) {
    if (piece.empty()) continue;
    bool known = false;
    for (const FlagName& f : kFlagNames) {
      if (EqualsIgnoreCase(piece, f.name)) {
        flags |= f.flag;
        known = true;
      }
    }
    if (!known) return InvalidArgument(fmt::format("Flag {} is not supported", piece));
  }
  return flags;
}

std::string FormatReservationFlags(uint32_t flags) {
  std::vector<std::string> names;
  for (const FlagName& f : kFlagNames) {
    if (flags & f.flag) names.emplace_back(f.name);
  }
  return Join(names, ",");
}

Result<wire::ReservationRequest> ParseReservationArgs(const std::vector<std::string>& args,
                                                      bool create, int64_t now) {
  const char* const tail = create ? "No reservation created." : "No reservation update.";
  wire::ReservationRequest req;
  req.set_duration_s(0);
  auto fail = [&](const std::string& what) { return InvalidArgument(what + "  " + tail); };
  for (const std::string& a : args) {
    size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0) return fail("Unknown parameter " + a + ".");
    std::string key = a.substr(0, eq);
    std::string value = a.substr(eq + 1);
    if (key.back() == '+' || key.back() == '-') {
      return fail(fmt::format("{}{}= is not supported; give the whole list.",
                              key.substr(0, key.size() - 1), key.back()));
    }
    std::string lower = ToLower(key);
    if (lower == "reservationname" || lower == "reservation" || lower == "resv") {
      req.set_name(value);
      continue;
    }
    if (lower == "starttime") {
      Result<int64_t> t = ParseEventTime(value, now);
      if (!t.ok()) return fail("Invalid start time " + value + ".");
      req.set_start_time(*t);
    } else if (lower == "endtime") {
      Result<int64_t> t = ParseEventTime(value, now);
      if (!t.ok()) return fail("Invalid end time " + value + ".");
      req.set_end_time(*t);
    } else if (lower == "duration") {
      Result<DurationSecs> d = ParseDuration(value);
      if (!d.ok()) return fail("Invalid duration " + value + ".");
      req.set_duration_s(*d == kInfiniteDuration ? -1 : *d);
    } else if (lower == "nodes") {
      req.set_nodes(value);
    } else if (lower == "nodecnt") {
      char* end = nullptr;
      unsigned long n = std::strtoul(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n == 0 || n > UINT32_MAX)
        return fail("Invalid node count " + value + ".");
      req.set_node_count(static_cast<uint32_t>(n));
    } else if (lower == "users" || lower == "user") {
      lower = "users";
      SplitInto(value, req.mutable_users());
    } else if (lower == "accounts" || lower == "account") {
      lower = "accounts";
      SplitInto(value, req.mutable_accounts());
    } else if (lower == "partitionname" || lower == "partition") {
      lower = "partitionname";
      req.set_partition(value);
    } else if (lower == "flags") {
      Result<uint32_t> flags = ParseReservationFlags(value);
      if (!flags.ok()) return fail(flags.status().message() + ".");
      req.set_flags(*flags);
    } else {
      for (const char* k : kUnsupported) {
        if (EqualsIgnoreCase(key, k)) return fail(std::string(k) + " is not supported by Rota.");
      }
      return fail("Unknown parameter " + a + ".");
    }
    req.add_given(lower);
  }
  auto given = [&](const char* k) {
    return std::find(req.given().begin(), req.given().end(), k) != req.given().end();
  };
  if (!create) {
    if (req.name().empty()) return fail("ReservationName must be given.");
    return req;
  }
  if (!given("starttime")) return fail("A start time must be given.");
  if (!given("endtime") && !given("duration"))
    return fail("An end time or duration must be given.");
  if (given("endtime") && given("duration") && req.duration_s() >= 0 &&
      req.start_time() + req.duration_s() != req.end_time()) {
    return fail("StartTime + Duration does not equal EndTime.");
  }
  if (given("endtime") && req.start_time() > req.end_time()) {
    return fail("Start time cannot be after end time.");
  }
  if (!given("nodes") && !given("nodecnt"))
    return fail("Either Nodes or NodeCnt must be specified.");
  if (req.users().empty() && req.accounts().empty()) {
    return fail("Either Users or Accounts must be specified.");
  }
  return req;
}

std::string FormatReservation(const wire::ReservationRecord& r, int64_t now, bool one_liner) {
  const bool active = r.start_time() <= now && now < r.end_time();
  std::vector<std::string> lines = {
      fmt::format("ReservationName={} StartTime={} EndTime={} Duration={}", r.name(),
                  FormatSlurmTime(r.start_time()), FormatSlurmTime(r.end_time()),
                  FormatDurationScontrol(r.end_time() - r.start_time())),
      fmt::format("Nodes={} NodeCnt={} CoreCnt={} Features=(null) PartitionName={} Flags={}",
                  CompressHostlist({r.nodes().begin(), r.nodes().end()}), r.nodes_size(),
                  r.core_count(), OrNull(r.partition()), FormatReservationFlags(r.flags())),
      fmt::format("TRES=cpu={}", r.core_count()),
      fmt::format("Users={} Groups=(null) Accounts={} Licenses=(null) State={} "
                  "BurstBuffer=(null) Watts=n/a",
                  OrNull(JoinList(r.users())), OrNull(JoinList(r.accounts())),
                  active ? "ACTIVE" : "INACTIVE"),
      "MaxStartDelay=(null)",
  };
  std::string out = lines[0];
  for (size_t i = 1; i < lines.size(); ++i) out += (one_liner ? " " : "\n   ") + lines[i];
  out += "\n";
  if (!one_liner) out += "\n";
  return out;
}

namespace {

// create and update differ only in what they check before sending, the
// method and the words: `done` is printed with the name the controller gives.
int SendReservation(const std::vector<std::string>& args, bool create, std::ostream& out,
                    std::ostream& err) {
  Result<wire::ReservationRequest> req = ParseReservationArgs(args, create, time(nullptr));
  if (!req.ok()) {
    err << "scontrol: error: " << req.status().message() << "\n";
    return 1;
  }
  auto client = Connect(err);
  if (!client) return 1;
  wire::ReservationResponse resp;
  Status s = client->Call(create ? api::kCreateReservation : api::kUpdateReservation, *req, &resp);
  if (!s.ok()) {
    err << "Error " << (create ? "creating" : "updating") << " the reservation: " << s.message()
        << "\n";
    return 1;
  }
  if (create) {
    out << "Reservation created: " << resp.name() << "\n";
  } else {
    out << "Reservation updated.\n";
  }
  return 0;
}

}  // namespace

int CreateReservationCommand(const std::vector<std::string>& args, std::ostream& out,
                             std::ostream& err) {
  return SendReservation(args, /*create=*/true, out, err);
}

int UpdateReservationCommand(const std::vector<std::string>& args, std::ostream& out,
                             std::ostream& err) {
  return SendReservation(args, /*create=*/false, out, err);
}

int DeleteReservationCommand(const std::vector<std::string>& args, std::ostream& err) {
  if (args.empty()) {
    err << "scontrol: error: delete reservation requires a name\n";
    return 1;
  }
  std::string name = args[0];
  // "delete ReservationName=x" is accepted too.
  if (size_t eq = name.find('='); eq != std::string::npos) name = name.substr(eq + 1);
  auto client = Connect(err);
  if (!client) return 1;
  wire::ReservationNameRequest req;
  req.set_name(name);
  wire::Empty resp;
  Status s = client->Call(api::kDeleteReservation, req, &resp);
  if (!s.ok()) {
    err << "Error deleting the reservation: " << s.message() << "\n";
    return 1;
  }
  return 0;
}

int ShowReservationCommand(const std::vector<std::string>& names, bool one_liner, std::ostream& out,
                           std::ostream& err) {
  auto client = Connect(err);
  if (!client) return 1;
  wire::ReservationNameRequest req;
  if (!names.empty()) req.set_name(names[0]);
  wire::ListReservationsResponse resp;
  Status s = client->Call(api::kListReservations, req, &resp);
  if (!s.ok()) {
    err << s.message() << "\n";
    return 1;
  }
  if (resp.reservations().empty()) {
    out << "No reservations in the system\n";
    return 0;
  }
  for (const wire::ReservationRecord& r : resp.reservations()) {
    out << FormatReservation(r, resp.now(), one_liner);
  }
  return 0;
}

}  // namespace rota::cli
