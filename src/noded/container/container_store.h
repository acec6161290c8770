#pragma once

// The containers of the jobs on this node (docs/containers.md): for a step
// with pyxis' options, the image from the cache, a root file system of the
// container's own (an overlay over the image: what the tasks write stays in
// the container, never in the cache), and the crun command each task runs.
// A named container (--container-name) is kept for the job's later steps
// on this node and removed with the job; an unnamed one goes with its step.
// Thread-safe: rotad's steps open and close containers concurrently.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "container.pb.h"
#include "noded/container/container_bundle.h"
#include "noded/container/container_runtime.h"

namespace rota::noded {

// Where a node's containers live: `spool_dir`/containers. Here, not with the
// image cache (node_containers.h): rota-stepd needs it and must not link the
// image code (src/noded/README.md).
std::string NodeContainersDir(const std::string& spool_dir);

// The step id a batch script's container is kept under (no srun step has it).
inline constexpr uint32_t kBatchScriptContainerStep = 0xfffffffb;

// An image ready to be a container's lower layer.
struct ContainerImage {
  std::string rootfs;            // Owned by the user, never written through a container
  std::vector<std::string> env;  // The image's own (NAME=value)
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd;
  std::string working_dir;
  std::string key;  // What Release is given back
};

// Where images come from (image_cache.h on a node; a fake in tests).
class ImageSource {
 public:
  virtual ~ImageSource() = default;
  // Errors name the image.
  virtual Result<ContainerImage> Acquire(const std::string& ref, uid_t uid, gid_t gid,
                                         const std::vector<gid_t>& groups) = 0;
  virtual void Release(uid_t uid, const std::string& key) = 0;
};

// Who the container runs for.
struct ContainerUser {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  std::string home;  // For --container-mount-home
};

// What a switch means when the user gave neither form.
struct ContainerDefaults {
  bool writable = true;
  bool mount_home = false;
  bool remap_root = false;
  bool entrypoint = false;
};

// One container, open for one or more steps.
struct OpenContainer {
  uint32_t job_id = 0;
  std::string name;    // Empty: the step's own
  std::string dir;     // Everything of it on the host
  std::string rootfs;  // Its root file system (the overlay's mount point)
  ContainerImage image;
  uid_t uid = 0;  // Its user, who owns what it writes
  gid_t gid = 0;
  std::vector<gid_t> groups;
  int steps = 0;  // Steps using it now; guarded by the store's mutex
};

// One task's start in a container.
struct ContainerTask {
  std::vector<std::string> argv;          // The command and its arguments
  std::vector<std::string> env;           // The task's environment on the host (NAME=value)
  std::vector<std::string> device_files;  // The task's GPUs' files (and the driver's control files)
  std::vector<std::string>
      driver_gpus{};  // Its GPUs as the driver names them (container_runtime.h)
  uint32_t step_id = 0;
  uint32_t task_id = 0;
  int keep_fd = -1;  // A descriptor the task keeps under its number (PMI_FD)
  // Host files the task needs at the same path inside, read only (a batch script).
  std::vector<std::string> host_files{};
};

// Writes `task`'s bundle (config.json) in `container` and returns the host
// command that runs it: `runtime`, to be started as the user in a mount
// namespace of its own (TaskProcessSpec::runtime_mounts). `defaults`: what
// the switches the user did not give mean. Errors: a mount source that does
// not exist, the bundle not written.
Result<ContainerCommand> ContainerTaskCommand(const ContainerRuntime& runtime,
                                              const ContainerDefaults& defaults,
                                              const OpenContainer& container,
                                              const wire::ContainerSpec& spec,
                                              const ContainerUser& user, const ContainerTask& task);

// A batch script's container as sbatch asked for it, with a relative image
// ("./img.sqsh") and --container-save file taken from the job's working
// directory `work_dir`, where pyxis would find them.
wire::ContainerSpec BatchContainerSpec(const wire::ContainerSpec& spec,
                                       const std::string& work_dir);

// A container as its record says (for the step daemon of a batch script), and back.
OpenContainer ContainerFromPlace(const wire::ContainerPlace& place);
ContainerRuntime RuntimeFromPlace(const wire::ContainerPlace& place);
wire::ContainerPlace PlaceOf(const OpenContainer& container, const ContainerRuntime& runtime);

class ContainerStore {
 public:
  // `state_dir`: where containers live (made 0711 if missing); `runtime`:
  // what runs them. `images` outlives the store.
  ContainerStore(std::string state_dir, ContainerRuntime runtime, ImageSource* images,
                 ContainerDefaults defaults = {});
  ~ContainerStore();
  ContainerStore(const ContainerStore&) = delete;
  ContainerStore& operator=(const ContainerStore&) = delete;

  // The container `spec` asks for, for step `step_id` of `job_id`: the
  // job's named one (made unless it exists; --container-name's flag can ask
  // for either), else one of the step's own. Errors: the image could not be
  // had (its message names it), the name's flag refused, the overlay could
  // not be mounted; nothing is left behind then.
  Result<std::shared_ptr<OpenContainer>> Open(const wire::ContainerSpec& spec,
                                              const ContainerUser& user, uint32_t job_id,
                                              uint32_t step_id);

  // The step is done with `container`: one of its own is removed, a named
  // one stays for the job's next step.
  void Close(const std::shared_ptr<OpenContainer>& container);

  // --container-save: writes the container's root file system to `path` as
  // a squashfs file, as its user (only where they may write; the file is
  // theirs). Called once the step's tasks here have ended, before srun
  // hears so. Errors: mksquashfs's message.
  Status Save(const OpenContainer& container, const std::string& path) const;

  // The job has ended here: its named containers are removed.
  void ForgetJob(uint32_t job_id);

  // At start: containers of jobs not in `live` (a previous rotad's) are
  // unmounted and removed. Returns how many.
  int SweepStale(const std::set<uint32_t>& live);

  // ContainerTaskCommand with the store's runtime and defaults.
  Result<ContainerCommand> TaskCommand(const OpenContainer& container,
                                       const wire::ContainerSpec& spec, const ContainerUser& user,
                                       const ContainerTask& task) const {
    return ContainerTaskCommand(runtime_, defaults_, container, spec, user, task);
  }

  const std::string& state_dir() const { return state_dir_; }
  const ContainerRuntime& runtime() const { return runtime_; }

 private:
  Result<std::shared_ptr<OpenContainer>> Make(const wire::ContainerSpec& spec,
                                              const ContainerUser& user, uint32_t job_id,
                                              const std::string& dir, const std::string& name);
  void Remove(const OpenContainer& container);

  const std::string state_dir_;
  const ContainerRuntime runtime_;
  ImageSource* const images_;
  const ContainerDefaults defaults_;
  std::mutex mu_;
  // Named containers by (job, name). Guarded by mu_.
  std::map<std::pair<uint32_t, std::string>, std::shared_ptr<OpenContainer>> named_;
};

// The environment of a task inside: the image's, then the job's over it,
// but for PATH and LD_LIBRARY_PATH, which stay the image's (the host's
// would point at the host's programs) unless named in `host_wins`
// (--container-env), whose host values win.
std::vector<std::string> ContainerEnvironment(const std::vector<std::string>& image_env,
                                              const std::vector<std::string>& job_env,
                                              const std::vector<std::string>& host_wins);

}  // namespace rota::noded
