// The protocol fuzz targets (protocol_fuzz_targets.h) in the normal suite,
// without clang or libFuzzer: each replays its checked-in corpus (seeds and
// every input a fuzzer found) and then a bounded number of seeded random
// mutations of it. A crash, a sanitizer report or a broken invariant aborts
// the binary, so ctest reports the target; rerun it alone with
// --gtest_filter=*<target>* to see the input's mutation number.
#include <fcntl.h>
#include <google/protobuf/message_lite.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/protocol_fuzz_targets.h"

// The sanitizers' runtime is linked only into sanitized builds: a release
// build (which also builds the tests) has the header but not the function.
#if defined(__SANITIZE_ADDRESS__)
#define ROTA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROTA_SANITIZED 1
#endif
#endif
#if defined(ROTA_SANITIZED)
#include <sanitizer/common_interface_defs.h>
#endif

namespace rota::fuzz {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMutations = 20000;
constexpr auto kTimeBudget = std::chrono::milliseconds(1500);
constexpr size_t kMaxInput = 8 << 10;

std::vector<std::string> Corpus(const char* name) {
  std::vector<std::string> inputs = SeedInputs(name);
  const std::filesystem::path dir =
      std::filesystem::path(ROTA_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / name;
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry);
  }
  std::sort(files.begin(), files.end());  // Same order on every run.
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    inputs.push_back(bytes.str());
  }
  return inputs;
}

// Numbers that trip length and count checks, as libFuzzer's CMP tables would.
constexpr uint32_t kInteresting[] = {
    0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff};

// One to four edits of `input`, or a splice with `other`.
std::string Mutate(std::string input, const std::string& other, std::mt19937& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = input.empty() ? 0 : rng() % input.size();
    switch (rng() % 7) {
      case 0:  // Flip a bit.
        if (!input.empty()) input[at] = static_cast<char>(input[at] ^ (1 << (rng() % 8)));
        break;
      case 1:  // A random byte.
        if (!input.empty()) input[at] = static_cast<char>(rng());
        break;
      case 2: {  // An interesting 32-bit number, little- or big-endian.
        uint32_t v = kInteresting[rng() % std::size(kInteresting)];
        const bool big = rng() % 2;
        for (int i = 0; i < 4 && at + i < input.size(); ++i) {
          input[at + i] = static_cast<char>(v >> (8 * (big ? 3 - i : i)));
        }
        break;
      }
      case 3:  // Delete a run.
        input.erase(at, 1 + rng() % 16);
        break;
      case 4: {  // Insert random bytes.
        std::string bytes(1 + rng() % 8, '\0');
        for (char& c : bytes) c = static_cast<char>(rng());
        input.insert(std::min(at, input.size()), bytes);
        break;
      }
      case 5: {  // Repeat a run (frames after frames, nested fields).
        if (input.empty()) break;
        const size_t n = std::min<size_t>(1 + rng() % 64, input.size() - at);
        input.insert(at, input.substr(at, n));
        break;
      }
      default: {  // Splice: the head of this one, the tail of another.
        if (other.empty()) break;
        input = input.substr(0, at) + other.substr(rng() % other.size());
        break;
      }
    }
  }
  if (input.size() > kMaxInput) input.resize(kMaxInput);
  return input;
}

// The input being run, written to protocol-fuzz-crash-<target> in the
// working directory when it aborts or a sanitizer reports: replay it with
// `make fuzz` binaries (bin/fuzz_<target> FILE) or add it to the corpus.
struct CurrentInput {
  const char* target = "";
  const std::string* bytes = nullptr;
};
CurrentInput current;

void SaveCurrentInput() {
  if (current.bytes == nullptr) return;
  char path[256] = "protocol-fuzz-crash-";
  strncat(path, current.target, sizeof(path) - strlen(path) - 1);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  ssize_t ignored = write(fd, current.bytes->data(), current.bytes->size());
  (void)ignored;
  close(fd);
  const char note[] = "protocol fuzz: input saved to protocol-fuzz-crash-<target>\n";
  ignored = write(2, note, sizeof(note) - 1);
}

void OnAbort(int) {
  SaveCurrentInput();
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
}

void RunInput(const FuzzTarget& target, const std::string& input) {
  current = {target.name, &input};
  target.run(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  current.bytes = nullptr;
}

}  // namespace

// gtest names a parameter in its output with this (found by argument-dependent
// lookup, so beside FuzzTarget, not in the anonymous namespace).
void PrintTo(const FuzzTarget& target, std::ostream* out) { *out << target.name; }

namespace {

class ProtocolFuzzTest : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(ProtocolFuzzTest, CorpusAndSeededMutations) {
  const FuzzTarget target = GetParam();
  const std::vector<std::string> corpus = Corpus(target.name);
  ASSERT_FALSE(corpus.empty()) << "no seeds for " << target.name;
  signal(SIGABRT, OnAbort);
#if defined(ROTA_SANITIZED)
  __sanitizer_set_death_callback(SaveCurrentInput);
#endif
  for (const std::string& input : corpus) RunInput(target, input);
  std::mt19937 rng(std::hash<std::string_view>{}(target.name) & 0xffffffff);
  const auto deadline = Clock::now() + kTimeBudget;
  int runs = 0;
  for (; runs < kMutations && Clock::now() < deadline; ++runs) {
    const std::string& base = corpus[rng() % corpus.size()];
    const std::string& other = corpus[rng() % corpus.size()];
    const std::string input = Mutate(base, other, rng);
    RunInput(target, input);
  }
  RecordProperty("corpus", static_cast<int>(corpus.size()));
  RecordProperty("mutations", runs);
  EXPECT_GT(runs, 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, ProtocolFuzzTest,
                         ::testing::ValuesIn(AllTargets().begin(), AllTargets().end()),
                         [](const ::testing::TestParamInfo<FuzzTarget>& info) {
                           return std::string(info.param.name);
                         });

// Every method id the daemons serve has a request message to fuzz.
TEST(ProtocolFuzzTest, EveryMethodHasARequestMessage) {
  EXPECT_EQ(AllMethods().size(), 37u);
  for (const MethodMessage& m : AllMethods()) {
    auto message = m.make_request();
    ASSERT_NE(message, nullptr) << m.method;
    EXPECT_TRUE(message->ParseFromString(ExampleRequestBody(m.method))) << m.method;
  }
}

}  // namespace
}  // namespace rota::fuzz
