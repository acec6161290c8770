#include "noded/pmi/pmi2_session.h"

#include <fmt/format.h>

namespace rota::noded {

std::string Pmi2ProcessMapping(const std::vector<uint32_t>& tasks_per_node) {
  std::string out = "(vector";
  size_t i = 0;
  while (i < tasks_per_node.size()) {
    size_t j = i;
    while (j < tasks_per_node.size() && tasks_per_node[j] == tasks_per_node[i]) ++j;
    out += fmt::format(",({},{},{})", i, j - i, tasks_per_node[i]);
    i = j;
  }
  return out + ")";
}

std::string Pmi2ProcessMappingOfRanks(const std::vector<uint32_t>& node_of_rank) {
  // Blocks: runs of consecutive ranks on one node, as (node, size).
  std::vector<std::pair<uint32_t, uint32_t>> blocks;
  for (uint32_t node : node_of_rank) {
    if (!blocks.empty() && blocks.back().first == node) {
      ++blocks.back().second;
    } else {
      blocks.emplace_back(node, 1);
    }
  }
  std::string out = "(vector";
  size_t i = 0;
  while (i < blocks.size()) {
    size_t j = i + 1;
    while (j < blocks.size() && blocks[j].first == blocks[j - 1].first + 1 &&
           blocks[j].second == blocks[i].second) {
      ++j;
    }
    out += fmt::format(",({},{},{})", blocks[i].first, j - i, blocks[i].second);
    i = j;
  }
  return out + ")";
}

Pmi2NodeSession::Pmi2NodeSession(Pmi2StepShape shape) : shape_(std::move(shape)) {}

std::string Pmi2NodeSession::Reply(const Pmi2Message& request, Pmi2Message answer) const {
  // A threaded client matches answers to requests by their thread id.
  if (std::optional<std::string> thread = request.Find("thrid")) answer.Add("thrid", *thread);
  answer.line_form = request.line_form;
  return EncodePmi2(answer);
}

Pmi2Message Pmi2NodeSession::Found(std::string command,
                                   const std::optional<std::string>& value) const {
  Pmi2Message answer{std::move(command), {}, false};
  answer.Add("rc", "0").Add("found", value ? "TRUE" : "FALSE");
  if (value) answer.Add("value", *value);
  return answer;
}

Pmi2NodeSession::Effects Pmi2NodeSession::OnMessage(uint32_t local_task,
                                                    const Pmi2Message& message) {
  Effects effects;
  const uint32_t rank = shape_.ranks[local_task];
  auto reply = [&](Pmi2Message answer) {
    effects.replies.emplace_back(local_task, Reply(message, std::move(answer)));
  };
  const std::string& cmd = message.command;
  if (message.line_form) {
    // The opening handshake is in the older form; it names the version the
    // rest of the conversation speaks.
    if (cmd == "init") {
      Pmi2Message answer{"response_to_init", {}, true};
      const std::string version = message.Get("pmi_version");
      if (version == "1") {
        pmi1_.insert(local_task);
        initialised_.insert(local_task);
        answer.Add("pmi_version", "1").Add("pmi_subversion", "1").Add("rc", "0");
      } else {
        answer.Add("pmi_version", "2")
            .Add("pmi_subversion", "0")
            .Add("rc", version == "2" ? "0" : "1");
      }
      reply(std::move(answer));
    } else if (pmi1_.count(local_task) != 0) {
      OnPmi1Message(local_task, message, effects);
    } else {
      Pmi2Message answer{cmd + "_response", {}, true};
      answer.Add("rc", "1").Add("msg", "this step speaks PMI-2 only");
      reply(std::move(answer));
    }
    return effects;
  }
  if (cmd == "fullinit") {
    initialised_.insert(local_task);
    Pmi2Message answer{"fullinit-response", {}, false};
    answer.Add("rc", "0")
        .Add("pmi-version", "2")
        .Add("pmi-subversion", "0")
        .Add("rank", std::to_string(rank))
        .Add("size", std::to_string(shape_.size))
        .Add("appnum", "0")
        .Add("debugged", "FALSE")
        .Add("pmiverbose", "FALSE");
    reply(std::move(answer));
  } else if (cmd == "job-getid") {
    Pmi2Message answer{"job-getid-response", {}, false};
    answer.Add("rc", "0").Add("jobid", shape_.job_id);
    reply(std::move(answer));
  } else if (cmd == "info-getjobattr") {
    const std::string key = message.Get("key");
    std::optional<std::string> value;
    if (key == "PMI_process_mapping") value = shape_.process_mapping;
    if (key == "universeSize") value = std::to_string(shape_.size);
    reply(Found("info-getjobattr-response", value));
  } else if (cmd == "info-putnodeattr") {
    const std::string key = message.Get("key");
    node_attributes_[key] = message.Get("value");
    reply(Pmi2Message{"info-putnodeattr-response", {{"rc", "0"}}, false});
    auto [from, to] = attribute_waiters_.equal_range(key);
    for (auto it = from; it != to; ++it) {
      effects.replies.emplace_back(
          it->second.first,
          Reply(it->second.second, Found("info-getnodeattr-response", node_attributes_[key])));
    }
    attribute_waiters_.erase(from, to);
  } else if (cmd == "info-getnodeattr") {
    const std::string key = message.Get("key");
    auto it = node_attributes_.find(key);
    if (it == node_attributes_.end() && message.Get("wait") == "TRUE") {
      attribute_waiters_.emplace(key, std::make_pair(local_task, message));
    } else {
      reply(Found("info-getnodeattr-response", it == node_attributes_.end()
                                                   ? std::nullopt
                                                   : std::optional<std::string>(it->second)));
    }
  } else if (cmd == "kvs-put") {
    pending_[message.Get("key")] = message.Get("value");
    reply(Pmi2Message{"kvs-put-response", {{"rc", "0"}}, false});
  } else if (cmd == "kvs-get") {
    reply(Found("kvs-get-response", Lookup(message.Get("key"))));
  } else if (cmd == "kvs-fence") {
    EnterFence(local_task, message, effects);
  } else if (cmd == "finalize") {
    finalized_.insert(local_task);
    reply(Pmi2Message{"finalize-response", {{"rc", "0"}}, false});
  } else if (cmd == "abort") {
    effects.abort = Abort{rank, message.Get("msg", "(no message)")};
  } else {
    Pmi2Message answer{cmd + "-response", {}, false};
    answer.Add("rc", "1").Add("errmsg", "unsupported PMI-2 command " + cmd);
    reply(std::move(answer));
  }
  return effects;
}

std::optional<std::string> Pmi2NodeSession::Lookup(const std::string& key) const {
  if (auto p = pending_.find(key); p != pending_.end()) return p->second;
  if (auto c = committed_.find(key); c != committed_.end()) return c->second;
  return std::nullopt;
}

void Pmi2NodeSession::EnterFence(uint32_t local_task, const Pmi2Message& request,
                                 Effects& effects) {
  in_fence_[local_task] = request;
  if (in_fence_.size() == shape_.local_tasks && !fence_sent_) {
    effects.fence = Fence{round_, Pmi2Pairs(pending_.begin(), pending_.end())};
    for (auto& [k, v] : pending_) committed_[k] = std::move(v);
    pending_.clear();
    fence_sent_ = true;
  }
}

void Pmi2NodeSession::OnPmi1Message(uint32_t local_task, const Pmi2Message& message,
                                    Effects& effects) {
  auto reply = [&](std::string command, Pmi2Pairs pairs) {
    Pmi2Message answer{std::move(command), {}, true};
    answer.Add("rc", "0");
    for (auto& [k, v] : pairs) answer.Add(k, v);
    effects.replies.emplace_back(local_task, Reply(message, std::move(answer)));
  };
  // One key-value space per step; its name is the step's.
  const std::string kvsname = "kvs_" + shape_.job_id;
  const std::string& cmd = message.command;
  if (cmd == "get_maxes") {
    reply("maxes", {{"kvsname_max", "256"}, {"keylen_max", "256"}, {"vallen_max", "1024"}});
  } else if (cmd == "get_universe_size") {
    reply("universe_size", {{"size", std::to_string(shape_.size)}});
  } else if (cmd == "get_appnum") {
    reply("appnum", {{"appnum", "0"}});
  } else if (cmd == "get_my_kvsname") {
    reply("my_kvsname", {{"kvsname", kvsname}});
  } else if (cmd == "put") {
    pending_[message.Get("key")] = message.Get("value");
    reply("put_result", {});
  } else if (cmd == "get") {
    // PMI-1 clients read the step's layout from the space, as Slurm serves it.
    const std::string key = message.Get("key");
    std::optional<std::string> value = key == "PMI_process_mapping"
                                           ? std::optional<std::string>(shape_.process_mapping)
                                           : Lookup(key);
    if (value) {
      reply("get_result", {{"value", *value}});
    } else {
      Pmi2Message answer{"get_result", {}, true};
      answer.Add("rc", "-1").Add("msg", "key_" + key + "_not_found");
      effects.replies.emplace_back(local_task, Reply(message, std::move(answer)));
    }
  } else if (cmd == "barrier_in") {
    EnterFence(local_task, message, effects);
  } else if (cmd == "finalize") {
    finalized_.insert(local_task);
    reply("finalize_ack", {});
  } else if (cmd == "abort") {
    effects.abort = Abort{shape_.ranks[local_task],
                          "PMI_Abort (exit code " + message.Get("exitcode", "1") + ")"};
  } else {
    Pmi2Message answer{cmd + "_result", {}, true};
    answer.Add("rc", "-1").Add("msg", "unsupported PMI-1 command " + cmd);
    effects.replies.emplace_back(local_task, Reply(message, std::move(answer)));
  }
}

Pmi2NodeSession::Effects Pmi2NodeSession::OnFenceDone(uint32_t round, const Pmi2Pairs& pairs) {
  Effects effects;
  if (!fence_sent_ || round != round_) return effects;  // Not the fence these tasks wait in
  for (const auto& [k, v] : pairs) committed_[k] = v;
  for (const auto& [task, request] : in_fence_) {
    // PMI-1's barrier_in is answered in its own words.
    Pmi2Message done = pmi1_.count(task) != 0
                           ? Pmi2Message{"barrier_out", {{"rc", "0"}}, true}
                           : Pmi2Message{"kvs-fence-response", {{"rc", "0"}}, false};
    effects.replies.emplace_back(task, Reply(request, std::move(done)));
  }
  in_fence_.clear();
  fence_sent_ = false;
  ++round_;
  return effects;
}

Pmi2NodeSession::Effects Pmi2NodeSession::OnDisconnect(uint32_t local_task) {
  Effects effects;
  if (initialised_.count(local_task) != 0 && finalized_.count(local_task) == 0) {
    effects.abort = Abort{shape_.ranks[local_task],
                          "the task ended without PMI2_Finalize; the others cannot go on"};
  }
  return effects;
}

}  // namespace rota::noded
