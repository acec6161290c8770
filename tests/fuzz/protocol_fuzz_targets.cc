#include "tests/fuzz/protocol_fuzz_targets.h"

#include <google/protobuf/stubs/logging.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "accounting.pb.h"
#include "accounting_admin.pb.h"
#include "api/dbd_methods.h"
#include "api/methods.h"
#include "auth/credential.h"
#include "auth/none_auth.h"
#include "auth/sha256.h"
#include "auth/slurm_key_auth.h"
#include "auth/slurm_key_file.h"
#include "ctld/core/submit_checks.h"
#include "diag.pb.h"
#include "fairshare.pb.h"
#include "job_prepare.pb.h"
#include "model/job_payload.h"
#include "model/record_projection.h"
#include "node_events.pb.h"
#include "noded/pmi/pmi2_session.h"
#include "noded/pmi/pmi2_wire.h"
#include "noded/stepd/step_channel.h"
#include "pmi.pb.h"
#include "policy.pb.h"
#include "priority.pb.h"
#include "reservation.pb.h"
#include "rota.pb.h"
#include "rpc/frame.h"
#include "step.pb.h"
#include "step_rpc.pb.h"
#include "why.pb.h"

// A broken invariant is a finding like a crash: say which, then abort so that
// libFuzzer saves the input and the test suite fails.
#define ROTA_FUZZ_CHECK(cond)                                                                \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

namespace rota::fuzz {
namespace {

using google::protobuf::MessageLite;

// A fixed clock for everything that takes `now`: 2027-01-15, Unix seconds.
constexpr int64_t kNowSeconds = 1'800'000'000;
constexpr int64_t kNowMillis = kNowSeconds * 1000;

// protobuf logs a line for each string field that is not UTF-8: thousands a
// second here. The daemons route and rate-limit them (api/protobuf_log.h).
void DropProtobufLog(google::protobuf::LogLevel, const char*, int, const std::string&) {}
const bool kProtobufQuiet = [] {
  google::protobuf::SetLogHandler(&DropProtobufLog);
  return true;
}();

// Reads the input front to back; past its end every read gives zeros, so a
// target never needs to check sizes before taking its parameters.
class InputReader {
 public:
  InputReader(const uint8_t* data, size_t size)
      : rest_(reinterpret_cast<const char*>(data), size) {}
  uint8_t Byte() {
    if (rest_.empty()) return 0;
    uint8_t b = static_cast<uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return b;
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{Byte()} << (8 * i);
    return v;
  }
  std::string_view Take(size_t n) {
    n = std::min(n, rest_.size());
    std::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }
  std::string_view Rest() { return Take(rest_.size()); }

