#include "conf/diagnostics.h"

#include <fmt/format.h>

namespace rota::conf {

std::string SourceLocation::ToString() const {
  if (line <= 0) return file;
  return fmt::format("{} line {}", file, line);
}

std::string Diagnostic::ToString() const {
  return fmt::format("{}: {}: {}", severity == Severity::kError ? "error" : "warning",
                     where.ToString(), message);
}

void Diagnostics::Error(const SourceLocation& where, std::string message) {
  all_.push_back({Severity::kError, where, std::move(message)});
  ++error_count_;
}

void Diagnostics::Warning(const SourceLocation& where, std::string message) {
  all_.push_back({Severity::kWarning, where, std::move(message)});
}

std::string Diagnostics::ToString() const {
  std::string out;
  for (const Diagnostic& d : all_) {
    out += d.ToString();
    out += '\n';
  }
  return out;
}

}  // namespace rota::conf
