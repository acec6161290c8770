#pragma once

// Device control for cgroup v2. The v2 kernel interface has no devices.allow
// file: a cgroup's device access is decided by a BPF_PROG_TYPE_CGROUP_DEVICE
// program attached to it. This file builds that program from an allow list,
// hand-assembled (no compiler, no libbpf), loads it with bpf(2) and attaches it
// to a cgroup. As Slurm's ConstrainDevices, it keeps a job from the GRES device
// files it was not given and nothing else: the program answers "deny" for a
// device that matches one of its rules (any access: read, write, mknod) and
// "allow" for every other device (nvidiactl, nvidia-uvm, InfiniBand, fuse...).

#include <linux/bpf.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "noded/cage/cgroup_backend.h"

namespace rota::noded {

// The program that denies exactly `denied` (minor -1: any minor of the major)
// and allows the rest. Pure: the instruction stream only.
std::vector<bpf_insn> BuildDeviceDenyFilter(const std::vector<DeviceRule>& denied);

// Loads `program` into the kernel. Returns the program's file descriptor,
// owned by the caller. Errors: kPermissionDenied / kFailedPrecondition naming
// the errno bpf(2) gave, with the verifier's log when it rejected the program.
Result<int> LoadDeviceFilter(const std::vector<bpf_insn>& program);

// Attaches the loaded program `program_fd` to the cgroup directory
// `cgroup_dir` (BPF_CGROUP_DEVICE, BPF_F_ALLOW_MULTI: a program attached to
// an ancestor still runs as well: a device is allowed only when every program
// on the way up allows it, so a task's program narrows its job's).
// The attachment lives as long as the cgroup; the caller may close its fd.
Status AttachDeviceFilter(int program_fd, const std::string& cgroup_dir);

// Whether bpf(2) accepts a device program here at all: OK, or the error that
// says why not (for the start-up log).
Status ProbeDeviceFilterSupport();

}  // namespace rota::noded
