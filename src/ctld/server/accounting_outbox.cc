#include "ctld/server/accounting_outbox.h"

#include <fmt/format.h>

#include "api/accounting_address.h"
#include "api/auth_settings.h"
#include "api/dbd_methods.h"
#include "auth/signed_send.h"
#include "common/log.h"
#include "common/strings.h"

namespace rota::ctld {
namespace {

constexpr char kDeliveredFile[] = "delivered";

// A log payload is a job attempt's encoding (as before node events were
// recorded), or a zero byte followed by a node event's encoding: no
// AccountingJob encoding starts with a zero byte (field number 0 does not
// exist), so logs written before node events existed still read the same.
constexpr char kNodeEventMark = '\0';

std::string Encode(const std::variant<wire::AccountingJob, wire::NodeEvent>& item) {
  if (const auto* job = std::get_if<wire::AccountingJob>(&item)) return job->SerializeAsString();
  return kNodeEventMark + std::get<wire::NodeEvent>(item).SerializeAsString();
}

bool Decode(const std::string& payload, std::variant<wire::AccountingJob, wire::NodeEvent>& item) {
  if (!payload.empty() && payload[0] == kNodeEventMark) {
    wire::NodeEvent event;
    if (!event.ParseFromArray(payload.data() + 1, static_cast<int>(payload.size() - 1))) {
      return false;
    }
    item = std::move(event);
    return true;
  }
  wire::AccountingJob job;
  if (!job.ParseFromString(payload)) return false;
  item = std::move(job);
  return true;
}

}  // namespace

RpcAccountingTransport::RpcAccountingTransport(std::string host, uint16_t port,
                                               std::unique_ptr<auth::CredentialIssuer> issuer)
    : host_(std::move(host)), port_(port), issuer_(std::move(issuer)) {}

Status RpcAccountingTransport::Send(const wire::RecordJobsRequest& request) {
  if (!client_.connected()) {
    ROTA_RETURN_IF_ERROR(client_.Connect(host_, port_, std::chrono::seconds(5)));
  }
  std::string body = request.SerializeAsString();
  return auth::SendSigned(*issuer_, auth::RpcBindingBytes(api::kDbdRecordJobs, body),
                          [&](const std::string& credential) {
                            Result<rpc::Response> answer = client_.Call(
                                api::kDbdRecordJobs, credential, body, std::chrono::seconds(30));
                            return answer.ok() ? answer->ToStatus() : answer.status();
                          });
}

Result<std::unique_ptr<AccountingOutbox>> AccountingOutbox::Open(
    FileOps* ops, Options options, std::unique_ptr<AccountingTransport> transport) {
  std::unique_ptr<AccountingOutbox> box(
      new AccountingOutbox(ops, std::move(options), std::move(transport)));
  const std::string& dir = box->options_.dir;
  ROTA_RETURN_IF_ERROR(ops->CreateDir(dir));
  uint64_t delivered = 0;
  Result<std::vector<std::string>> names = ops->ListDir(dir);
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    if (name != kDeliveredFile) continue;
    Result<std::string> text = ops->ReadFile(dir + "/" + kDeliveredFile);
    if (!text.ok()) return text.status();
    std::optional<uint64_t> seq = ParseUint(Trim(*text));
    if (!seq) {
      return Status(StatusCode::kCorruption,
                    fmt::format("{}/{} does not hold a number", dir, kDeliveredFile));
    }
    delivered = *seq;
  }
  LogReplay replay;
  LogOptions log_options;
  log_options.segment_bytes = box->options_.segment_bytes;
  auto log = WriteAheadLog::Open(ops, dir, delivered, log_options, &replay);
  if (!log.ok()) return log.status();
  for (const std::string& w : replay.warnings) spdlog::warn("accounting outbox: {}", w);
  box->log_ = std::move(log).value();
  box->delivered_seq_ = delivered;
  uint64_t seq = replay.last_seq - replay.records.size();
  for (const std::string& payload : replay.records) {
    Item item;
    if (!Decode(payload, item)) {
      return Status(StatusCode::kCorruption,
                    fmt::format("accounting outbox record {} does not parse", seq + 1));
    }
    box->queue_.emplace_back(++seq, std::move(item));
  }
  if (!box->queue_.empty()) {
    spdlog::info("accounting outbox: {} records wait for rotadbd", box->queue_.size());
  }
  return box;
}

AccountingOutbox::~AccountingOutbox() { Stop(); }

void AccountingOutbox::Start() {
  thread_ = std::thread([this] { Run(); });
}

void AccountingOutbox::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status AccountingOutbox::Record(const std::vector<wire::AccountingJob>& records) {
  return Append({records.begin(), records.end()});
}

Status AccountingOutbox::RecordNodeEvents(const std::vector<wire::NodeEvent>& events) {
  return Append({events.begin(), events.end()});
}

