// The device filter's instruction stream, run by a tiny interpreter of the
// few instructions it uses: which devices it allows. Loading it into the real
// kernel is tested in tests/integration/cgroup_v2_cage_test.cc.
#include "noded/cage/bpf_device_filter.h"

#include <gtest/gtest.h>

#include <optional>

namespace rota::noded {
namespace {

constexpr uint32_t kRead = BPF_DEVCG_ACC_READ << 16;
constexpr uint32_t kMknod = BPF_DEVCG_ACC_MKNOD << 16;

// Runs `program` on one access; nullopt when it uses an instruction this
// interpreter does not know, jumps out of bounds or runs too long.
std::optional<int64_t> Run(const std::vector<bpf_insn>& program, uint32_t access_type,
                           uint32_t major, uint32_t minor) {
  const uint32_t ctx[3] = {access_type, major, minor};
  uint64_t reg[11] = {};
  size_t pc = 0;
  for (int steps = 0; steps < 10000 && pc < program.size(); ++steps) {
    const bpf_insn& insn = program[pc];
    switch (insn.code) {
      case BPF_LDX | BPF_MEM | BPF_W:
        if (insn.src_reg != 1 || insn.off < 0 || insn.off > 8 || insn.off % 4 != 0) {
          return std::nullopt;
        }
        reg[insn.dst_reg] = ctx[insn.off / 4];
        break;
      case BPF_ALU64 | BPF_AND | BPF_K:
        reg[insn.dst_reg] &= static_cast<uint64_t>(static_cast<int64_t>(insn.imm));
        break;
      case BPF_ALU64 | BPF_MOV | BPF_K:
        reg[insn.dst_reg] = static_cast<uint64_t>(static_cast<int64_t>(insn.imm));
        break;
      case BPF_JMP | BPF_JNE | BPF_K:
        if (reg[insn.dst_reg] != static_cast<uint64_t>(static_cast<int64_t>(insn.imm))) {
          pc += insn.off;
        }
        break;
      case BPF_JMP | BPF_EXIT:
        return static_cast<int64_t>(reg[0]);
      default:
        return std::nullopt;
    }
    ++pc;
  }
  return std::nullopt;
}

int Verdict(const std::vector<bpf_insn>& program, char type, uint32_t major, uint32_t minor,
            uint32_t access = kRead) {
  uint32_t dev = type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
  std::optional<int64_t> r = Run(program, access | dev, major, minor);
  EXPECT_TRUE(r.has_value()) << "the program did not run to an exit";
  return r.value_or(-1);
}

TEST(BpfDeviceFilterTest, NoRulesAllowsEverything) {
  std::vector<bpf_insn> program = BuildDeviceDenyFilter({});
  EXPECT_EQ(Verdict(program, 'c', 1, 3), 1);
  EXPECT_EQ(Verdict(program, 'c', 195, 0), 1);
  EXPECT_EQ(Verdict(program, 'b', 8, 0), 1);
}

// What a job on GPU 1 of a four-GPU node gets: the other three GPUs and a
// whole major (a site GRES given as a wildcard) denied, everything else open.
TEST(BpfDeviceFilterTest, DeniesExactlyTheListedDevices) {
  std::vector<DeviceRule> denied = {{'c', 195, 0}, {'c', 195, 2}, {'c', 195, 3}, {'c', 509, -1}};
  std::vector<bpf_insn> program = BuildDeviceDenyFilter(denied);

  for (uint32_t minor : {0u, 2u, 3u}) {
    EXPECT_EQ(Verdict(program, 'c', 195, minor), 0) << minor;
    EXPECT_EQ(Verdict(program, 'c', 195, minor, kMknod), 0) << minor;
    // The same numbers as a block device are another device.
    EXPECT_EQ(Verdict(program, 'b', 195, minor), 1) << minor;
  }
  EXPECT_EQ(Verdict(program, 'c', 509, 0), 0);  // Any minor of the wildcard major
  EXPECT_EQ(Verdict(program, 'c', 509, 4711), 0);
  EXPECT_EQ(Verdict(program, 'c', 195, 1), 1);    // The allocated GPU
  EXPECT_EQ(Verdict(program, 'c', 195, 255), 1);  // nvidiactl
  EXPECT_EQ(Verdict(program, 'c', 508, 0), 1);    // nvidia-uvm
  EXPECT_EQ(Verdict(program, 'c', 231, 192), 1);  // InfiniBand uverbs0
  EXPECT_EQ(Verdict(program, 'c', 10, 229), 1);   // fuse
  EXPECT_EQ(Verdict(program, 'c', 1, 3), 1);      // null
  EXPECT_EQ(Verdict(program, 'c', 136, 4), 1);    // a pseudo-terminal
}

TEST(BpfDeviceFilterTest, BlockRulesMatchBlockDevicesOnly) {
  std::vector<bpf_insn> program = BuildDeviceDenyFilter({{'b', 7, 0}});
  EXPECT_EQ(Verdict(program, 'b', 7, 0), 0);
  EXPECT_EQ(Verdict(program, 'c', 7, 0), 1);
  EXPECT_EQ(Verdict(program, 'b', 7, 1), 1);
}

TEST(BpfDeviceFilterTest, InstructionCountGrowsWithTheRules) {
  // Four to read the context, a block of 4 (wildcard) or 5 per rule, two to allow.
  EXPECT_EQ(BuildDeviceDenyFilter({}).size(), 6u);
  EXPECT_EQ(BuildDeviceDenyFilter({{'c', 1, 3}}).size(), 11u);
  EXPECT_EQ(BuildDeviceDenyFilter({{'c', 136, -1}}).size(), 10u);
}

}  // namespace
}  // namespace rota::noded
