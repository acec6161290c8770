#include "cli/client/config_source.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "api/config_fetch.h"
#include "conf/config_files.h"
#include "conf/config_loader.h"

namespace rota::cli {
namespace fs = std::filesystem;
namespace {

constexpr const char* kConfiglessCache = "/run/slurm/conf/slurm.conf";

// The fetched files' directory, removed at exit by the process that made it
// (a child forked after, which may exit() too, leaves it alone).
class FetchedConfigDir {
 public:
  ~FetchedConfigDir() {
    if (path_.empty() || getpid() != owner_) return;
    std::error_code error;
    fs::remove_all(path_, error);
  }
  // Makes the directory; empty on failure.
  const std::string& Make() {
    std::string pattern = (fs::temp_directory_path() / "rota-conf-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) {
      path_ = pattern;
      owner_ = getpid();
    }
    return path_;
  }

 private:
  std::string path_;
  pid_t owner_ = 0;
};

// The fetched slurm.conf, or "" when no controller was named or none answered.
std::string FetchFromController() {
  Result<std::vector<api::ConfServer>> found = api::ConfServersFromEnvironmentOrDns();
  if (!found.ok()) {
    std::cerr << "error: " << found.status().message() << "\n";
    return "";
  }
  const std::vector<api::ConfServer>& servers = *found;
  if (servers.empty()) return "";
  const std::string conf_dir = fs::path(conf::DefaultSlurmConfPath()).parent_path().string();
  auto issuer = auth::MakeIssuer(api::BootstrapAuthSettings(conf_dir));
  if (!issuer.ok()) {
    std::cerr << "error: cannot fetch the configuration: " << issuer.status().message() << "\n";
    return "";
  }
  auto files = api::FetchConfigFiles(servers, **issuer, std::chrono::seconds(10));
  if (!files.ok()) {
    std::cerr << "error: cannot fetch the configuration from " << files.status().message() << "\n";
    return "";
  }
  static FetchedConfigDir dir;
  const std::string& path = dir.Make();
  Status stored = path.empty() ? Status(StatusCode::kInternal, "cannot make a temporary directory")
                               : conf::WriteConfigCache(path, api::ConfigFilesFromWire(*files));
  if (stored.ok()) stored = conf::LinkHostKey(path, (fs::path(conf_dir) / "slurm.key").string());
  if (!stored.ok()) {
    std::cerr << "error: cannot keep the fetched configuration: " << stored.message() << "\n";
    return "";
  }
  return (fs::path(path) / "slurm.conf").string();
}

std::string FindSlurmConf() {
  const std::string usual = conf::DefaultSlurmConfPath();  // $SLURM_CONF or /etc/slurm/slurm.conf
  std::error_code error;
  if (std::getenv("SLURM_CONF") != nullptr || fs::exists(usual, error)) return usual;
  if (fs::exists(kConfiglessCache, error)) return kConfiglessCache;
  std::string fetched = FetchFromController();
  return fetched.empty() ? usual : fetched;
}

}  // namespace

const std::string& CommandSlurmConfPath() {
  static const std::string path = FindSlurmConf();
  return path;
}

}  // namespace rota::cli
