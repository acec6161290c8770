#pragma once

// The main thread of a daemon (rotactld, rotad, rotadbd): stop signals are
// blocked before any thread starts, so that every thread inherits the mask
// and only the main thread takes them, synchronously; the daemon is started,
// the main thread waits for SIGTERM or SIGINT, and then stops it.

#include <signal.h>

#include "common/log.h"

namespace rota {

// Blocks SIGTERM and SIGINT in the calling thread (and so in every thread it
// starts afterwards) and ignores SIGPIPE. Returns the blocked set.
sigset_t BlockStopSignals();

// Tells malloc not to return freed memory to the kernel eagerly: a daemon
// serving many short requests would otherwise pay page faults per request.
void KeepFreedMemory();

// `start()` returns a Result<std::unique_ptr<D>> where D has Stop(). Returns
// the process's exit status: 1 when the daemon could not start, else 0 once a
// stop signal came and the daemon stopped.
template <typename StartFn>
int RunUntilStopSignal(StartFn start) {
  sigset_t stop_signals = BlockStopSignals();
  KeepFreedMemory();
  auto daemon = start();
  if (!daemon.ok()) {
    spdlog::critical("cannot start: {}", daemon.status().message());
    return 1;
  }
  int received = 0;
  sigwait(&stop_signals, &received);
  spdlog::info("signal {}: stopping", received);
  (*daemon)->Stop();
  return 0;
}

}  // namespace rota
