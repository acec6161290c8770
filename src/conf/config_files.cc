#include "conf/config_files.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "common/strings.h"
#include "conf/config_reader.h"

namespace rota::conf {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxIncludeDepth = 16;  // As the reader's (config_reader.cc)

Result<std::string> ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, fmt::format("cannot read {}", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Where a path under the configuration directory `base` lands in the set.
std::string NameInSet(const fs::path& base, const fs::path& absolute) {
  fs::path relative = absolute.lexically_normal().lexically_relative(base);
  if (!relative.empty() && *relative.begin() != "..") return relative.string();
  return "included" + absolute.lexically_normal().string();
}

class Collector {
 public:
  explicit Collector(fs::path base) : base_(std::move(base)) {}

  // Adds `path` as `name`, its Include lines rewritten to names in the set.
  Status Add(const fs::path& path, const std::string& name, int depth) {
    if (!seen_.insert(name).second) return Status::Ok();
    if (depth > kMaxIncludeDepth) {
      return InvalidArgument(fmt::format("{}: Include nested too deep (a loop?)", path.string()));
    }
    auto text = ReadWhole(path);
    if (!text.ok()) return text.status();
    const size_t index = files_.size();
    files_.push_back({name, ""});
    std::string out;
    for (std::string_view line : Split(*text, '\n')) {
      const std::optional<std::string> include = IncludePatternOf(StripComment(line));
      if (include && !include->empty()) {
        const std::string& pattern = *include;
        fs::path absolute =
            fs::path(pattern).is_relative() ? path.parent_path() / pattern : fs::path(pattern);
        std::vector<std::string> matches = GlobPaths(absolute.string());
        if (matches.empty()) {
          return Status(StatusCode::kNotFound,
                        fmt::format("{}: Include {} matches no file", path.string(), pattern));
        }
        for (const std::string& m : matches)
          ROTA_RETURN_IF_ERROR(Add(m, NameInSet(base_, m), depth + 1));
        // Relative to the cached file's own directory, as the reader resolves it.
        fs::path target = NameInSet(base_, absolute);
        fs::path from = fs::path(name).parent_path();
        out += "Include " + target.lexically_relative(from.empty() ? "." : from).string();
      } else {
        out += line;
      }
      out += '\n';
    }
    if (!text->empty() && text->back() == '\n') out.pop_back();  // Split gave a last empty part
    files_[index].content = std::move(out);
    return Status::Ok();
  }

  std::vector<ConfigFileCopy> Take() { return std::move(files_); }

 private:
  const fs::path base_;
  std::set<std::string> seen_;
  std::vector<ConfigFileCopy> files_;
};

Status WriteThroughRename(const fs::path& path, const std::string& content) {
  // Several node daemons of one host may share the cache (tests, emulation).
  static std::atomic<unsigned> written{0};
  const fs::path temporary = fmt::format("{}.new.{}.{}", path.string(), getpid(), written++);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out)
      return Status(StatusCode::kInternal, fmt::format("cannot write {}", temporary.string()));
  }
  fs::permissions(temporary, fs::perms(0644));
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    return Status(StatusCode::kInternal,
                  fmt::format("cannot rename {}: {}", temporary.string(), error.message()));
  }
  return Status::Ok();
}

}  // namespace

const std::vector<std::string>& CompanionConfigFiles() {
  static const std::vector<std::string> kFiles = {
      "gres.conf",        "cgroup.conf",
      "topology.conf",    "oci.conf",
      "acct_gather.conf", "mpi.conf",
      "plugstack.conf",   "job_container.conf",
      "helpers.conf",     "cgroup_allowed_devices_file.conf",
  };
  return kFiles;
}

Result<std::vector<ConfigFileCopy>> CollectConfigFiles(const std::string& slurm_conf_path) {
  const fs::path conf = fs::absolute(slurm_conf_path).lexically_normal();
  Collector collector(conf.parent_path());
  ROTA_RETURN_IF_ERROR(collector.Add(conf, "slurm.conf", 0));
  for (const std::string& companion : CompanionConfigFiles()) {
    const fs::path path = conf.parent_path() / companion;
    std::error_code error;
    if (!fs::is_regular_file(path, error)) continue;
    ROTA_RETURN_IF_ERROR(collector.Add(path, companion, 0));
  }
  return collector.Take();
}

bool IsSafeConfigFileName(const std::string& name) {
  if (name.empty() || name.front() == '/') return false;
  for (std::string_view part : Split(name, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

Status WriteConfigCache(const std::string& dir, const std::vector<ConfigFileCopy>& files) {
  bool has_slurm_conf = false;
  std::set<std::string> names;
  for (const ConfigFileCopy& f : files) {
    if (!IsSafeConfigFileName(f.name) || f.name == "slurm.key") {
      return InvalidArgument(fmt::format("refused configuration file name \"{}\"", f.name));
    }
    has_slurm_conf |= f.name == "slurm.conf";
    names.insert(f.name);
  }
  if (!has_slurm_conf) return InvalidArgument("the configuration files lack slurm.conf");
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return Status(StatusCode::kInternal, fmt::format("cannot make {}: {}", dir, error.message()));
  }
  fs::permissions(dir, fs::perms(0755), error);
  // Included files first, slurm.conf last: a reader that sees the new
  // slurm.conf finds what it includes.
  for (const ConfigFileCopy& f : files) {
    if (f.name == "slurm.conf") continue;
    const fs::path path = fs::path(dir) / f.name;
    fs::create_directories(path.parent_path(), error);
    ROTA_RETURN_IF_ERROR(WriteThroughRename(path, f.content));
  }
  for (const ConfigFileCopy& f : files) {
    if (f.name == "slurm.conf")
      ROTA_RETURN_IF_ERROR(WriteThroughRename(fs::path(dir) / f.name, f.content));
  }
  // What an earlier set had and this one has not (a topology.conf since
  // removed would otherwise still be read).
  std::vector<fs::path> stale;
  for (auto it = fs::recursive_directory_iterator(dir, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_directory() || it->path().filename() == "slurm.key") continue;
    const std::string name = it->path().lexically_relative(dir).string();
    if (names.count(name) == 0) stale.push_back(it->path());
  }
  for (const fs::path& p : stale) fs::remove(p, error);
  return Status::Ok();
}

Status LinkHostKey(const std::string& dir, const std::string& key_path) {
  std::error_code error;
  if (key_path.empty() || !fs::exists(key_path, error)) return Status::Ok();
  const fs::path link = fs::path(dir) / "slurm.key";
  if (fs::is_symlink(link, error) && fs::read_symlink(link, error) == key_path) return Status::Ok();
  fs::remove(link, error);
  fs::create_symlink(key_path, link, error);
  if (error) {
    return Status(StatusCode::kInternal, fmt::format("cannot link {} to {}: {}", link.string(),
                                                     key_path, error.message()));
  }
  return Status::Ok();
}

}  // namespace rota::conf