Status AccountingOutbox::Append(std::vector<Item> items) {
  if (items.empty()) return Status::Ok();
  std::vector<std::string> payloads;
  payloads.reserve(items.size());
  for (const Item& item : items) payloads.push_back(Encode(item));
  {
    std::lock_guard<std::mutex> lock(mu_);
    Result<uint64_t> last = log_->AppendBatch(payloads);
    if (!last.ok()) return last.status();
    uint64_t seq = *last - items.size();
    for (Item& item : items) queue_.emplace_back(++seq, std::move(item));
  }
  cv_.notify_all();
  return Status::Ok();
}

size_t AccountingOutbox::undelivered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

uint64_t AccountingOutbox::delivered_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return delivered_seq_;
}

bool AccountingOutbox::WaitDelivered(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return queue_.empty(); });
}

Status AccountingOutbox::WriteDelivered(uint64_t seq) {
  // Write-then-rename, so a crash leaves the old number or the new one. It is
  // synced before any segment it covers is removed (Run), so the log never
  // has a hole below what the file says was delivered.
  const std::string tmp = options_.dir + "/" + kDeliveredFile + ".tmp";
  Result<int> fd = ops_->Open(tmp, OpenMode::kCreateOrTruncate);
  if (!fd.ok()) return fd.status();
  Status s = ops_->Write(*fd, std::to_string(seq) + "\n");
  if (s.ok()) s = ops_->DataSync(*fd);
  Status closed = ops_->Close(*fd);
  if (s.ok()) s = closed;
  if (s.ok()) s = ops_->Rename(tmp, options_.dir + "/" + kDeliveredFile);
  if (s.ok()) s = ops_->SyncDir(options_.dir);
  return s;
}

void AccountingOutbox::Run() {
  bool failing = false;
  while (true) {
    wire::RecordJobsRequest request;
    uint64_t last_seq = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (failing) {
        cv_.wait_for(lock, options_.retry_after, [&] { return stopping_; });
      } else {
        cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      }
      if (stopping_) return;
      if (queue_.empty()) continue;
      size_t n = std::min(queue_.size(), options_.max_batch);
      size_t bytes = 0;
      // Jobs and node events are stored apart, each kind in its own order.
      for (size_t i = 0; i < n; ++i) {
        if (const auto* job = std::get_if<wire::AccountingJob>(&queue_[i].second)) {
          bytes += job->ByteSizeLong();
          if (i > 0 && bytes > options_.max_batch_bytes) {
            n = i;  // The rest goes in the next request
            break;
          }
          *request.add_jobs() = *job;
        } else {
          *request.add_node_events() = std::get<wire::NodeEvent>(queue_[i].second);
        }
      }
      last_seq = queue_[n - 1].first;
    }
    // Sent without the lock: the state loop keeps appending meanwhile.
    Status sent = transport_->Send(request);
    if (!sent.ok()) {
      if (!failing) {
        spdlog::warn("accounting: rotadbd did not take {} records ({}); they wait on disk",
                     request.jobs_size() + request.node_events_size(), sent.message());
      }
      failing = true;
      continue;
    }
    if (failing) spdlog::info("accounting: rotadbd is back; delivering");
    failing = false;
    Status written = WriteDelivered(last_seq);
    if (!written.ok()) spdlog::error("accounting outbox: {}", written.ToString());
    delivered_since_compaction_ += request.jobs_size() + request.node_events_size();
    std::lock_guard<std::mutex> lock(mu_);
    while (!queue_.empty() && queue_.front().first <= last_seq) queue_.pop_front();
    delivered_seq_ = last_seq;
    // Removing delivered segments closes the one being written; do it when
    // everything is out or enough has gone to be worth a new segment.
    if (written.ok() && (queue_.empty() || delivered_since_compaction_ >= 8192)) {
      Status s = log_->CompactThrough(last_seq);
      if (!s.ok()) spdlog::warn("accounting outbox: {}", s.ToString());
      delivered_since_compaction_ = 0;
    }
    cv_.notify_all();
  }
}

Result<std::unique_ptr<AccountingOutbox>> OpenControllerOutbox(const conf::ClusterConfig& config,
                                                               FileOps* ops) {
  auto issuer = auth::MakeIssuer(api::AuthSettingsFor(config));
  if (!issuer.ok()) return issuer.status();
  const std::string host = api::AccountingStorageAddress(config.settings);
  AccountingOutbox::Options options;
  options.dir = config.settings.state_save_location + "/accounting_outbox";
  return AccountingOutbox::Open(
      ops, options,
      std::make_unique<RpcAccountingTransport>(host, config.settings.accounting_storage_port,
                                               std::move(issuer).value()));
}

}  // namespace rota::ctld
