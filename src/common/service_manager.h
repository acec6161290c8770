#pragma once

// Telling systemd how a daemon is doing (Type=notify units, packaging/systemd):
// ready once it serves, reloading, stopping. Without a service manager
// (NOTIFY_SOCKET unset: a daemon started by hand or by a test) each call
// does nothing.

#include <string_view>

namespace rota {

// READY=1 with a status line.
void NotifyReady(std::string_view status);
// RELOADING=1; NotifyReady again when done.
void NotifyReloading();
// STOPPING=1.
void NotifyStopping();

}  // namespace rota
