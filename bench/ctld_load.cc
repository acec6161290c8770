// ctld_load: how many held job submissions per second one rotactld accepts.
//
// Opens C connections (one thread each) to the controller named by slurm.conf
// and keeps W SubmitJob requests in flight on each, sending a new one as soon
// as an answer comes back, until N submissions were sent or T seconds passed.
// Every request carries a fresh credential (the controller refuses replays).
// Jobs are held, so they stay pending whether or not nodes exist.
//
// Prints `name value unit` lines on stdout (benchmark format), progress and
// errors on stderr:
//   ctld_submit_ceiling <jobs/s> jobs/s   accepted submissions / wall time
//   ctld_submit_p50_us, _p90_us, _p99_us, _max_us   send-to-answer latency
//   ctld_submit_accepted, ctld_submit_refused       counts
//
//   SLURM_CONF=/tmp/x/slurm.conf ctld_load -c 16 -w 64 -n 100000
#include <getopt.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/auth_settings.h"
#include "api/methods.h"
#include "auth/credential.h"
#include "conf/config_loader.h"
#include "rota.pb.h"
#include "rpc/client.h"

extern char** environ;

namespace rota::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct LoadOptions {
  std::string slurm_conf = conf::DefaultSlurmConfPath();
  int connections = 16;
  int window = 64;                            // Requests in flight per connection.
  uint64_t total = 100000;                    // Submissions to send; 0: no limit (use seconds).
  double seconds = 0;                         // Stop sending after this long; 0: no limit.
  bool environment = false;                   // Attach this process's environment, as sbatch does.
  std::chrono::milliseconds timeout{60'000};  // Per answer.
};

// What one connection measured. Owned by its thread until joined.
struct ConnectionTally {
  std::vector<uint32_t> latencies_us;  // Accepted submissions only.
  uint64_t accepted = 0;
  uint64_t refused = 0;
  std::string first_refusal;  // The controller's message, for the operator.
  Status transport = Status::Ok();
};

// Shared among connection threads: hands out submission tickets so that
// exactly `total` requests are sent across all connections.
class TicketDispenser {
 public:
  TicketDispenser(uint64_t total, SteadyClock::time_point stop_at)
      : total_(total), stop_at_(stop_at) {}
  bool Take() {
    if (SteadyClock::now() >= stop_at_) return false;
    if (total_ == 0) return true;
    return next_.fetch_add(1, std::memory_order_relaxed) < total_;
  }

 private:
  const uint64_t total_;
  const SteadyClock::time_point stop_at_;
  std::atomic<uint64_t> next_{0};
};

std::string SubmitBody(int connection, bool environment) {
  wire::SubmitJobRequest request;
  wire::JobSpec& spec = *request.mutable_spec();
  spec.set_name("ctld_load_" + std::to_string(connection));
  spec.set_hold(true);
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.set_work_dir("/tmp");
  if (environment) {
    for (char** e = environ; *e != nullptr; ++e) spec.add_environment(*e);
  }
  return request.SerializeAsString();
}

// One connection: keeps `window` submissions in flight until tickets run out,
// then collects the answers still owed.
void RunConnection(int index, const LoadOptions& options, const std::string& host, uint16_t port,
                   auth::CredentialIssuer& issuer, TicketDispenser& tickets,
                   ConnectionTally& tally) {
  rpc::RpcClient client;
  tally.transport = client.Connect(host, port, std::chrono::seconds(5));
  if (!tally.transport.ok()) return;
  const std::string body = SubmitBody(index, options.environment);
  const std::string bound = auth::RpcBindingBytes(api::kSubmitJob, body);
  std::unordered_map<uint64_t, SteadyClock::time_point> sent_at;
  sent_at.reserve(options.window * 2);
  bool sending = true;
  while (true) {
    while (sending && sent_at.size() < static_cast<size_t>(options.window)) {
      if (!tickets.Take()) {
        sending = false;
        break;
      }
      Result<std::string> credential = issuer.Issue(bound);
      if (!credential.ok()) {
        tally.transport = credential.status();
        return;
      }
      auto start = SteadyClock::now();
      Result<uint64_t> id = client.Send(api::kSubmitJob, *credential, body, options.timeout);
      if (!id.ok()) {
        tally.transport = id.status();
        return;
      }
      sent_at.emplace(*id, start);
    }
    if (sent_at.empty()) return;
    Result<rpc::ResponseFrame> answer = client.Receive(options.timeout);
    if (!answer.ok()) {
      tally.transport = answer.status();
      return;
    }
    auto it = sent_at.find(answer->request_id);
    if (it == sent_at.end()) {
      // Only a refusal of the whole stream carries an id we never sent.
      tally.transport = Status(StatusCode::kUnavailable, "connection refused: " + answer->body);
      return;
    }
    auto elapsed =
        std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - it->second);
    sent_at.erase(it);
    if (answer->status == 0) {
      ++tally.accepted;
      tally.latencies_us.push_back(
          static_cast<uint32_t>(std::min<int64_t>(elapsed.count(), UINT32_MAX)));
    } else {
      if (tally.refused++ == 0) tally.first_refusal = answer->body;
      // Refusals (MaxJobCount, replay cache full) end this connection's sending:
      // a ceiling is measured on accepted work, not on fast "no"s.
      sending = false;
    }
  }
}

