#include "api/auth_settings.h"

#include <filesystem>

#include "common/strings.h"

namespace rota::api {

auth::AuthSettings AuthSettingsFor(const conf::ClusterConfig& config) {
  auth::AuthSettings s;
  s.auth_type = config.settings.auth_type;
  s.key_path = (std::filesystem::path(config.slurm_conf_path).parent_path() / "slurm.key").string();
  auto info = config.settings.raw.find("AuthInfo");
  if (info != config.settings.raw.end()) {
    for (std::string_view item : Split(info->second, ',')) {
      if (!StartsWithIgnoreCase(item, "socket=")) continue;
      // The socket of whatever issues credentials to users: munged's, or
      // under auth/slurm the credential socket of rotad and rota-authd.
      if (s.auth_type == "auth/slurm") {
        s.credential_socket = std::string(item.substr(7));
      } else {
        s.munge_socket = std::string(item.substr(7));
      }
    }
  }
  // AuthAltTypes=auth/jwt: tokens (scontrol token, rotarestd) are accepted
  // besides AuthType's credentials.
  auto alt = config.settings.raw.find("AuthAltTypes");
  if (alt != config.settings.raw.end()) {
    for (std::string_view type : Split(alt->second, ',')) {
      if (!EqualsIgnoreCase(Trim(type), "auth/jwt")) continue;
      s.jwt_key_path = config.settings.state_save_location + "/jwt_hs256.key";
      auto params = config.settings.raw.find("AuthAltParameters");
      if (params == config.settings.raw.end()) break;
      for (std::string_view item : Split(params->second, ',')) {
        if (StartsWithIgnoreCase(item, "jwt_key=")) s.jwt_key_path = std::string(item.substr(8));
      }
    }
  }
  s.slurm_user = config.settings.slurm_user;
  return s;
}

}  // namespace rota::api
