#include "noded/pmi/pmi2_session.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

// The answer to one command, decoded.
Pmi2Message Decode(const std::string& wire) {
  Pmi2Reader reader;
  reader.Feed(wire);
  std::optional<Result<Pmi2Message>> m = reader.Next();
  EXPECT_TRUE(m.has_value() && m->ok()) << wire;
  return m && m->ok() ? **m : Pmi2Message{};
}

Pmi2Message Command(std::string name, std::vector<std::pair<std::string, std::string>> attrs = {}) {
  return Pmi2Message{std::move(name), std::move(attrs), false};
}

// Node 1 of a step of 2 nodes x 2 tasks: ranks 2 and 3.
Pmi2StepShape SecondNode() { return {"41.0", 4, {2, 3}, 2, Pmi2ProcessMapping({2, 2})}; }

TEST(Pmi2ProcessMappingTest, RunsOfEqualCounts) {
  EXPECT_EQ(Pmi2ProcessMapping({2, 2}), "(vector,(0,2,2))");
  EXPECT_EQ(Pmi2ProcessMapping({4}), "(vector,(0,1,4))");
  EXPECT_EQ(Pmi2ProcessMapping({3, 3, 1, 2, 2}), "(vector,(0,2,3),(2,1,1),(3,2,2))");
}