// The value at quantile `q` of sorted `v` (nearest rank). REQUIRES: !v.empty().
uint32_t Quantile(const std::vector<uint32_t>& v, double q) {
  size_t rank = static_cast<size_t>(q * static_cast<double>(v.size()));
  return v[std::min(rank, v.size() - 1)];
}

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: ctld_load [-f slurm.conf] [-c connections] [-w in-flight] [-n jobs] "
               "[-t seconds] [--environment]\n"
               "  -f FILE         slurm.conf (default: $SLURM_CONF or /etc/slurm/slurm.conf)\n"
               "  -c N            connections, one thread each (default 16)\n"
               "  -w N            requests in flight per connection (default 64)\n"
               "  -n N            submissions in all; 0 for no limit (default 100000)\n"
               "  -t SECONDS      stop sending after this long; 0 for no limit (default 0)\n"
               "  --environment   attach this process's environment to each job, as sbatch "
               "--export=ALL does\n");
}

int Main(int argc, char** argv) {
  LoadOptions options;
  enum { kEnvironment = 1000 };
  const option long_options[] = {
      {"environment", no_argument, nullptr, kEnvironment},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "f:c:w:n:t:h", long_options, nullptr)) != -1) {
    switch (c) {
      case 'f':
        options.slurm_conf = optarg;
        break;
      case 'c':
        options.connections = std::atoi(optarg);
        break;
      case 'w':
        options.window = std::atoi(optarg);
        break;
      case 'n':
        options.total = std::strtoull(optarg, nullptr, 10);
        break;
      case 't':
        options.seconds = std::atof(optarg);
        break;
      case kEnvironment:
        options.environment = true;
        break;
      case 'h':
        Usage(stdout);
        return 0;
      default:
        Usage(stderr);
        return 2;
    }
  }
  if (options.connections < 1 || options.window < 1 ||
      (options.total == 0 && options.seconds <= 0)) {
    Usage(stderr);
    return 2;
  }

  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(options.slurm_conf, diags);
  if (!config.ok()) {
    std::fprintf(stderr, "ctld_load: %s%s\n", diags.ToString().c_str(),
                 config.status().message().c_str());
    return 1;
  }
  const conf::ControllerHost& controller = (*config)->settings.controllers.front();
  const std::string host = controller.address.empty() ? controller.name : controller.address;
  const uint16_t port = (*config)->settings.slurmctld_port;
  auto issuer = auth::MakeIssuer(api::AuthSettingsFor(**config));
  if (!issuer.ok()) {
    std::fprintf(stderr, "ctld_load: %s\n", issuer.status().message().c_str());
    return 1;
  }

  const auto start = SteadyClock::now();
  const auto stop_at = options.seconds > 0
                           ? start + std::chrono::duration_cast<SteadyClock::duration>(
                                         std::chrono::duration<double>(options.seconds))
                           : SteadyClock::time_point::max();
  TicketDispenser tickets(options.total, stop_at);
  std::vector<ConnectionTally> tallies(options.connections);
  std::vector<std::thread> threads;
  for (int i = 0; i < options.connections; ++i) {
    threads.emplace_back(
        [&, i] { RunConnection(i, options, host, port, **issuer, tickets, tallies[i]); });
  }
  for (std::thread& t : threads) t.join();
  const double wall_s = std::chrono::duration<double>(SteadyClock::now() - start).count();

  std::vector<uint32_t> latencies;
  uint64_t accepted = 0;
  uint64_t refused = 0;
  int failed_connections = 0;
  for (ConnectionTally& t : tallies) {
    accepted += t.accepted;
    refused += t.refused;
    latencies.insert(latencies.end(), t.latencies_us.begin(), t.latencies_us.end());
    if (!t.first_refusal.empty())
      std::fprintf(stderr, "ctld_load: refused: %s\n", t.first_refusal.c_str());
    if (!t.transport.ok()) {
      ++failed_connections;
      std::fprintf(stderr, "ctld_load: connection failed: %s\n", t.transport.ToString().c_str());
    }
  }
  std::fprintf(stderr, "ctld_load: %llu accepted, %llu refused in %.3f s over %d x %d\n",
               static_cast<unsigned long long>(accepted), static_cast<unsigned long long>(refused),
               wall_s, options.connections, options.window);
  if (latencies.empty()) return 1;
  std::sort(latencies.begin(), latencies.end());
  std::printf("ctld_submit_ceiling %.0f jobs/s\n", static_cast<double>(accepted) / wall_s);
  std::printf("ctld_submit_p50_us %u us\n", Quantile(latencies, 0.50));
  std::printf("ctld_submit_p90_us %u us\n", Quantile(latencies, 0.90));
  std::printf("ctld_submit_p99_us %u us\n", Quantile(latencies, 0.99));
  std::printf("ctld_submit_max_us %u us\n", latencies.back());
  std::printf("ctld_submit_accepted %llu jobs\n", static_cast<unsigned long long>(accepted));
  std::printf("ctld_submit_refused %llu requests\n", static_cast<unsigned long long>(refused));
  return failed_connections > 0 || refused > 0 ? 1 : 0;
}

}  // namespace
}  // namespace rota::bench

int main(int argc, char** argv) { return rota::bench::Main(argc, argv); }
