// libFuzzer's entry point for one target of protocol_fuzz_targets.h, chosen
// at build time (ROTA_FUZZ_TARGET, the target's name): one binary per target,
// built only with -DROTA_FUZZ=ON and clang (`make fuzz`).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/protocol_fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rota::fuzz::FuzzTarget* target = [] {
    const rota::fuzz::FuzzTarget* t = rota::fuzz::FindTarget(ROTA_FUZZ_TARGET);
    if (t == nullptr) {
      std::fprintf(stderr, "no fuzz target %s\n", ROTA_FUZZ_TARGET);
      std::abort();
    }
    return t;
  }();
  return target->run(data, size);
}
