#pragma once

// A private temporary directory for one test, removed (with everything in it)
// when the test ends, pass or fail.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace rota::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rota-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `content` to `relative` (creating parent directories); returns the full path.
  std::string Write(const std::string& relative, const std::string& content) const {
    std::filesystem::path p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << content;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// The project's shared reference material (examples, observed outputs):
// $ROTA_SHARED_DIR, or ../shared beside the source tree.
inline std::filesystem::path SharedDir() {
  if (const char* env = std::getenv("ROTA_SHARED_DIR"); env != nullptr && *env != '\0') return env;
#ifdef ROTA_SOURCE_DIR
  return std::filesystem::path(ROTA_SOURCE_DIR).parent_path() / "shared";
#else
  return "../shared";
#endif
}

}  // namespace rota::testing
