#include "noded/configless.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <thread>

#include "conf/config_files.h"

namespace rota::noded {

Result<std::vector<api::ConfServer>> ConfigServers(const std::string& flag,
                                                   const std::string& local_conf, bool file_named) {
  if (!flag.empty()) {
    auto servers = api::ParseConfServers(flag);
    if (!servers.ok()) return InvalidArgument("--conf-server: " + servers.status().message());
    return servers;
  }
  std::error_code error;
  if (file_named || std::filesystem::exists(local_conf, error)) {
    return std::vector<api::ConfServer>();
  }
  return api::ConfServersFromEnvironmentOrDns();
}

Status StoreFetchedConfig(const std::string& cache_dir, const std::string& conf_dir,
                          const wire::ConfigFilesResponse& files) {
  ROTA_RETURN_IF_ERROR(conf::WriteConfigCache(cache_dir, api::ConfigFilesFromWire(files)));
  return conf::LinkHostKey(cache_dir, (std::filesystem::path(conf_dir) / "slurm.key").string());
}

Result<ConfiglessStart> StartConfigless(const ConfiglessSource& source,
                                        std::chrono::milliseconds retry,
                                        std::chrono::milliseconds give_up) {
  const std::string cached = (std::filesystem::path(source.cache_dir) / "slurm.conf").string();
  auto issuer = auth::MakeIssuer(api::BootstrapAuthSettings(source.conf_dir));
  const auto deadline = std::chrono::steady_clock::now() + give_up;
  bool complained = false;
  for (;;) {
    Status why = issuer.ok() ? Status::Ok() : issuer.status();
    if (issuer.ok()) {
      auto files = api::FetchConfigFiles(source.servers, **issuer, std::chrono::seconds(10));
      if (files.ok()) {
        ROTA_RETURN_IF_ERROR(StoreFetchedConfig(source.cache_dir, source.conf_dir, *files));
        spdlog::info("configless: fetched {} configuration files into {}", files->files_size(),
                     source.cache_dir);
        return ConfiglessStart{cached, files->digest()};
      }
      why = files.status();
    }
    std::error_code error;
    if (std::filesystem::exists(cached, error)) {
      spdlog::warn("configless: cannot fetch the configuration ({}); starting from the copy in {}",
                   why.message(), source.cache_dir);
      return ConfiglessStart{cached, ""};
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status(StatusCode::kUnavailable,
                    "cannot fetch the configuration and none is cached: " + why.message());
    }
    if (!complained) {
      spdlog::error(
          "configless: cannot fetch the configuration and none is cached in {}: {}; "
          "trying again every {} s",
          source.cache_dir, why.message(), retry.count() / 1000);
      complained = true;
    }
    std::this_thread::sleep_for(retry);
  }
}

}  // namespace rota::noded
