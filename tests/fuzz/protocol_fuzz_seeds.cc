// Writes the seed corpus of every protocol fuzz target: DIR/<target>/seed-N.
// Run after changing a seed in protocol_fuzz_targets.cc, then check in
// tests/fuzz/corpus/ (inputs a fuzzer found are kept there beside the seeds).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/fuzz/protocol_fuzz_targets.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  for (const rota::fuzz::FuzzTarget& target : rota::fuzz::AllTargets()) {
    const std::filesystem::path dir = std::filesystem::path(argv[1]) / target.name;
    std::filesystem::create_directories(dir);
    int n = 0;
    for (const std::string& seed : rota::fuzz::SeedInputs(target.name)) {
      std::ofstream out(dir / ("seed-" + std::to_string(n++)), std::ios::binary);
      out << seed;
    }
    std::printf("%s: %d seeds\n", target.name, n);
  }
  return 0;
}
