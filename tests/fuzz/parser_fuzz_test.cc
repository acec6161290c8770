// Random inputs for the hostlist and configuration parsers. Seeded, so a
// failure reproduces; bounded by count and time, so CI stays quick. The
// sanitizers of `make test` turn any memory error or UB into a failure.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/hostlist.h"
#include "conf/config_loader.h"
#include "testing/temp_dir.h"

namespace rota {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTimeBudget = std::chrono::seconds(4);

// Characters that matter to the grammars, weighted towards the tricky ones.
constexpr std::string_view kHostlistAlphabet = "[],-0123456789ab \t09";

std::string RandomString(std::mt19937& rng, std::string_view alphabet, size_t max_len) {
  std::uniform_int_distribution<size_t> len(0, max_len);
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::string s(len(rng), ' ');
  for (char& c : s) c = alphabet[pick(rng)];
  return s;
}

TEST(ParserFuzzTest, HostlistNeverCrashesAndStaysConsistent) {
  std::mt19937 rng(20261129);
  auto deadline = Clock::now() + kTimeBudget;
  int accepted = 0;
  for (int i = 0; i < 200000 && Clock::now() < deadline; ++i) {
    std::string expr = RandomString(rng, kHostlistAlphabet, 24);
    Result<std::vector<std::string>> hosts = ExpandHostlist(expr, 10000);
    Result<size_t> count = CountHostlist(expr, 10000);
    ASSERT_EQ(hosts.ok(), count.ok()) << expr;
    if (!hosts.ok()) {
      EXPECT_FALSE(hosts.status().message().empty());
      continue;
    }
    ++accepted;
    ASSERT_EQ(hosts->size(), *count) << expr;
    std::string again = CompressHostlist(*hosts, HostlistOrder::kAsGiven);
    Result<std::vector<std::string>> round = ExpandHostlist(again, 10000);
    ASSERT_TRUE(round.ok()) << expr << " -> " << again;
    EXPECT_EQ(*round, *hosts) << expr << " -> " << again;
  }
  EXPECT_GT(accepted, 0);
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Mutates a real configuration: flips, deletes and inserts bytes, then loads it.
TEST(ParserFuzzTest, MutatedConfigurationsNeverCrash) {
  std::filesystem::path example = testing::SharedDir() / "examples" / "gpu-cluster";
  std::string slurm = ReadFile(example / "slurm.conf");
  std::string gres = ReadFile(example / "gres.conf");
  std::string topology = ReadFile(example / "topology.conf");
  ASSERT_FALSE(slurm.empty());
  constexpr std::string_view kConfAlphabet = "=[]-,:#\\\"\n 0123456789abcGMKT/";
  std::mt19937 rng(7);
  testing::TempDir dir;
  auto deadline = Clock::now() + kTimeBudget;
  int loaded_ok = 0;
  int runs = 0;
  for (; runs < 3000 && Clock::now() < deadline; ++runs) {
    std::string files[3] = {slurm, gres, topology};
    std::string& target = files[rng() % 3];
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits && !target.empty(); ++e) {
      size_t pos = rng() % target.size();
      std::string piece = RandomString(rng, kConfAlphabet, 3);
      switch (rng() % 3) {
        case 0:
          target[pos] = kConfAlphabet[rng() % kConfAlphabet.size()];
          break;
        case 1:
          target.erase(pos, 1 + rng() % 8);
          break;
        default:
          target.insert(pos, piece);
          break;
      }
    }
    std::string path = dir.Write("slurm.conf", files[0]);
    dir.Write("gres.conf", files[1]);
    dir.Write("topology.conf", files[2]);
    conf::Diagnostics diags;
    auto config = conf::LoadClusterConfig(path, diags);
    if (config.ok()) {
      ++loaded_ok;
    } else {
      EXPECT_TRUE(diags.has_errors()) << "failed without saying why";
    }
  }
  EXPECT_GT(runs, 50);
  EXPECT_GT(loaded_ok, 0);  // Some mutations (in comments, say) must still load.
}

}  // namespace
}  // namespace rota