 private:
  std::string_view rest_;
};

// Cuts `stream` into pieces of 1..max_piece bytes chosen by a tiny LCG from
// `seed`: the decoders must give the same frames however the socket delivers.
std::vector<std::string_view> Pieces(std::string_view stream, uint8_t seed, size_t max_piece) {
  std::vector<std::string_view> out;
  uint32_t state = seed * 2654435761u + 1;
  while (!stream.empty()) {
    state = state * 1664525u + 1013904223u;
    size_t n = std::min(stream.size(), 1 + (state >> 16) % max_piece);
    out.push_back(stream.substr(0, n));
    stream.remove_prefix(n);
  }
  return out;
}

// ---------------------------------------------------------------- frames --

bool SameRequest(const rpc::RequestFrame& a, const rpc::RequestFrame& b) {
  return a.method == b.method && a.request_id == b.request_id && a.credential == b.credential &&
         a.body == b.body;
}

// Input: limits byte, piece seed, head-check byte, then the stream.
int RequestFramesTarget(const uint8_t* data, size_t size) {
  InputReader in(data, size);
  const uint8_t limits_byte = in.Byte();
  const uint8_t piece_seed = in.Byte();
  const uint8_t check_byte = in.Byte();
  rpc::FrameLimits limits;
  limits.max_body_bytes = 1u << (limits_byte & 15);              // 1 B .. 32 KiB
  limits.max_credential_bytes = 1u << ((limits_byte >> 4) & 7);  // 1 B .. 128 B
  // A head check as the servers have one: a per-method body limit and a
  // credential screen, both before the body is read.
  int heads_seen = 0;
  rpc::RequestHeadCheck check = [&](const rpc::RequestHead& head) -> Status {
    ++heads_seen;
    ROTA_FUZZ_CHECK(head.credential.size() <= limits.max_credential_bytes);
    ROTA_FUZZ_CHECK(head.body_length <= limits.max_body_bytes);
    if ((check_byte & 1) && head.body_length > (head.method & 0xff)) {
      return InvalidArgument("body over the method's limit");
    }
    if ((check_byte & 2) && !head.credential.empty() && head.credential[0] == 'X') {
      return auth::PermissionDenied("screened out");
    }
    return Status::Ok();
  };
  const std::string_view stream = in.Rest();

  rpc::RequestDecoder decoder(limits, check);
  std::vector<rpc::RequestFrame> frames;
  Status first_error;
  for (std::string_view piece : Pieces(stream, piece_seed, 64)) {
    const size_t before = frames.size();
    Status s = decoder.Feed(piece, &frames);
    if (!first_error.ok()) {
      // Poisoned: refuses everything after the bad frame, for good.
      ROTA_FUZZ_CHECK(!s.ok());
      ROTA_FUZZ_CHECK(frames.size() == before);
    }
    if (!s.ok() && first_error.ok()) first_error = s;
  }
  ROTA_FUZZ_CHECK(static_cast<size_t>(heads_seen) >= frames.size());

  // Every frame within the limits, and the same frames back from their own
  // encoding fed in one piece.
  std::string again;
  for (const rpc::RequestFrame& f : frames) {
    ROTA_FUZZ_CHECK(f.credential.size() <= limits.max_credential_bytes);
    ROTA_FUZZ_CHECK(f.body.size() <= limits.max_body_bytes);
    again += rpc::EncodeRequestFrame(f);
  }
  ROTA_FUZZ_CHECK(again.size() <= stream.size());
  ROTA_FUZZ_CHECK(stream.substr(0, again.size()) == again);
  rpc::RequestDecoder whole(limits, check);
  std::vector<rpc::RequestFrame> decoded;
  ROTA_FUZZ_CHECK(whole.Feed(again, &decoded).ok());
  ROTA_FUZZ_CHECK(decoded.size() == frames.size());
  for (size_t i = 0; i < frames.size(); ++i) ROTA_FUZZ_CHECK(SameRequest(decoded[i], frames[i]));
  return 0;
}

// Input: limits byte, piece seed, then the stream.
int ResponseFramesTarget(const uint8_t* data, size_t size) {
  InputReader in(data, size);
  const uint8_t limits_byte = in.Byte();
  const uint8_t piece_seed = in.Byte();
  rpc::FrameLimits limits;
  limits.max_body_bytes = 1u << (limits_byte & 15);
  const std::string_view stream = in.Rest();

  rpc::ResponseDecoder decoder(limits);
  std::vector<rpc::ResponseFrame> frames;
  bool poisoned = false;
  for (std::string_view piece : Pieces(stream, piece_seed, 64)) {
    const size_t before = frames.size();
    Status s = decoder.Feed(piece, &frames);
    if (poisoned) ROTA_FUZZ_CHECK(!s.ok() && frames.size() == before);
    poisoned = poisoned || !s.ok();
  }
  std::string again;
  for (const rpc::ResponseFrame& f : frames) {
    ROTA_FUZZ_CHECK(f.body.size() <= limits.max_body_bytes);
    // What a client makes of the status number: never a crash, OK only for 0.
    const StatusCode code = rpc::StatusCodeFromWire(f.status);
    ROTA_FUZZ_CHECK((code == StatusCode::kOk) == (f.status == 0));
    again += rpc::EncodeResponseFrame(f);
  }
  ROTA_FUZZ_CHECK(stream.substr(0, again.size()) == again);
  return 0;
}

// ----------------------------------------------------------- credentials --

std::shared_ptr<const auth::SlurmKey> FuzzKey() {
  static const auto* key = new std::shared_ptr<const auth::SlurmKey>(
      std::make_shared<auth::SlurmKey>(std::string(48, 'k') + "fuzz-key"));
  return *key;
}

// Input: mode byte, then either a credential as received (mode even) or the
// payload of one that this target signs with the key (mode odd: the fuzzer
// cannot forge a MAC, so this is how it reaches the checks behind it).
int CredentialTarget(const uint8_t* data, size_t size) {
  InputReader in(data, size);
  const uint8_t mode = in.Byte();
  const uint16_t method = static_cast<uint16_t>(in.Byte());
  const std::string_view body = in.Take(in.Byte());
  std::string credential(in.Rest());
  if (mode & 1) {
    // Only the payload's length and contents are the fuzzer's; the MAC is right.
    if (credential.size() > 256) credential.resize(256);
    auth::Sha256Digest mac =
        auth::HmacSha256(std::string_view(reinterpret_cast<const char*>(FuzzKey()->bytes().data()),
                                          FuzzKey()->bytes().size()),
                         credential);
    credential.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  }
  const std::string bound = auth::RpcBindingBytes(method, body);

  auth::SlurmKeyVerifier::Options options;
  options.max_replay_entries = 16;
  options.started_at_ms = (mode & 2) ? kNowMillis - 60'000 : INT64_MIN;
  auth::SlurmKeyVerifier verifier(FuzzKey(), options);
  const Status screened = verifier.Screen(credential, kNowSeconds);
  Result<auth::Identity> verified = verifier.Verify(credential, bound, kNowSeconds);
  // Verify checks all that Screen does and more.
  if (verified.ok()) {
    ROTA_FUZZ_CHECK(screened.ok());
    ROTA_FUZZ_CHECK(credential.size() == auth::kSlurmCredentialSize);
    // Never twice.
    ROTA_FUZZ_CHECK(!verifier.Verify(credential, bound, kNowSeconds).ok());
  } else {
    ROTA_FUZZ_CHECK(verified.status().code() == StatusCode::kPermissionDenied ||
                    verified.status().code() == StatusCode::kUnavailable);
    // A client reads the refusal's text to tell a restart: never a crash.
    int64_t started_at = 0;
    (void)auth::IsStaleCredential(verified.status(), &started_at);
  }

  // auth/none's parser, and the stale-credential text parser on raw bytes.
  auth::NoneVerifier none;
  (void)none.Screen(credential, kNowSeconds);
  (void)none.Verify(credential, bound, kNowSeconds);
  int64_t started_at = 0;
  (void)auth::IsStaleCredential(Status(StatusCode::kPermissionDenied, credential), &started_at);
  return 0;
}

// ------------------------------------------------------- request bodies --

template <typename T>
std::function<std::unique_ptr<MessageLite>()> Make() {
  return [] { return std::make_unique<T>(); };
}

const std::vector<MethodMessage>& MethodTable() {
  static const auto* table = new std::vector<MethodMessage>{
      {api::kPing, "rotactld", Make<wire::Empty>()},
      {api::kSubmitJob, "rotactld", Make<wire::SubmitJobRequest>()},
      {api::kListJobs, "rotactld", Make<wire::ListJobsRequest>()},
      {api::kSignalJobs, "rotactld", Make<wire::SignalJobsRequest>()},
      {api::kUpdateJob, "rotactld", Make<wire::UpdateJobRequest>()},
      {api::kUpdateNode, "rotactld", Make<wire::UpdateNodeRequest>()},
      {api::kListNodes, "rotactld", Make<wire::Empty>()},
      {api::kReconfigure, "rotactld", Make<wire::Empty>()},
      {api::kNodeRegister, "rotactld", Make<wire::NodeRegisterRequest>()},
      {api::kJobExited, "rotactld", Make<wire::JobExitedRequest>()},
      {api::kCreateStep, "rotactld", Make<wire::CreateStepRequest>()},
      {api::kStepEnded, "rotactld", Make<wire::StepEndedRequest>()},
      {api::kListSteps, "rotactld", Make<wire::ListStepsRequest>()},
      {api::kSignalStep, "rotactld", Make<wire::SignalStepRequest>()},
      {api::kDiag, "rotactld", Make<wire::DiagRequest>()},
      {api::kListPriorities, "rotactld", Make<wire::PriorityRequest>()},
      {api::kPolicyChanged, "rotactld", Make<wire::PolicyChangedRequest>()},
      {api::kCreateReservation, "rotactld", Make<wire::ReservationRequest>()},
      {api::kUpdateReservation, "rotactld", Make<wire::ReservationRequest>()},
      {api::kDeleteReservation, "rotactld", Make<wire::ReservationNameRequest>()},
      {api::kListReservations, "rotactld", Make<wire::ReservationNameRequest>()},
      {api::kListFairshare, "rotactld", Make<wire::FairshareRequest>()},
      {api::kExplainJob, "rotactld", Make<wire::WhyRequest>()},
      {api::kLaunchJob, "rotad", Make<wire::LaunchJobRequest>()},
      {api::kSignalJob, "rotad", Make<wire::SignalJobRequest>()},
      {api::kPrepareJob, "rotad", Make<wire::PrepareJobRequest>()},
      {api::kLaunchTasks, "rotad", Make<wire::LaunchTasksRequest>()},
      {api::kSignalTasks, "rotad", Make<wire::SignalTasksRequest>()},
      {api::kDbdPing, "rotadbd", Make<wire::Empty>()},
      {api::kDbdRecordJobs, "rotadbd", Make<wire::RecordJobsRequest>()},
      {api::kDbdQueryJobs, "rotadbd", Make<wire::QueryJobsRequest>()},
      {api::kDbdAddEntities, "rotadbd", Make<wire::AddEntitiesRequest>()},
      {api::kDbdListEntities, "rotadbd", Make<wire::ListEntitiesRequest>()},
      {api::kDbdDeleteEntities, "rotadbd", Make<wire::DeleteEntitiesRequest>()},
      {api::kDbdModifyEntities, "rotadbd", Make<wire::ModifyEntitiesRequest>()},
      {api::kDbdQueryNodeEvents, "rotadbd", Make<wire::QueryNodeEventsRequest>()},
      {api::kDbdQueryUsage, "rotadbd", Make<wire::QueryJobsRequest>()},
  };
  return *table;
}

// The pure checks the controller runs on a submission on its RPC thread and
// at the start of ControllerCore::Submit.
void CheckSubmission(wire::SubmitJobRequest req) {
  const uint64_t script_bytes = req.spec().script().size();
  const uint64_t environment_bytes = ctld::EnvironmentBytes(req.spec());
  (void)ctld::CheckSubmitSizes(script_bytes, environment_bytes, 4u << 20);
  (void)ctld::CheckSubmitFields(req.spec(), false, kNowSeconds);
  (void)ctld::CheckSubmitFields(req.spec(), true, kNowSeconds);
  wire::JobPayload payload;
  payload.set_script(std::move(*req.mutable_spec()->mutable_script()));
  payload.mutable_environment()->Swap(req.mutable_spec()->mutable_environment());
  const std::string packed = model::PackPayload(payload);
  Result<wire::JobPayload> unpacked = model::UnpackPayload(7, packed);
  ROTA_FUZZ_CHECK(unpacked.ok());
  ROTA_FUZZ_CHECK(unpacked->script() == payload.script());
  ROTA_FUZZ_CHECK(unpacked->environment_size() == payload.environment_size());
  // A packed payload from a peer (or a damaged state file) is never trusted.
  (void)model::UnpackPayload(7, req.packed_payload());
}

// Input: method index byte, then the body.
int RequestBodyTarget(const uint8_t* data, size_t size) {
  (void)kProtobufQuiet;
  InputReader in(data, size);
  const std::vector<MethodMessage>& table = MethodTable();
  // Two more kinds beside the RPC methods: the step I/O stream's frame
  // (srun <-> rotad) and a step record as rota-stepd keeps it.
  const size_t pick = in.Byte() % (table.size() + 2);
  const std::string body(in.Rest());
  std::unique_ptr<MessageLite> message;
  uint16_t method = 0;
  if (pick < table.size()) {
    message = table[pick].make_request();
    method = table[pick].method;
  } else if (pick == table.size()) {
    message = std::make_unique<wire::TaskIoFrame>();
  } else {
    message = std::make_unique<wire::StepRecord>();
  }
  if (!message->ParseFromString(body)) return 0;
  // A parsed message serializes to bytes that parse to a message of the same
  // size. (Not the same bytes: map entries serialize in no fixed order.)
  const std::string once = message->SerializeAsString();
  std::unique_ptr<MessageLite> again(message->New());
  ROTA_FUZZ_CHECK(again->ParseFromString(once));
  ROTA_FUZZ_CHECK(again->ByteSizeLong() == once.size());

  if (method == api::kSubmitJob) {
    CheckSubmission(static_cast<const wire::SubmitJobRequest&>(*message));
  } else if (method == api::kListJobs) {
    (void)model::JobFieldSet::FromRequest(static_cast<const wire::ListJobsRequest&>(*message));
  } else if (method == api::kLaunchJob) {
    const auto& launch = static_cast<const wire::LaunchJobRequest&>(*message);
    (void)model::UnpackPayload(launch.job().job_id(), launch.payload().packed());
  }
  return 0;
}

// ------------------------------------------------------------ step channel --

// Input: which side reads (even: rota-stepd reads a StepRequest; odd: rotad
// reads a StepStatus), then the bytes on the job's socket before it closes.
int StepChannelTarget(const uint8_t* data, size_t size) {
  InputReader in(data, size);
  const bool stepd_reads = (in.Byte() & 1) == 0;
  // What fits in the socket's buffer without a second thread.
  const std::string_view bytes = in.Take(48 << 10);
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return 0;
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fds[1], bytes.data() + written, bytes.size() - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  shutdown(fds[1], SHUT_WR);
  wire::StepRequest request;
  wire::StepStatus status;
  MessageLite& message = stepd_reads ? static_cast<MessageLite&>(request) : status;
  Status s = noded::ReadStepMessage(fds[0], message, std::chrono::milliseconds(0));
  if (s.ok()) {
    ROTA_FUZZ_CHECK(bytes.size() >= 4);
    // And goes back out the same way (to the peer's still open read side).
    (void)noded::WriteStepMessage(fds[0], message);
  }
  close(fds[0]);
  close(fds[1]);
  return 0;
}

// ------------------------------------------------------------------ PMI-2 --

bool SameMessage(const noded::Pmi2Message& a, const noded::Pmi2Message& b) {
  return a.command == b.command && a.attributes == b.attributes && a.line_form == b.line_form;
}

// Input: piece seed, tasks byte, then the stream of one task's connection;
// each message read is handed to a node session as the task's command.
int Pmi2Target(const uint8_t* data, size_t size) {
  InputReader in(data, size);
  const uint8_t piece_seed = in.Byte();
  const uint8_t tasks_byte = in.Byte();
  const std::string_view stream = in.Rest();

  noded::Pmi2StepShape shape;
  shape.job_id = "7.0";
  shape.local_tasks = 1 + tasks_byte % 4;
  shape.size = shape.local_tasks + (tasks_byte >> 4);
  for (uint32_t r = 0; r < shape.local_tasks; ++r) shape.ranks.push_back(r);
  shape.process_mapping = noded::Pmi2ProcessMapping({shape.local_tasks});
  noded::Pmi2NodeSession session(shape);

  noded::Pmi2Reader reader;
  uint32_t task = 0;
  bool closed = false;
  for (std::string_view piece : Pieces(stream, piece_seed, 32)) {
    if (closed) break;
    reader.Feed(piece);
    while (std::optional<Result<noded::Pmi2Message>> next = reader.Next()) {
      if (!next->ok()) {
        closed = true;  // The stream does not speak PMI: the node closes it.
        break;
      }
      const noded::Pmi2Message& m = **next;
      // What the node would send back parses to the same message. (A line
      // whose last value ends in '\r' cannot: the reader takes "\r\n" as
      // the line's end, as PMI-1 clients send it.)
      const std::string wire = noded::EncodePmi2(m);
      noded::Pmi2Reader echo;
      echo.Feed(wire);
      std::optional<Result<noded::Pmi2Message>> back = echo.Next();
      ROTA_FUZZ_CHECK(back.has_value() && back->ok());
      const bool cr_at_end = m.line_form && wire.size() >= 2 && wire[wire.size() - 2] == '\r';
      ROTA_FUZZ_CHECK(cr_at_end || SameMessage(**back, m));

      noded::Pmi2NodeSession::Effects effects = session.OnMessage(task, m);
      for (const auto& [to, reply] : effects.replies) {
        ROTA_FUZZ_CHECK(to < shape.local_tasks);
        (void)reply;
      }
      if (effects.fence) {
        (void)session.OnFenceDone(effects.fence->round, effects.fence->puts);
      }
      task = (task + 1) % shape.local_tasks;
    }
  }
  for (uint32_t t = 0; t < shape.local_tasks; ++t) (void)session.OnDisconnect(t);
  // The two parsers on the raw bytes too.
  (void)noded::ParsePmi2Command(stream);
  (void)noded::ParsePmi1Line(stream);
  return 0;
}

const FuzzTarget kTargets[] = {
    {"request_frames", RequestFramesTarget}, {"response_frames", ResponseFramesTarget},
    {"credential", CredentialTarget},        {"request_body", RequestBodyTarget},
    {"step_channel", StepChannelTarget},     {"pmi2", Pmi2Target},
};

// ------------------------------------------------------------------- seeds --

std::string Bytes(std::initializer_list<uint8_t> prefix, std::string_view rest) {
  std::string out(prefix.begin(), prefix.end());
  out += rest;
  return out;
}

std::string SignedCredential(uint16_t method, std::string_view body, int64_t issued_at_ms) {
  Result<std::string> cred =
      auth::SignSlurmCredential(*FuzzKey(), auth::Identity{1000, 1000}, issued_at_ms,
                                auth::Sha256(auth::RpcBindingBytes(method, body)));
  return cred.ok() ? *cred : std::string();
}

}  // namespace

std::span<const FuzzTarget> AllTargets() { return kTargets; }

const FuzzTarget* FindTarget(std::string_view name) {
  for (const FuzzTarget& t : kTargets) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

std::span<const MethodMessage> AllMethods() { return MethodTable(); }

std::string ExampleRequestBody(uint16_t method) {
  switch (method) {
    case api::kSubmitJob: {
      wire::SubmitJobRequest req;
      req.mutable_spec()->set_name("fuzz");
      req.mutable_spec()->set_partition("batch");
      req.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
      req.mutable_spec()->add_environment("PATH=/bin");
      req.mutable_spec()->set_hold(true);
      return req.SerializeAsString();
    }
    case api::kListJobs: {
      wire::ListJobsRequest req;
      req.add_job_ids("1");
      req.add_states("PENDING");
      return req.SerializeAsString();
    }
    case api::kSignalJobs: {
      wire::SignalJobsRequest req;
      req.add_job_ids("999999");
      req.set_signal(15);
      return req.SerializeAsString();
    }
    case api::kUpdateJob: {
      wire::UpdateJobRequest req;
      req.add_job_ids("999999");
      (*req.mutable_fields())["TimeLimit"] = "10";
      return req.SerializeAsString();
    }
    case api::kUpdateNode: {
      wire::UpdateNodeRequest req;
      req.set_nodes("nosuchnode[1-2]");
      req.set_state("DRAIN");
      req.set_reason("fuzz");
      return req.SerializeAsString();
    }
    case api::kNodeRegister: {
      wire::NodeRegisterRequest req;
      req.set_node("nosuchnode1");
      req.set_boot_time(1);
      return req.SerializeAsString();
    }
    case api::kJobExited: {
      wire::JobExitedRequest req;
      req.set_job_id(999999);
      req.set_node("nosuchnode1");
      return req.SerializeAsString();
    }
    case api::kCreateStep: {
      wire::CreateStepRequest req;
      req.set_job_id(999999);
      req.set_num_tasks(2);
      req.add_argv("hostname");
      return req.SerializeAsString();
    }
    case api::kStepEnded: {
      wire::StepEndedRequest req;
      req.set_job_id(999999);
      req.set_step_id(1);
      return req.SerializeAsString();
    }
    case api::kListSteps: {
      wire::ListStepsRequest req;
      req.add_job_ids(999999);
      return req.SerializeAsString();
    }
    case api::kSignalStep: {
      wire::SignalStepRequest req;
      req.set_job_id(999999);
      req.set_signal(9);
      return req.SerializeAsString();
    }
    case api::kDiag:
      return wire::DiagRequest().SerializeAsString();
    case api::kListPriorities: {
      wire::PriorityRequest req;
      req.add_users("nobody");
      return req.SerializeAsString();
    }
    case api::kCreateReservation:
    case api::kUpdateReservation: {
      wire::ReservationRequest req;
      req.set_name("fuzzresv");
      req.set_start_time(kNowSeconds);
      req.set_duration_s(3600);
      req.set_nodes("nosuchnode1");
      req.add_users("root");
      return req.SerializeAsString();
    }
    case api::kDeleteReservation:
    case api::kListReservations: {
      wire::ReservationNameRequest req;
      req.set_name("fuzzresv");
      return req.SerializeAsString();
    }
    case api::kListFairshare: {
      wire::FairshareRequest req;
      req.set_all_users(true);
      return req.SerializeAsString();
    }
    case api::kExplainJob: {
      wire::WhyRequest req;
      req.set_job_id(1);
      return req.SerializeAsString();
    }
    case api::kLaunchJob: {
      wire::LaunchJobRequest req;
      req.mutable_job()->set_job_id(999999);
      req.mutable_job()->add_nodes("nosuchnode1");
      req.mutable_payload()->set_script("#!/bin/sh\ntrue\n");
      return req.SerializeAsString();
    }
    case api::kSignalJob: {
      wire::SignalJobRequest req;
      req.set_job_id(999999);
      req.set_signal(15);
      return req.SerializeAsString();
    }
    case api::kPrepareJob: {
      wire::PrepareJobRequest req;
      req.mutable_job()->set_job_id(999999);
      return req.SerializeAsString();
    }
    case api::kLaunchTasks: {
      wire::LaunchTasksRequest req;
      req.set_job_id(999999);
      req.add_argv("true");
      req.add_environment("PATH=/bin");
      return req.SerializeAsString();
    }
    case api::kSignalTasks: {
      wire::SignalTasksRequest req;
      req.set_job_id(999999);
      req.set_signal(15);
      return req.SerializeAsString();
    }
    case api::kDbdQueryJobs:
    case api::kDbdQueryUsage: {
      wire::QueryJobsRequest req;
      req.add_users("nobody");
      req.set_window_start(1);
      return req.SerializeAsString();
    }
    case api::kDbdListEntities: {
      wire::ListEntitiesRequest req;
      req.set_kind("account");
      return req.SerializeAsString();
    }
    case api::kDbdDeleteEntities: {
      wire::DeleteEntitiesRequest req;
      req.set_kind("account");
      req.add_names("nosuchaccount");
      return req.SerializeAsString();
    }
    case api::kDbdModifyEntities: {
      wire::ModifyEntitiesRequest req;
      req.set_kind("account");
      req.add_names("nosuchaccount");
      (*req.mutable_set())["Description"] = "fuzz";
      return req.SerializeAsString();
    }
    case api::kDbdQueryNodeEvents: {
      wire::QueryNodeEventsRequest req;
      req.add_nodes("nosuchnode1");
      return req.SerializeAsString();
    }
    default:
      return std::string();  // Empty, PolicyChangedRequest, an empty batch.
  }
}

std::vector<std::string> SeedInputs(std::string_view name) {
  std::vector<std::string> seeds;
  if (name == "request_frames") {
    std::string two;
    rpc::AppendRequestFrame(api::kPing, 1, "none:0:0", "", &two);
    rpc::AppendRequestFrame(api::kListJobs, 2, "none:0:0", ExampleRequestBody(api::kListJobs),
                            &two);
    seeds.push_back(Bytes({0x6c, 3, 0}, two));
    std::string big;
    rpc::AppendRequestFrame(api::kSubmitJob, 3, std::string(40, 'c'),
                            ExampleRequestBody(api::kSubmitJob), &big);
    seeds.push_back(Bytes({0x7f, 9, 1}, big));
    // A header that announces 4 GiB.
    std::string huge = big.substr(0, rpc::kRequestHeaderSize);
    std::memset(huge.data() + 20, 0xff, 4);
    seeds.push_back(Bytes({0x7f, 1, 0}, huge));
    seeds.push_back(Bytes({0x6c, 0, 2}, std::string("ROTA\x02\x00", 6) + big.substr(6)));
  } else if (name == "response_frames") {
    std::string two;
    rpc::AppendResponseFrame(0, 1, "", &two);
    rpc::AppendResponseFrame(3, 2, "malformed request", &two);
    seeds.push_back(Bytes({0x0c, 5}, two));
    std::string big;
    rpc::AppendResponseFrame(0, 3, std::string(300, 'x'), &big);
    seeds.push_back(Bytes({0x08, 2}, big));
  } else if (name == "credential") {
    const std::string body = ExampleRequestBody(api::kSignalJobs);
    const std::string good = SignedCredential(api::kSignalJobs, body, kNowMillis - 1000);
    const std::string old = SignedCredential(api::kSignalJobs, body, kNowMillis - 3'600'000);
    seeds.push_back(Bytes({0, api::kSignalJobs, static_cast<uint8_t>(body.size())}, body + good));
    seeds.push_back(Bytes({2, api::kSignalJobs, static_cast<uint8_t>(body.size())}, body + old));
    // Payloads to be signed by the target: the good one's, and a short one.
    seeds.push_back(Bytes({1, api::kSignalJobs, static_cast<uint8_t>(body.size())},
                          body + good.substr(0, good.size() - 32)));
    seeds.push_back(Bytes({3, 1, 0}, good.substr(0, 20)));
    seeds.push_back(Bytes({0, 1, 0}, "none:1000:1000"));
  } else if (name == "request_body") {
    const std::vector<MethodMessage>& table = MethodTable();
    for (size_t i = 0; i < table.size(); ++i) {
      std::string body = ExampleRequestBody(table[i].method);
      if (!body.empty()) seeds.push_back(Bytes({static_cast<uint8_t>(i)}, body));
    }
    wire::TaskIoFrame io;
    io.set_kind(wire::TaskIoFrame::STDOUT);
    io.set_data("hello\n");
    seeds.push_back(Bytes({static_cast<uint8_t>(table.size())}, io.SerializeAsString()));
  } else if (name == "step_channel") {
    auto framed = [](const MessageLite& m) {
      std::string body = m.SerializeAsString();
      uint32_t n = static_cast<uint32_t>(body.size());
      std::string out = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                         static_cast<char>(n >> 8), static_cast<char>(n)};
      return out + body;
    };
    wire::StepRequest signal;
    signal.mutable_signal()->set_signal(15);
    seeds.push_back(Bytes({0}, framed(signal)));
    wire::StepRequest status;
    status.set_status(true);
    seeds.push_back(Bytes({0}, framed(status)));
    wire::StepStatus answer;
    answer.set_state(wire::StepStatus::STEP_STARTING);
    seeds.push_back(Bytes({1}, framed(answer)));
  } else if (name == "pmi2") {
    std::string session = "cmd=init pmi_version=2 pmi_subversion=0\n";
    for (noded::Pmi2Message m : {
             noded::Pmi2Message{"fullinit", {{"pmirank", "0"}}, false},
             noded::Pmi2Message{"job-getid", {}, false},
             noded::Pmi2Message{"info-putnodeattr", {{"key", "a"}, {"value", "b;c"}}, false},
             noded::Pmi2Message{"info-getnodeattr", {{"key", "a"}, {"wait", "TRUE"}}, false},
             noded::Pmi2Message{"kvs-put", {{"key", "k"}, {"value", "v"}}, false},
             noded::Pmi2Message{"kvs-fence", {}, false},
             noded::Pmi2Message{"kvs-get", {{"key", "k"}}, false},
             noded::Pmi2Message{"info-getjobattr", {{"key", "PMI_process_mapping"}}, false},
             noded::Pmi2Message{"finalize", {}, false},
         }) {
      session += noded::EncodePmi2(m);
    }
    seeds.push_back(Bytes({4, 0}, session));
    seeds.push_back(Bytes({1, 1}, session));
    seeds.push_back(Bytes({0, 0}, "    20cmd=abort;message=x;"));
  }
  return seeds;
}

}  // namespace rota::fuzz
