#pragma once

// Starts a batch script as its user: the fork/exec half of a launch. Every
// decision (paths, environment, identity) is made by the caller and handed
// over in a JobProcessSpec; between fork and exec the child only makes system
// calls, since the daemon has other threads whose locks it may have copied.
//
// The child waits on a pipe until the parent has run `before_exec` with its
// pid (rotad puts it into the job's cgroups there), so the script's first
// instruction already runs inside its cage.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"

namespace rota::noded {

// A soft resource limit the child sets for itself once it is the user
// (PropagateResourceLimits): its hard limit stays the daemon's, and a value
// above it is not set, as in Slurm.
struct SoftLimit {
  int resource = 0;    // RLIMIT_*
  uint64_t value = 0;  // UINT64_MAX: unlimited
};

struct JobProcessSpec {
  std::string program;  // Path of the script to exec.
  std::vector<std::string> argv;
  std::vector<std::string> env;  // NAME=value
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // Supplementary groups (from initgroups' view of the user).
  std::string work_dir;       // When it cannot be entered the job starts in /tmp, as Slurm's does.
  std::string stdout_path;    // Absolute; created as the user, 0666 less the umask.
  std::string stderr_path;    // Absolute; may equal stdout_path (one shared file).
  bool append = false;        // O_APPEND instead of truncating.
  std::vector<SoftLimit> soft_limits;
  mode_t umask = 022;  // The submitter's (UmaskFromEnvironment), for every file the job makes.
  // The program is an OCI runtime starting a container (as TaskProcessSpec's).
  bool runtime_mounts = false;
};

// For a process about to start an OCI runtime, as root between fork and exec
// (system calls only): a mount namespace of its own without the cgroup2 mount
// of a hybrid cgroup layout, which crun refuses to run beside. False when the
// namespace could not be made (errno says why).
bool EnterRuntimeMountNamespace();

// The umask the submitting command sent in SLURM_UMASK ("0077", octal, as
// sbatch, srun and salloc set it), or 022 when `env` holds none or one that is
// not an octal mask.
mode_t UmaskFromEnvironment(const std::vector<std::string>& env);

// Sets `limits` on the calling process (only system calls: safe between fork
// and exec). One that cannot be set is left as it was.
void ApplySoftLimits(const std::vector<SoftLimit>& limits);

// Runs with the waiting child's pid; an error kills the child.
using BeforeExec = std::function<Status(pid_t)>;

// Forks, and in the child: new session, the user's groups, gid and uid,
// working directory, spec.umask, stdin /dev/null, stdout/stderr to their files,
// default signal handling, no other open descriptors, then exec. Returns the
// pid once the exec succeeded. Errors: why the child could not get there
// ("cannot open /x/out: Permission denied"), the child already reaped.
Result<pid_t> SpawnJobProcess(const JobProcessSpec& spec, const BeforeExec& before_exec);

// The supplementary groups `user` has (initgroups' list), including `gid`.
// Errors: kNotFound when the user is unknown.
Result<std::vector<gid_t>> GroupsOf(const std::string& user, gid_t gid);

}  // namespace rota::noded
