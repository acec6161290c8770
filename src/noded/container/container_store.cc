#include "noded/container/container_store.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "noded/container/container_bundle.h"
#include "noded/container/user_process.h"

namespace rota::noded {
namespace {

namespace fs = std::filesystem;
using C = wire::ContainerSpec;

bool Resolve(C::Toggle toggle, bool fallback) {
  return toggle == C::UNSET ? fallback : toggle == C::ON;
}

Status MakeDir(const std::string& path, mode_t mode, uid_t uid, gid_t gid) {
  if (mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    return IoError("cannot create " + path + ": " + std::strerror(errno));
  }
  if (chmod(path.c_str(), mode) != 0 || chown(path.c_str(), uid, gid) != 0) {
    return IoError("cannot set the owner of " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

std::string JobDir(const std::string& state_dir, uint32_t job_id) {
  return state_dir + "/job_" + std::to_string(job_id);
}

// Unmounts the container's root (if mounted) and removes everything of it.
void Dismantle(const std::string& dir) {
  const std::string rootfs = dir + "/rootfs";
  if (umount2(rootfs.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
    spdlog::warn("cannot unmount {}: {}", rootfs, std::strerror(errno));
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) spdlog::warn("cannot remove {}: {}", dir, ec.message());
}

std::string NameOf(const std::string& entry) {
  const size_t eq = entry.find('=');
  return entry.substr(0, eq);
}

}  // namespace

std::vector<std::string> ContainerEnvironment(const std::vector<std::string>& image_env,
                                              const std::vector<std::string>& job_env,
                                              const std::vector<std::string>& host_wins) {
  std::vector<std::string> env = image_env;
  auto set = [&](const std::string& entry) {
    const std::string name = NameOf(entry);
    for (std::string& e : env) {
      if (NameOf(e) == name) {
        e = entry;
        return;
      }
    }
    env.push_back(entry);
  };
  auto wins = [&](const std::string& name) {
    return std::find(host_wins.begin(), host_wins.end(), name) != host_wins.end();
  };
  bool has_path = false;
  for (const std::string& e : image_env) has_path = has_path || NameOf(e) == "PATH";
  if (!has_path) env.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  for (const std::string& entry : job_env) {
    const std::string name = NameOf(entry);
    if ((name == "PATH" || name == "LD_LIBRARY_PATH") && !wins(name)) continue;
    set(entry);
  }
  return env;
}

ContainerStore::ContainerStore(std::string state_dir, ContainerRuntime runtime, ImageSource* images,
                               ContainerDefaults defaults)
    : state_dir_(std::move(state_dir)),
      runtime_(std::move(runtime)),
      images_(images),
      defaults_(defaults) {}

ContainerStore::~ContainerStore() = default;

Result<std::shared_ptr<OpenContainer>> ContainerStore::Open(const C& spec,
                                                            const ContainerUser& user,
                                                            uint32_t job_id, uint32_t step_id) {
  if (spec.name().empty()) {
    if (spec.image().empty()) return InvalidArgument("a container needs --container-image");
    return Make(spec, user, job_id, JobDir(state_dir_, job_id) + "/step_" + std::to_string(step_id),
                "");
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = named_.find({job_id, spec.name()});
  if (it != named_.end()) {
    if (spec.name_flag() == C::CREATE) {
      return FailedPrecondition("container '" + spec.name() +
                                "' exists already (--container-name=" + spec.name() + ":create)");
    }
    ++it->second->steps;
    return it->second;
  }
  if (spec.name_flag() == C::EXEC || spec.name_flag() == C::NO_EXEC) {
    return NotFound("container '" + spec.name() + "' does not exist in job " +
                    std::to_string(job_id) + " on this node");
  }
  if (spec.image().empty()) {
    return InvalidArgument("container '" + spec.name() +
                           "' does not exist yet: it needs --container-image");
  }
  // Made under the lock: a second step asking for the same name waits for
  // it rather than making another.
  Result<std::shared_ptr<OpenContainer>> made =
      Make(spec, user, job_id, JobDir(state_dir_, job_id) + "/name_" + spec.name(), spec.name());
  if (made.ok()) named_[{job_id, spec.name()}] = *made;
  return made;
}

Result<std::shared_ptr<OpenContainer>> ContainerStore::Make(const C& spec,
                                                            const ContainerUser& user,
                                                            uint32_t job_id, const std::string& dir,
                                                            const std::string& name) {
  Result<ContainerImage> image = images_->Acquire(spec.image(), user.uid, user.gid, user.groups);
  if (!image.ok()) return image.status();
  auto container = std::make_shared<OpenContainer>();
  container->job_id = job_id;
  container->name = name;
  container->dir = dir;
  container->rootfs = dir + "/rootfs";
  container->image = *image;
  container->uid = user.uid;
  container->gid = user.gid;
  container->groups = user.groups;
  container->steps = 1;
  auto undo = [&](Status why) {
    Dismantle(dir);
    images_->Release(user.uid, image->key);
    return why;
  };
  // The user passes through the store's and the job's directories to its
  // own; what it writes is in upper/ (its), the overlay's bookkeeping in
  // work/ (root's).
  for (const auto& [path, mode] :
       {std::pair{state_dir_, 0711}, std::pair{JobDir(state_dir_, job_id), 0711}}) {
    if (Status made = MakeDir(path, static_cast<mode_t>(mode), 0, 0); !made.ok()) return undo(made);
  }
  const std::pair<std::string, mode_t> owned[] = {{dir, 0755},
                                                  {dir + "/upper", 0755},
                                                  {dir + "/rootfs", 0755},
                                                  {dir + "/tasks", 0755},
                                                  {dir + "/state", 0700}};
  for (const auto& [path, mode] : owned) {
    if (Status made = MakeDir(path, mode, user.uid, user.gid); !made.ok()) return undo(made);
  }
  if (Status made = MakeDir(dir + "/work", 0700, 0, 0); !made.ok()) return undo(made);
  const std::string options =
      "lowerdir=" + image->rootfs + ",upperdir=" + dir + "/upper,workdir=" + dir + "/work";
  if (mount("overlay", container->rootfs.c_str(), "overlay", MS_NOSUID | MS_NODEV,
            options.c_str()) != 0) {
    return undo(IoError("cannot mount the container's root file system (overlay on " +
                        container->rootfs + "): " + std::strerror(errno)));
  }
  spdlog::info("job {}: container {} of image '{}' at {}", job_id, name.empty() ? "(step's)" : name,
               spec.image(), dir);
  return container;
}

void ContainerStore::Close(const std::shared_ptr<OpenContainer>& container) {
  if (!container) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    --container->steps;
    if (!container->name.empty()) return;  // Kept for the job's next step
  }
  Remove(*container);
}

Status ContainerStore::Save(const OpenContainer& container, const std::string& path) const {
  const container::UserIdentity user{container.uid, container.gid, container.groups};
  CapturedRun run = container::RunCapturedAs(
      {"/usr/bin/mksquashfs", container.rootfs, path, "-noappend", "-no-xattrs", "-quiet"},
      {"PATH=/usr/bin:/bin"}, user, std::chrono::minutes(30));
  if (!run.start_error.empty() || run.timed_out || !WIFEXITED(run.wait_status) ||
      WEXITSTATUS(run.wait_status) != 0) {
    return IoError("--container-save=" + path + ": mksquashfs failed: " +
                   (run.start_error.empty() ? run.output : run.start_error));
  }
  spdlog::info("job {}: container saved to {}", container.job_id, path);
  return Status::Ok();
}

void ContainerStore::Remove(const OpenContainer& container) {
  Dismantle(container.dir);
  images_->Release(container.uid, container.image.key);
}

void ContainerStore::ForgetJob(uint32_t job_id) {
  std::vector<std::shared_ptr<OpenContainer>> gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = named_.begin(); it != named_.end();) {
      if (it->first.first == job_id) {
        gone.push_back(it->second);
        it = named_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& container : gone) Remove(*container);
  std::error_code ec;
  if (fs::exists(JobDir(state_dir_, job_id), ec)) {
    // Steps' own containers are gone with their steps; anything left (a
    // step cut short) goes with the job.
    for (const auto& entry : fs::directory_iterator(JobDir(state_dir_, job_id), ec)) {
      Dismantle(entry.path().string());
    }
    fs::remove_all(JobDir(state_dir_, job_id), ec);
  }
}

int ContainerStore::SweepStale(const std::set<uint32_t>& live) {
  int swept = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(state_dir_, ec)) {
    const std::string base = entry.path().filename().string();
    if (!base.starts_with("job_")) continue;
    const uint32_t job_id = static_cast<uint32_t>(std::strtoul(base.c_str() + 4, nullptr, 10));
    if (live.contains(job_id)) continue;
    for (const auto& container : fs::directory_iterator(entry.path(), ec)) {
      Dismantle(container.path().string());
      ++swept;
    }
    fs::remove_all(entry.path(), ec);
  }
  return swept;
}

Result<ContainerCommand> ContainerTaskCommand(const ContainerRuntime& runtime,
                                              const ContainerDefaults& defaults,
                                              const OpenContainer& container, const C& spec,
                                              const ContainerUser& user,
                                              const ContainerTask& task) {
  BundleSpec bundle;
  bundle.rootfs = container.rootfs;
  bundle.readonly = !Resolve(spec.writable(), defaults.writable);
  bundle.uid = user.uid;
  bundle.gid = user.gid;
  bundle.remap_root = Resolve(spec.remap_root(), defaults.remap_root);
  if (Resolve(spec.entrypoint(), defaults.entrypoint)) {
    bundle.args = container.image.entrypoint;
  }
  bundle.args.insert(bundle.args.end(), task.argv.begin(), task.argv.end());
  bundle.env =
      ContainerEnvironment(container.image.env, task.env, {spec.env().begin(), spec.env().end()});
  bundle.cwd = !spec.workdir().empty()                ? spec.workdir()
               : !container.image.working_dir.empty() ? container.image.working_dir
                                                      : "/";
  for (const wire::ContainerMount& mount : spec.mounts()) {
    std::error_code ec;
    if (!fs::exists(mount.source(), ec)) {
      return NotFound("--container-mounts: " + mount.source() + " does not exist on this node");
    }
    BundleMount m{mount.source(), mount.target(), {"rbind"}};
    for (const std::string& flag : mount.flags()) {
      if (flag != "rw" && flag != "bind" && flag != "rbind") m.options.push_back(flag);
    }
    bundle.mounts.push_back(std::move(m));
  }
  if (Resolve(spec.mount_home(), defaults.mount_home) && !user.home.empty()) {
    bundle.mounts.push_back({user.home, user.home, {"rbind"}});
  }
  for (const std::string& file : task.device_files) {
    bundle.mounts.push_back({file, file, {"bind", "nosuid"}});
  }
  for (const std::string& file : task.host_files) {
    bundle.mounts.push_back({file, file, {"bind", "ro"}});
  }
  std::string capabilities;
  for (const std::string& var : bundle.env) {
    if (var.starts_with("NVIDIA_DRIVER_CAPABILITIES="))
      capabilities = var.substr(var.find('=') + 1);
  }
  if (std::optional<BundleHook> driver =
          GpuDriverHook(runtime, task.driver_gpus, capabilities, user.uid != 0, container.rootfs)) {
    bundle.prestart.push_back(std::move(*driver));
  }
  const std::string id = std::to_string(container.job_id) + "." + std::to_string(task.step_id) +
                         "." + std::to_string(task.task_id);
  const std::string bundle_dir = container.dir + "/tasks/" + id;
  ROTA_RETURN_IF_ERROR(MakeDir(bundle_dir, 0755, user.uid, user.gid));
  {
    std::ofstream out(bundle_dir + "/config.json", std::ios::trunc);
    out << OciRuntimeConfig(bundle).dump(1);
    if (!out) return IoError("cannot write " + bundle_dir + "/config.json");
  }
  std::vector<std::string> command = {runtime.program, "--root", container.dir + "/state",
                                      "--cgroup-manager=disabled", "run"};
  // The PMI descriptor, kept under its number, passes through crun.
  if (task.keep_fd >= 3) command.push_back("--preserve-fds=" + std::to_string(task.keep_fd - 2));
  command.insert(command.end(), {"--bundle", bundle_dir, "rota-" + id});
  return ContainerCommand{std::move(command), bundle_dir + "/config.json"};
}

OpenContainer ContainerFromPlace(const wire::ContainerPlace& place) {
  OpenContainer container;
  container.job_id = place.job_id();
  container.dir = place.dir();
  container.rootfs = place.rootfs();
  container.image.env.assign(place.image_env().begin(), place.image_env().end());
  container.image.entrypoint.assign(place.image_entrypoint().begin(),
                                    place.image_entrypoint().end());
  container.image.working_dir = place.image_working_dir();
  return container;
}

wire::ContainerSpec BatchContainerSpec(const wire::ContainerSpec& spec,
                                       const std::string& work_dir) {
  wire::ContainerSpec resolved = spec;
  if (work_dir.empty()) return resolved;
  if (spec.image().starts_with('.'))
    resolved.set_image((fs::path(work_dir) / spec.image()).string());
  if (!spec.save().empty() && !spec.save().starts_with('/')) {
    resolved.set_save((fs::path(work_dir) / spec.save()).string());
  }
  return resolved;
}

ContainerRuntime RuntimeFromPlace(const wire::ContainerPlace& place) {
  return {place.runtime(), place.driver_cli(), place.driver_hook()};
}

wire::ContainerPlace PlaceOf(const OpenContainer& container, const ContainerRuntime& runtime) {
  wire::ContainerPlace place;
  place.set_job_id(container.job_id);
  place.set_dir(container.dir);
  place.set_rootfs(container.rootfs);
  for (const std::string& e : container.image.env) place.add_image_env(e);
  for (const std::string& e : container.image.entrypoint) place.add_image_entrypoint(e);
  place.set_image_working_dir(container.image.working_dir);
  place.set_runtime(runtime.program);
  place.set_driver_cli(runtime.driver_cli);
  place.set_driver_hook(runtime.driver_hook);
  return place;
}

std::string NodeContainersDir(const std::string& spool_dir) { return spool_dir + "/containers"; }

}  // namespace rota::noded