TEST(Pmi2SessionTest, HandshakeAndJobFacts) {
  Pmi2NodeSession session(SecondNode());
  Pmi2NodeSession::Effects e = session.OnMessage(
      0, Pmi2Message{"init", {{"pmi_version", "2"}, {"pmi_subversion", "0"}}, true});
  ASSERT_EQ(e.replies.size(), 1u);
  EXPECT_EQ(e.replies[0].second, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");

  e = session.OnMessage(1, Command("fullinit", {{"pmijobid", "41.0"}, {"pmirank", "3"}}));
  ASSERT_EQ(e.replies.size(), 1u);
  EXPECT_EQ(e.replies[0].first, 1u);
  Pmi2Message init = Decode(e.replies[0].second);
  EXPECT_EQ(init.command, "fullinit-response");
  EXPECT_EQ(init.Get("rc"), "0");
  EXPECT_EQ(init.Get("rank"), "3");
  EXPECT_EQ(init.Get("size"), "4");
  EXPECT_EQ(init.Get("pmi-version"), "2");

  Pmi2Message id = Decode(session.OnMessage(0, Command("job-getid")).replies.at(0).second);
  EXPECT_EQ(id.Get("jobid"), "41.0");

  Pmi2Message map =
      Decode(session.OnMessage(0, Command("info-getjobattr", {{"key", "PMI_process_mapping"}}))
                 .replies.at(0)
                 .second);
  EXPECT_EQ(map.Get("found"), "TRUE");
  EXPECT_EQ(map.Get("value"), "(vector,(0,2,2))");
  Pmi2Message unknown = Decode(
      session.OnMessage(0, Command("info-getjobattr", {{"key", "nope"}})).replies.at(0).second);
  EXPECT_EQ(unknown.Get("found"), "FALSE");
}

TEST(Pmi2SessionTest, ThreadIdIsEchoed) {
  Pmi2NodeSession session(SecondNode());
  Pmi2Message answer =
      Decode(session.OnMessage(0, Command("job-getid", {{"thrid", "0x7f"}})).replies.at(0).second);
  EXPECT_EQ(answer.Get("thrid"), "0x7f");
}

TEST(Pmi2SessionTest, FenceWaitsForEveryLocalTaskThenForSrun) {
  Pmi2NodeSession session(SecondNode());
  EXPECT_EQ(Decode(session.OnMessage(0, Command("kvs-put", {{"key", "k2"}, {"value", "v2"}}))
                       .replies.at(0)
                       .second)
                .Get("rc"),
            "0");
  session.OnMessage(1, Command("kvs-put", {{"key", "k3"}, {"value", "v3"}}));
  session.OnMessage(1, Command("kvs-put", {{"key", "k3"}, {"value", "v3b"}}));  // Last one wins

  Pmi2NodeSession::Effects first = session.OnMessage(0, Command("kvs-fence"));
  EXPECT_TRUE(first.replies.empty());  // Task 1 is not there yet
  EXPECT_FALSE(first.fence.has_value());
  Pmi2NodeSession::Effects second = session.OnMessage(1, Command("kvs-fence"));
  EXPECT_TRUE(second.replies.empty());  // The other node is not there yet
  ASSERT_TRUE(second.fence.has_value());
  EXPECT_EQ(second.fence->round, 0u);
  EXPECT_EQ(second.fence->puts, (Pmi2Pairs{{"k2", "v2"}, {"k3", "v3b"}}));

  // A stale or future round changes nothing.
  EXPECT_TRUE(session.OnFenceDone(5, {{"k0", "v0"}}).replies.empty());

  Pmi2NodeSession::Effects done =
      session.OnFenceDone(0, {{"k0", "v0"}, {"k1", "v1"}, {"k2", "v2"}, {"k3", "v3b"}});
  ASSERT_EQ(done.replies.size(), 2u);
  for (const auto& [task, wire] : done.replies) {
    EXPECT_EQ(Decode(wire).command, "kvs-fence-response");
  }
  Pmi2Message got = Decode(
      session.OnMessage(1, Command("kvs-get", {{"jobid", "41.0"}, {"srcid", "-1"}, {"key", "k0"}}))
          .replies.at(0)
          .second);
  EXPECT_EQ(got.Get("found"), "TRUE");
  EXPECT_EQ(got.Get("value"), "v0");
  EXPECT_EQ(Decode(session.OnMessage(1, Command("kvs-get", {{"key", "zz"}})).replies.at(0).second)
                .Get("found"),
            "FALSE");

  // The second fence is round 1 and carries only what was put since.
  session.OnMessage(0, Command("kvs-put", {{"key", "again"}, {"value", "1"}}));
  session.OnMessage(0, Command("kvs-fence"));
  Pmi2NodeSession::Effects next = session.OnMessage(1, Command("kvs-fence"));
  ASSERT_TRUE(next.fence.has_value());
  EXPECT_EQ(next.fence->round, 1u);
  EXPECT_EQ(next.fence->puts, (Pmi2Pairs{{"again", "1"}}));
  EXPECT_EQ(session.OnFenceDone(1, {{"again", "1"}}).replies.size(), 2u);
}

TEST(Pmi2SessionTest, NodeAttributesWaitForTheirPut) {
  Pmi2NodeSession session(SecondNode());
  EXPECT_TRUE(session.OnMessage(1, Command("info-getnodeattr", {{"key", "shm"}, {"wait", "TRUE"}}))
                  .replies.empty());
  EXPECT_EQ(
      Decode(
          session.OnMessage(1, Command("info-getnodeattr", {{"key", "shm"}})).replies.at(0).second)
          .Get("found"),
      "FALSE");
  Pmi2NodeSession::Effects put =
      session.OnMessage(0, Command("info-putnodeattr", {{"key", "shm"}, {"value", "/dev/shm/x"}}));
  ASSERT_EQ(put.replies.size(), 2u);  // The putter's answer and the waiter's
  EXPECT_EQ(put.replies[1].first, 1u);
  Pmi2Message waited = Decode(put.replies[1].second);
  EXPECT_EQ(waited.command, "info-getnodeattr-response");
  EXPECT_EQ(waited.Get("value"), "/dev/shm/x");
}

TEST(Pmi2SessionTest, FinalizeAbortAndDisconnect) {
  Pmi2NodeSession session(SecondNode());
  session.OnMessage(0, Command("fullinit"));
  session.OnMessage(1, Command("fullinit"));
  EXPECT_EQ(Decode(session.OnMessage(0, Command("finalize")).replies.at(0).second).command,
            "finalize-response");
  EXPECT_TRUE(session.Finalized(0));
  EXPECT_FALSE(session.OnDisconnect(0).abort.has_value());  // Finalized: a clean end

  Pmi2NodeSession::Effects abort =
      session.OnMessage(1, Command("abort", {{"isworldabort", "TRUE"}, {"msg", "bad input"}}));
  EXPECT_TRUE(abort.replies.empty());
  ASSERT_TRUE(abort.abort.has_value());
  EXPECT_EQ(abort.abort->rank, 3u);
  EXPECT_EQ(abort.abort->message, "bad input");
  // Initialised, never finalized, gone: the others would wait for ever.
  EXPECT_TRUE(session.OnDisconnect(1).abort.has_value());

  Pmi2NodeSession quiet(SecondNode());  // A task that never spoke PMI may just end
  EXPECT_FALSE(quiet.OnDisconnect(0).abort.has_value());
}

TEST(Pmi2SessionTest, UnknownCommandsAreAnsweredWithAnError) {
  Pmi2NodeSession session(SecondNode());
  Pmi2Message answer =
      Decode(session.OnMessage(0, Command("spawn", {{"ncmds", "1"}})).replies.at(0).second);
  EXPECT_EQ(answer.command, "spawn-response");
  EXPECT_NE(answer.Get("rc"), "0");
}

// MPICH's "simple" PMI: a task that opens with version 1 speaks PMI-1's
// lines; its barrier is the step's fence.
TEST(Pmi2SessionTest, Pmi1ClientsAreServedInTheirOwnWords) {
  Pmi2NodeSession session(SecondNode());
  auto line = [](std::string cmd, std::vector<std::pair<std::string, std::string>> attrs = {}) {
    return Pmi2Message{std::move(cmd), std::move(attrs), true};
  };
  auto only_reply = [](const Pmi2NodeSession::Effects& e) {
    EXPECT_EQ(e.replies.size(), 1u);
    return e.replies.empty() ? std::string() : e.replies[0].second;
  };
  for (uint32_t task : {0u, 1u}) {
    EXPECT_EQ(only_reply(session.OnMessage(
                  task, line("init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}}))),
              "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  }
  EXPECT_EQ(only_reply(session.OnMessage(0, line("get_maxes"))),
            "cmd=maxes rc=0 kvsname_max=256 keylen_max=256 vallen_max=1024\n");
  EXPECT_EQ(only_reply(session.OnMessage(0, line("get_universe_size"))),
            "cmd=universe_size rc=0 size=4\n");
  EXPECT_EQ(only_reply(session.OnMessage(0, line("get_appnum"))), "cmd=appnum rc=0 appnum=0\n");
  EXPECT_EQ(only_reply(session.OnMessage(0, line("get_my_kvsname"))),
            "cmd=my_kvsname rc=0 kvsname=kvs_41.0\n");
  EXPECT_EQ(only_reply(session.OnMessage(
                0, line("get", {{"kvsname", "kvs_41.0"}, {"key", "PMI_process_mapping"}}))),
            "cmd=get_result rc=0 value=(vector,(0,2,2))\n");
  EXPECT_EQ(only_reply(session.OnMessage(
                0, line("put", {{"kvsname", "kvs_41.0"}, {"key", "card2"}, {"value", "ab"}}))),
            "cmd=put_result rc=0\n");
  EXPECT_EQ(only_reply(session.OnMessage(1, line("get", {{"key", "card9"}}))),
            "cmd=get_result rc=-1 msg=key_card9_not_found\n");

  // The barrier: once both local tasks are in, the node's puts go to srun;
  // srun's merged set answers both with barrier_out.
  Pmi2NodeSession::Effects e = session.OnMessage(0, line("barrier_in"));
  EXPECT_TRUE(e.replies.empty());
  EXPECT_FALSE(e.fence.has_value());
  e = session.OnMessage(1, line("barrier_in"));
  ASSERT_TRUE(e.fence.has_value());
  EXPECT_EQ(e.fence->puts, (Pmi2Pairs{{"card2", "ab"}}));
  e = session.OnFenceDone(0, {{"card2", "ab"}, {"card0", "cd"}});
  ASSERT_EQ(e.replies.size(), 2u);
  EXPECT_EQ(e.replies[0].second, "cmd=barrier_out rc=0\n");
  EXPECT_EQ(only_reply(session.OnMessage(1, line("get", {{"key", "card0"}}))),
            "cmd=get_result rc=0 value=cd\n");

  EXPECT_EQ(only_reply(session.OnMessage(0, line("finalize"))), "cmd=finalize_ack rc=0\n");
  EXPECT_TRUE(session.Finalized(0));
  e = session.OnMessage(1, line("abort", {{"exitcode", "3"}}));
  ASSERT_TRUE(e.abort.has_value());
  EXPECT_EQ(e.abort->rank, 3u);
  EXPECT_EQ(e.abort->message, "PMI_Abort (exit code 3)");
  // A task that never said version 1 still gets PMI-2's refusal of lines.
  Pmi2NodeSession other(SecondNode());
  EXPECT_NE(only_reply(other.OnMessage(0, line("get_maxes"))).find("rc=1"), std::string::npos);
}

TEST(Pmi2ProcessMappingTest, AnyDistributionFromTheNodeOfEachRank) {
  EXPECT_EQ(Pmi2ProcessMappingOfRanks({0, 0, 1, 1}), "(vector,(0,2,2))");  // Block
  EXPECT_EQ(Pmi2ProcessMappingOfRanks({0, 0, 0, 1}), Pmi2ProcessMapping({3, 1}));
  EXPECT_EQ(Pmi2ProcessMappingOfRanks({0, 1, 0, 1}), "(vector,(0,2,1),(0,2,1))");  // Cyclic
  EXPECT_EQ(Pmi2ProcessMappingOfRanks({0, 0, 1, 1, 0, 0, 1, 1}),
            "(vector,(0,2,2),(0,2,2))");  // plane=2
}

}  // namespace
}  // namespace rota::noded
