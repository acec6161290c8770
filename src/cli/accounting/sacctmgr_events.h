#pragma once
// sacctmgr list events: the node events rotadbd keeps (a node DOWN or
// drained, from when to when, why and by whom). Pure: parsing and rendering;
// the RPC is in sacctmgr_main.cc.
//
//   sacctmgr [-n] [-P|-p] list|show events [where] [Nodes=LIST] [States=LIST]
//            [Start=TIME] [End=TIME] [Reason=TEXT] [User=LIST] [format=F,F%N]
//
// As Slurm: the window defaults to 00:00:00 of yesterday until now; with
// States= and no Start=, only the events still open in those states.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/accounting/sacct_fields.h"
#include "common/status.h"
#include "node_events.pb.h"

namespace rota::cli {

struct EventsCommand {
  wire::QueryNodeEventsRequest query;
  std::vector<std::string> reasons;  // Substrings, filtered here
  std::vector<std::string> users;    // Filtered here
  std::string format;
};

// True for "event", "events".
bool IsEventsEntity(const std::string& word);

// `words`: what follows "list events". Times are as sacct takes them,
// local time; `now` anchors "now-1day" and the defaults.
Result<EventsCommand> ParseEventsCommand(const std::vector<std::string>& words, int64_t now);

// The listing, Slurm's columns (Cluster, NodeName, TimeStart, TimeEnd, State,
// Reason, User) unless `format`. `user_name`: a uid's login.
Result<std::string> RenderEvents(const std::vector<wire::NodeEvent>& events,
                                 const EventsCommand& command, SacctLayout layout, bool no_header,
                                 const std::function<std::string(uint32_t)>& user_name);

}  // namespace rota::cli
