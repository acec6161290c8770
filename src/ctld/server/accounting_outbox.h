#pragma once

// The controller's durable outbox to rotadbd. Accounting records (job
// attempts started and ended, Effects::accounting; node events,
// Effects::node_events) are appended to a log of
// their own under StateSaveLocation/accounting_outbox before the state loop
// makes the batch's state records durable; a delivery thread sends them to
// rotadbd in order, in batches, and remembers the last one rotadbd
// acknowledged in a small `delivered` file. While rotadbd is down records
// wait on disk, across controller restarts too; once it is back they go out
// in the order they were made. A batch whose acknowledgement was lost is sent
// again, which rotadbd's idempotent store absorbs, so nothing is lost or
// stored twice.
//
// Thread confinement: Record() is called by the state loop thread; the
// delivery thread is the outbox's own. Both touch the log under mu_.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "accounting.pb.h"
#include "auth/credential.h"
#include "conf/cluster_config.h"
#include "ctld/server/accounting_sink.h"
#include "ctld/state/file_ops.h"
#include "ctld/state/write_ahead_log.h"
#include "rpc/client.h"

namespace rota::ctld {

// Hands one batch to rotadbd. OK means rotadbd has stored it.
class AccountingTransport {
 public:
  virtual ~AccountingTransport() = default;
  virtual Status Send(const wire::RecordJobsRequest& request) = 0;
};

// The real transport: framed RPC with a credential to AccountingStorageHost:Port.
// Used only by the delivery thread.
class RpcAccountingTransport : public AccountingTransport {
 public:
  RpcAccountingTransport(std::string host, uint16_t port,
                         std::unique_ptr<auth::CredentialIssuer> issuer);
  Status Send(const wire::RecordJobsRequest& request) override;

 private:
  std::string host_;
  uint16_t port_;
  std::unique_ptr<auth::CredentialIssuer> issuer_;
  rpc::RpcClient client_;
};

class AccountingOutbox : public AccountingSink {
 public:
  struct Options {
    std::string dir;          // Created if missing.
    size_t max_batch = 1000;  // Records per RecordJobs request
    // Bytes per request, at least one record each: a batch of start records
    // carrying scripts (AccountingStoreFlags) stays far below a frame's limit.
    size_t max_batch_bytes = 16u << 20;
    std::chrono::milliseconds retry_after{1000};  // After a failed send
    uint64_t segment_bytes = 4ull << 20;
  };

  // Opens the outbox (`ops` must outlive it), loading what was not delivered.
  // Delivery starts with Start().
  static Result<std::unique_ptr<AccountingOutbox>> Open(
      FileOps* ops, Options options, std::unique_ptr<AccountingTransport> transport);
  ~AccountingOutbox() override;  // Stop().

  void Start();
  // Stops the delivery thread; what is undelivered stays on disk.
  void Stop();

  // AccountingSink: makes `records` durable and queues them for delivery.
  Status Record(const std::vector<wire::AccountingJob>& records) override;
  Status RecordNodeEvents(const std::vector<wire::NodeEvent>& events) override;

  // Waits until every record made so far is delivered, or `timeout`.
  bool WaitDelivered(std::chrono::milliseconds timeout);
  size_t undelivered() const;
  uint64_t delivered_seq() const;

 private:
  AccountingOutbox(FileOps* ops, Options options, std::unique_ptr<AccountingTransport> transport)
      : ops_(ops), options_(std::move(options)), transport_(std::move(transport)) {}
  void Run();
  Status WriteDelivered(uint64_t seq);
  // One record of the log: a job attempt or a node event.
  using Item = std::variant<wire::AccountingJob, wire::NodeEvent>;
  Status Append(std::vector<Item> items);

  FileOps* ops_;
  const Options options_;
  std::unique_ptr<AccountingTransport> transport_;  // Delivery thread only.

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<WriteAheadLog> log_;  // Guarded by mu_.
  // Undelivered records with their seqs, oldest first. Guarded by mu_.
  std::deque<std::pair<uint64_t, Item>> queue_;
  uint64_t delivered_seq_ = 0;               // Guarded by mu_.
  bool stopping_ = false;                    // Guarded by mu_.
  uint64_t delivered_since_compaction_ = 0;  // Delivery thread only.
  std::thread thread_;
};

// The outbox rotactld runs when accounting is on: in
// StateSaveLocation/accounting_outbox, sending to AccountingStorageHost:Port.
Result<std::unique_ptr<AccountingOutbox>> OpenControllerOutbox(const conf::ClusterConfig& config,
                                                               FileOps* ops);

}  // namespace rota::ctld
