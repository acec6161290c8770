#pragma once

// Errors and warnings found while reading configuration files. Every one names
// the file and line it is about, so an administrator can go straight there:
//   error: /etc/slurm/slurm.conf line 44: MaxTime=one-day is not a valid time limit

#include <string>
#include <vector>

namespace rota::conf {

struct SourceLocation {
  std::string file;  // As the user named it (or as an Include resolved it).
  int line = 0;      // 1-based; 0 when the finding is about the file as a whole.

  // "slurm.conf line 44", or just the file when line is 0.
  std::string ToString() const;
};

enum class Severity { kWarning, kError };

struct Diagnostic {
  Severity severity;
  SourceLocation where;
  std::string message;

  // "error: FILE line N: MESSAGE"
  std::string ToString() const;
};

// Collects findings in the order they were made. Parsers keep going after an
// error so that one run reports every problem.
class Diagnostics {
 public:
  void Error(const SourceLocation& where, std::string message);
  void Warning(const SourceLocation& where, std::string message);

  bool has_errors() const { return error_count_ > 0; }
  int error_count() const { return error_count_; }
  const std::vector<Diagnostic>& all() const { return all_; }
  // Every finding, one per line.
  std::string ToString() const;

 private:
  std::vector<Diagnostic> all_;
  int error_count_ = 0;
};

}  // namespace rota::conf
