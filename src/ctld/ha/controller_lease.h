#pragma once

// Which controller is in control, kept in StateSaveLocation (shared by the
// SlurmctldHost machines: NFS or a parallel file system at real sites) so
// that two controllers never both accept work. The one in control holds a
// lease it renews well within its length (SlurmctldTimeout); another takes it
// only once it was released or expired. A controller that wants control
// while the lease is held says so in the lease ("wanted"): the holder sees it
// at its next renewal and hands over (stops, then releases). That is how a
// primary that comes back gets control back, how `scontrol takeover` works,
// and how a primary cut off from the network (but still renewing on the
// shared directory) is made to stop.
//
// Every read-modify-write happens under an exclusive lock on a file beside
// the lease, and the lease is replaced by a rename: a reader never sees half
// of one. A lease that does not parse counts as held, by nobody known, for a
// lease's length from its last change, and is then replaced.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"

namespace rota::ctld {

struct LeaseRecord {
  std::string holder;           // Empty: nobody is in control
  int64_t expires_ms = 0;       // Wall clock (Unix ms)
  std::string wanted_by;        // A controller waiting for control; empty: none
  int64_t wanted_until_ms = 0;  // After which the wish lapses (its asker may be gone)
};

class ControllerLease {
 public:
  // `me`: this controller's SlurmctldHost name; `length`: how long a lease
  // lasts unrenewed; `now_ms`: the wall clock.
  ControllerLease(std::string state_dir, std::string me, std::chrono::milliseconds length,
                  std::function<int64_t()> now_ms);

  // Takes the lease when nobody holds it, it expired, or it is already this
  // controller's, unless another controller's wish for it stands (the lease
  // was handed over to that one); clears this controller's own wish.
  // Answers whether this controller holds it now.
  Result<bool> TryTake();
  // The holder extends its lease. Answers false when it must stop: the lease
  // is no longer its own, or another controller wants control.
  Result<bool> Renew();
  // The holder lets go (after it stopped accepting work).
  Status Release();
  // Asks the holder to hand over to this controller (the wish lasts a
  // lease's length: ask again to keep it).
  Status Want();
  Result<LeaseRecord> Read() const;

  const std::string& me() const { return me_; }

 private:
  // Runs `change` on the record under the lock and writes it back when it
  // answers true.
  Status Update(const std::function<bool(LeaseRecord&)>& change);

  const std::string path_;
  const std::string lock_path_;
  const std::string me_;
  const std::chrono::milliseconds length_;
  const std::function<int64_t()> now_ms_;
};

}  // namespace rota::ctld
