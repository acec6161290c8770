#pragma once

// protobuf writes its own log lines to stderr, one per malformed string field
// it decodes: any peer could flood a daemon's log through them, and they do not
// say who sent the message. RouteProtobufLogs sends them through the process
// logger instead, naming the peer whose request was being handled
// (rpc::PeerBeingHandled), at most one line per 10 s with a count of those
// held back.

namespace rota::api {

// Installs the route. Process-wide; call once at daemon start.
void RouteProtobufLogs();

}  // namespace rota::api
