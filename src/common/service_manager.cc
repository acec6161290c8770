#include "common/service_manager.h"

#include <systemd/sd-daemon.h>

#include <string>

namespace rota {

void NotifyReady(std::string_view status) {
  const std::string message = "READY=1\nSTATUS=" + std::string(status);
  sd_notify(0, message.c_str());
}

void NotifyReloading() { sd_notify(0, "RELOADING=1"); }

void NotifyStopping() { sd_notify(0, "STOPPING=1"); }

}  // namespace rota
