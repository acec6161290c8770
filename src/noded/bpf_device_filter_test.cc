// The device filter's instruction stream, run by a tiny interpreter of the
// few instructions it uses: which devices it allows. Loading it into the real
// kernel is tested in tests/integration/cgroup_v2_cage_test.cc.
#include "noded/bpf_device_filter.h"

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

TEST(BpfDeviceFilterTest, NoRulesDeniesEverything) {
  std::vector<bpf_insn> program = BuildDeviceFilter({});
  EXPECT_EQ(Verdict(program, 'c', 1, 3), 0);
  EXPECT_EQ(Verdict(program, 'b', 8, 0), 0);
}

TEST(BpfDeviceFilterTest, AllowsExactlyTheListedDevices) {
  std::vector<DeviceRule> rules = BaseDeviceRules();
  rules.push_back({'c', 195, 201});
  rules.push_back({'c', 195, 255});  // nvidiactl
  rules.push_back({'c', 508, -1});   // nvidia-uvm, any minor
  std::vector<bpf_insn> program = BuildDeviceFilter(rules);

  for (const DeviceRule& rule : BaseDeviceRules()) {
    uint32_t minor = rule.minor < 0 ? 7 : static_cast<uint32_t>(rule.minor);
    EXPECT_EQ(Verdict(program, 'c', rule.major, minor), 1) << rule.ToString();
    EXPECT_EQ(Verdict(program, 'c', rule.major, minor, kMknod), 1) << rule.ToString();
    // The same numbers as a block device are another device.
    EXPECT_EQ(Verdict(program, 'b', rule.major, minor), 0) << rule.ToString();
  }
  EXPECT_EQ(Verdict(program, 'c', 136, 0), 1);  // Any pseudo-terminal
  EXPECT_EQ(Verdict(program, 'c', 136, 4711), 1);
  EXPECT_EQ(Verdict(program, 'c', 195, 201), 1);  // The allocated GPU
  EXPECT_EQ(Verdict(program, 'c', 195, 255), 1);
  EXPECT_EQ(Verdict(program, 'c', 508, 0), 1);
  EXPECT_EQ(Verdict(program, 'c', 508, 1), 1);
  EXPECT_EQ(Verdict(program, 'c', 195, 200), 0);  // Other GPUs
  EXPECT_EQ(Verdict(program, 'c', 195, 202), 0);
  EXPECT_EQ(Verdict(program, 'c', 1, 1), 0);  // /dev/mem
  EXPECT_EQ(Verdict(program, 'c', 5, 1), 0);  // /dev/console
  EXPECT_EQ(Verdict(program, 'c', 4, 0), 0);  // /dev/tty0
  EXPECT_EQ(Verdict(program, 'b', 8, 0), 0);  // /dev/sda
  EXPECT_EQ(Verdict(program, 'c', 0, 3), 0);  // Minor of an allowed major-1 device, wrong major
}

TEST(BpfDeviceFilterTest, BlockRulesMatchBlockDevicesOnly) {
  std::vector<bpf_insn> program = BuildDeviceFilter({{'b', 7, 0}});
  EXPECT_EQ(Verdict(program, 'b', 7, 0), 1);
  EXPECT_EQ(Verdict(program, 'c', 7, 0), 0);
  EXPECT_EQ(Verdict(program, 'b', 7, 1), 0);
}

TEST(BpfDeviceFilterTest, InstructionCountGrowsWithTheRules) {
  // Four to read the context, a block of 4 (wildcard) or 5 per rule, two to deny.
  EXPECT_EQ(BuildDeviceFilter({}).size(), 6u);
  EXPECT_EQ(BuildDeviceFilter({{'c', 1, 3}}).size(), 11u);
  EXPECT_EQ(BuildDeviceFilter({{'c', 136, -1}}).size(), 10u);
}

}  // namespace
}  // namespace rota::noded
