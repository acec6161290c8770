#include "noded/stepd/process_title.h"

#include <algorithm>
#include <cstring>

namespace rota::noded {

void SetProcessTitle(int argc, char** argv, const std::string& title) {
  if (argc <= 0 || argv[0] == nullptr) return;
  // The kernel hands the arguments over as one block of strings, one after
  // the other; only that block can be reused. Measured before the first
  // title overwrites the strings (argv itself is left alone).
  static const char* measured_for = nullptr;
  static size_t room = 0;
  if (measured_for != argv[0]) {
    char* end = argv[0] + std::strlen(argv[0]) + 1;
    for (int i = 1; i < argc && argv[i] == end; ++i) end = argv[i] + std::strlen(argv[i]) + 1;
    room = static_cast<size_t>(end - argv[0]);
    measured_for = argv[0];
  }
  const size_t used = std::min(title.size(), room - 1);
  std::memcpy(argv[0], title.data(), used);
  std::memset(argv[0] + used, 0, room - used);
}

}  // namespace rota::noded
