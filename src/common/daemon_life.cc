#include "common/daemon_life.h"

#include <malloc.h>

namespace rota {

sigset_t BlockDaemonSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

void KeepFreedMemory() {
  // Up to 32 MiB free at the top of a heap stays with the process. The
  // default (128 KiB, or dynamic) hands memory back after nearly every request
  // (a connection's read buffer alone is 64 KiB), and the next request faults
  // it in again, with a TLB shootdown across the daemon's threads each time.
  mallopt(M_TRIM_THRESHOLD, 32 << 20);
}

}  // namespace rota
