#pragma once

// The main thread of a daemon (rotactld, rotad, rotadbd, rotarestd,
// rota-authd): the signals it acts on are blocked before any thread starts,
// so that every thread inherits the mask and only the main thread takes them,
// synchronously; the daemon is started, tells the service manager it is
// ready (service_manager.h), and the main thread waits: SIGTERM or SIGINT
// stop it, SIGHUP reloads it (systemctl reload) where it can.

#include <signal.h>

#include <string>
#include <type_traits>

#include "common/log.h"
#include "common/service_manager.h"
#include "common/status.h"

namespace rota {

// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread (and so in every
// thread it starts afterwards) and ignores SIGPIPE. Returns the blocked set.
sigset_t BlockDaemonSignals();

// Tells malloc not to return freed memory to the kernel eagerly: a daemon
// serving many short requests would otherwise pay page faults per request.
void KeepFreedMemory();

// A daemon that can read its configuration again has Status Reload().
template <typename D>
concept Reloadable = requires(D& daemon) {
  { daemon.Reload() } -> std::same_as<Status>;
};

// `start()` returns a Result<std::unique_ptr<D>> where D has Stop(), and
// may have Reload(). Returns the process's exit status: 1 when the daemon
// could not start, else 0 once a stop signal came and the daemon stopped.
template <typename StartFn>
int RunUntilStopSignal(StartFn start) {
  sigset_t signals = BlockDaemonSignals();
  KeepFreedMemory();
  auto daemon = start();
  if (!daemon.ok()) {
    spdlog::critical("cannot start: {}", daemon.status().message());
    return 1;
  }
  NotifyReady("serving");
  int received = 0;
  for (;;) {
    sigwait(&signals, &received);
    if (received != SIGHUP) break;
    using Daemon = std::remove_reference_t<decltype(**daemon)>;
    if constexpr (Reloadable<Daemon>) {
      NotifyReloading();
      Status reloaded = (*daemon)->Reload();
      if (reloaded.ok()) {
        spdlog::info("SIGHUP: configuration read again");
      } else {
        spdlog::error("SIGHUP: {}; the running configuration stays", reloaded.message());
      }
      NotifyReady(reloaded.ok() ? "serving" : "serving; the last reload failed");
    } else {
      // Not a reason to stop: the default action of SIGHUP would end it.
      spdlog::warn("SIGHUP: this daemon cannot read its configuration again; restart it");
    }
  }
  spdlog::info("signal {}: stopping", received);
  NotifyStopping();
  (*daemon)->Stop();
  return 0;
}

}  // namespace rota
