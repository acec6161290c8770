#pragma once

// Within one scheduling pass resources are only taken, never given back, so a
// request that did not fit will not fit again later in the same pass: this
// memo answers "known to fail" for an equal request on the same candidate set
// without walking the nodes again. Clear it whenever anything is freed or a
// node becomes usable (in practice: make one per pass).

#include <cstdint>
#include <string>
#include <unordered_set>

#include "sched/request.h"

namespace rota::sched {

// Everything in `req` that decides where it fits, as a key of bytes (not
// text): equal for equal requests, different for different ones.
std::string Fingerprint(const Request& req);

class FailureMemo {
 public:
  // `candidates` names the candidate set (e.g. the partition).
  bool KnownToFail(const Request& req, const std::string& candidates) const {
    return failed_.count(candidates + '\n' + Fingerprint(req)) > 0;
  }
  void NoteFailure(const Request& req, const std::string& candidates) {
    failed_.insert(candidates + '\n' + Fingerprint(req));
  }
  void Clear() { failed_.clear(); }

 private:
  std::unordered_set<std::string> failed_;
};

}  // namespace rota::sched
