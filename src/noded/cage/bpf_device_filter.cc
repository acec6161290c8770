#include "noded/cage/bpf_device_filter.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "common/strings.h"

namespace rota::noded {
namespace {

// Registers used by the program (r1 holds the context on entry).
constexpr uint8_t kR0 = 0;    // Verdict
constexpr uint8_t kCtx = 1;   // struct bpf_cgroup_dev_ctx*
constexpr uint8_t kType = 2;  // BPF_DEVCG_DEV_CHAR or BPF_DEVCG_DEV_BLOCK
constexpr uint8_t kMajor = 3;
constexpr uint8_t kMinor = 4;

bpf_insn Insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn insn{};
  insn.code = code;
  insn.dst_reg = dst;
  insn.src_reg = src;
  insn.off = off;
  insn.imm = imm;
  return insn;
}

bpf_insn LoadCtxWord(uint8_t dst, int16_t offset) {
  return Insn(BPF_LDX | BPF_MEM | BPF_W, dst, kCtx, offset, 0);
}
bpf_insn JumpIfNotEqual(uint8_t reg, int32_t value, int16_t skip) {
  return Insn(BPF_JMP | BPF_JNE | BPF_K, reg, 0, skip, value);
}
// r0 = verdict; exit (two instructions).
void EmitReturn(int32_t verdict, std::vector<bpf_insn>& out) {
  out.push_back(Insn(BPF_ALU64 | BPF_MOV | BPF_K, kR0, 0, 0, verdict));
  out.push_back(Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
}

std::string Errno(int err) {
  const char* name = strerrorname_np(err);
  return std::string(std::strerror(err)) + " (" + (name != nullptr ? name : "?") + ")";
}

long Bpf(int command, bpf_attr* attr) { return syscall(SYS_bpf, command, attr, sizeof(*attr)); }

}  // namespace

std::vector<bpf_insn> BuildDeviceDenyFilter(const std::vector<DeviceRule>& denied) {
  std::vector<bpf_insn> out;
  // struct bpf_cgroup_dev_ctx { u32 access_type; u32 major; u32 minor; }, where
  // access_type is (access << 16) | device type.
  out.push_back(LoadCtxWord(kType, offsetof(bpf_cgroup_dev_ctx, access_type)));
  out.push_back(Insn(BPF_ALU64 | BPF_AND | BPF_K, kType, 0, 0, 0xffff));
  out.push_back(LoadCtxWord(kMajor, offsetof(bpf_cgroup_dev_ctx, major)));
  out.push_back(LoadCtxWord(kMinor, offsetof(bpf_cgroup_dev_ctx, minor)));
  for (const DeviceRule& rule : denied) {
    // One block per rule: each test that fails jumps past the rest of the
    // block (the remaining tests and the two instructions that deny).
    std::vector<std::pair<uint8_t, int32_t>> tests = {
        {kType, rule.type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR},
        {kMajor, static_cast<int32_t>(rule.major)}};
    if (rule.minor >= 0) tests.push_back({kMinor, static_cast<int32_t>(rule.minor)});
    for (size_t i = 0; i < tests.size(); ++i) {
      const int16_t skip = static_cast<int16_t>(tests.size() - 1 - i + 2);
      out.push_back(JumpIfNotEqual(tests[i].first, tests[i].second, skip));
    }
    EmitReturn(0, out);
  }
  EmitReturn(1, out);
  return out;
}

Result<int> LoadDeviceFilter(const std::vector<bpf_insn>& program) {
  // No helper is called, so the licence string only has to be present.
  static const char kLicense[] = "GPL";
  // The verifier's log is asked for only to explain a refusal: with a log, a
  // long program can fail for the log's size alone (ENOSPC).
  std::string log;
  for (uint32_t log_level : {0u, 1u}) {
    bpf_attr attr{};
    attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
    attr.insns = reinterpret_cast<uint64_t>(program.data());
    attr.insn_cnt = static_cast<uint32_t>(program.size());
    attr.license = reinterpret_cast<uint64_t>(kLicense);
    if (log_level > 0) {
      log.assign(1 << 20, '\0');
      attr.log_buf = reinterpret_cast<uint64_t>(log.data());
      attr.log_size = static_cast<uint32_t>(log.size());
      attr.log_level = log_level;
    }
    long fd = Bpf(BPF_PROG_LOAD, &attr);
    if (fd >= 0) return static_cast<int>(fd);
    const int err = errno;
    std::string message = "bpf(BPF_PROG_LOAD) of the device filter: " + Errno(err);
    if (err == EPERM) return Status(StatusCode::kPermissionDenied, message);
    if (log_level == 0 && err == EINVAL) continue;  // Once more, with the verifier's reasons.
    log.resize(std::strlen(log.c_str()));
    if (!Trim(log).empty()) message += "; verifier: " + std::string(Trim(log));
    return FailedPrecondition(message);
  }
  return Internal("unreachable");
}

Status AttachDeviceFilter(int program_fd, const std::string& cgroup_dir) {
  int cgroup_fd = open(cgroup_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cgroup_fd < 0) return IoError("open " + cgroup_dir + ": " + Errno(errno));
  bpf_attr attr{};
  attr.target_fd = static_cast<uint32_t>(cgroup_fd);
  attr.attach_bpf_fd = static_cast<uint32_t>(program_fd);
  attr.attach_type = BPF_CGROUP_DEVICE;
  attr.attach_flags = BPF_F_ALLOW_MULTI;
  long result = Bpf(BPF_PROG_ATTACH, &attr);
  const int err = errno;
  close(cgroup_fd);
  if (result != 0) {
    std::string message =
        "bpf(BPF_PROG_ATTACH, BPF_CGROUP_DEVICE) to " + cgroup_dir + ": " + Errno(err);
    if (err == EPERM) return Status(StatusCode::kPermissionDenied, message);
    return FailedPrecondition(message);
  }
  return Status::Ok();
}

Status ProbeDeviceFilterSupport() {
  Result<int> fd = LoadDeviceFilter(BuildDeviceDenyFilter({}));
  if (!fd.ok()) return fd.status();
  close(*fd);
  return Status::Ok();
}

}  // namespace rota::noded
