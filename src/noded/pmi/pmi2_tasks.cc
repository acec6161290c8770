#include "noded/pmi/pmi2_tasks.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"

namespace rota::noded {

Pmi2Tasks::Pmi2Tasks(Pmi2StepShape shape)
    : shape_(shape), session_(std::move(shape)), channels_(shape_.local_tasks) {}

Result<std::unique_ptr<Pmi2Tasks>> Pmi2Tasks::Open(Pmi2StepShape shape) {
  std::unique_ptr<Pmi2Tasks> tasks(new Pmi2Tasks(std::move(shape)));
  for (Channel& channel : tasks->channels_) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      return Internal(std::string("cannot make a PMI socket pair: ") + strerror(errno));
    }
    // The task's standard streams take 0-2 in its process: its end must not
    // be one of them (a daemon started with them closed would hand them out).
    for (int& fd : pair) {
      if (fd > 2) continue;
      const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
      close(fd);
      fd = moved;
    }
    channel.end = pair[0];
    channel.task_end = pair[1];
    if (channel.end < 0 || channel.task_end < 0) {
      return Internal(std::string("cannot place a PMI socket: ") + strerror(errno));
    }
    fcntl(channel.end, F_SETFL, fcntl(channel.end, F_GETFL) | O_NONBLOCK);
  }
  return tasks;
}

Pmi2Tasks::~Pmi2Tasks() {
  CloseTaskEnds();
  for (Channel& channel : channels_) {
    if (channel.end >= 0) close(channel.end);
  }
}

std::vector<std::pair<std::string, std::string>> Pmi2Tasks::TaskEnvironment(
    uint32_t local_task) const {
  return {{"PMI_FD", std::to_string(channels_[local_task].task_end)},
          {"PMI_RANK", std::to_string(shape_.ranks[local_task])},
          {"PMI_SIZE", std::to_string(shape_.size)},
          {"PMI_JOBID", shape_.job_id},
          {"PMI_SPAWNED", "0"}};
}

void Pmi2Tasks::CloseTaskEnds() {
  for (Channel& channel : channels_) {
    if (channel.task_end >= 0) close(channel.task_end);
    channel.task_end = -1;
  }
}

size_t Pmi2Tasks::AddPollFds(std::vector<pollfd>& fds) const {
  const size_t first = fds.size();
  for (const Channel& channel : channels_) {
    // A closed channel stays in the set as -1 (ignored by poll) so that
    // positions match tasks.
    fds.push_back(
        {channel.end, static_cast<short>(POLLIN | (channel.outgoing.empty() ? 0 : POLLOUT)), 0});
  }
  return first;
}

void Pmi2Tasks::Flush(Channel& channel) {
  while (channel.end >= 0 && !channel.outgoing.empty()) {
    ssize_t n = send(channel.end, channel.outgoing.data(), channel.outgoing.size(),
                     MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {  // The task is gone; its reading side notices.
      channel.outgoing.clear();
      return;
    }
    channel.outgoing.erase(0, static_cast<size_t>(n));
  }
}

void Pmi2Tasks::Apply(Pmi2NodeSession::Effects effects, std::vector<wire::TaskIoFrame>* to_srun) {
  for (auto& [task, bytes] : effects.replies) {
    channels_[task].outgoing += bytes;
    Flush(channels_[task]);
  }
  if (effects.fence) {
    wire::TaskIoFrame frame;
    wire::PmiExchange* fence = frame.mutable_pmi();
    fence->set_kind(wire::PmiExchange::FENCE);
    fence->set_round(effects.fence->round);
    for (auto& [k, v] : effects.fence->puts) {
      wire::PmiPair* pair = fence->add_pairs();
      pair->set_key(k);
      pair->set_value(v);
    }
    to_srun->push_back(std::move(frame));
  }
  if (effects.abort) {
    wire::TaskIoFrame frame;
    wire::PmiExchange* abort = frame.mutable_pmi();
    abort->set_kind(wire::PmiExchange::ABORT);
    abort->set_task(effects.abort->rank);
    abort->set_message(effects.abort->message);
    to_srun->push_back(std::move(frame));
  }
}

void Pmi2Tasks::Disconnect(uint32_t local_task, std::vector<wire::TaskIoFrame>* to_srun) {
  Channel& channel = channels_[local_task];
  if (channel.end < 0) return;
  close(channel.end);
  channel.end = -1;
  channel.outgoing.clear();
  Apply(session_.OnDisconnect(local_task), to_srun);
}

std::vector<wire::TaskIoFrame> Pmi2Tasks::OnPolled(const std::vector<pollfd>& fds, size_t first) {
  std::vector<wire::TaskIoFrame> to_srun;
  for (uint32_t t = 0; t < channels_.size() && first + t < fds.size(); ++t) {
    Channel& channel = channels_[t];
    const short revents = fds[first + t].revents;
    if (channel.end < 0 || revents == 0) continue;
    if ((revents & POLLOUT) != 0) Flush(channel);
    if ((revents & ~POLLOUT) == 0) continue;
    char buf[16384];
    ssize_t n = recv(channel.end, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (n <= 0) {
      Disconnect(t, &to_srun);
      continue;
    }
    channel.reader.Feed(std::string_view(buf, static_cast<size_t>(n)));
    while (channel.end >= 0) {
      std::optional<Result<Pmi2Message>> message = channel.reader.Next();
      if (!message) break;
      if (!message->ok()) {
        spdlog::warn("step {}: rank {}: {}", shape_.job_id, shape_.ranks[t],
                     message->status().message());
        Disconnect(t, &to_srun);
        break;
      }
      Apply(session_.OnMessage(t, **message), &to_srun);
    }
  }
  return to_srun;
}

void Pmi2Tasks::OnSrunFrame(const wire::PmiExchange& exchange) {
  if (exchange.kind() != wire::PmiExchange::FENCE_DONE) return;
  Pmi2Pairs pairs;
  pairs.reserve(exchange.pairs_size());
  for (const wire::PmiPair& pair : exchange.pairs()) pairs.emplace_back(pair.key(), pair.value());
  std::vector<wire::TaskIoFrame> none;
  Apply(session_.OnFenceDone(exchange.round(), pairs), &none);
}

}  // namespace rota::noded
