#pragma once

// The PMI-2 wire protocol that MPI libraries speak over PMI_FD (docs/mpi.md).
// A command is "cmd=NAME;key=value;...;" preceded by its length in 6 ASCII
// characters (decimal, padded with spaces); a ';' inside a value is doubled.
// The first message of a client is in the older PMI-1 form, one line of
// space-separated pairs ("cmd=init pmi_version=2 pmi_subversion=0\n"), and
// so is its answer. Pure: no I/O.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace rota::noded {

struct Pmi2Message {
  std::string command;  // The value of "cmd"
  // The other pairs, in order.
  std::vector<std::pair<std::string, std::string>> attributes;
  bool line_form = false;  // PMI-1 line ("cmd=init ..."), not a PMI-2 command

  // The value of `key`, or nullopt.
  std::optional<std::string> Find(std::string_view key) const;
  std::string Get(std::string_view key, std::string_view absent = "") const {
    return Find(key).value_or(std::string(absent));
  }
  Pmi2Message& Add(std::string key, std::string value) {
    attributes.emplace_back(std::move(key), std::move(value));
    return *this;
  }
};

// Bytes on the wire: the length-prefixed command, or the line in line form.
std::string EncodePmi2(const Pmi2Message& message);

// The body of a PMI-2 command (without its length). Errors: no "cmd" first, a
// pair without '=' or without its ';'.
Result<Pmi2Message> ParsePmi2Command(std::string_view body);
// One PMI-1 line (without its '\n').
Result<Pmi2Message> ParsePmi1Line(std::string_view line);

// Cuts a byte stream from a client into messages.
class Pmi2Reader {
 public:
  // A command longer than this is refused (the stream is then unusable).
  static constexpr size_t kMaxCommandBytes = 1 << 20;

  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole message; nullopt until its last byte came. An error means
  // the stream does not speak PMI and should be closed.
  std::optional<Result<Pmi2Message>> Next();

 private:
  std::string buffer_;
};

}  // namespace rota::noded
