#include "noded/pmi/pmi2_wire.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"

namespace rota::noded {
namespace {

constexpr size_t kLengthDigits = 6;

bool LooksLikeLine(std::string_view buffer) {
  constexpr std::string_view kStart = "cmd=";
  return buffer.substr(0, kStart.size()) == kStart.substr(0, buffer.size());
}

}  // namespace

std::optional<std::string> Pmi2Message::Find(std::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::string EncodePmi2(const Pmi2Message& message) {
  if (message.line_form) {
    std::string line = "cmd=" + message.command;
    for (const auto& [k, v] : message.attributes) line += " " + k + "=" + v;
    return line + "\n";
  }
  // Every value doubles its ';', the command's too: a parsed command may hold
  // one (";;" on the wire), and its echo must parse back to the same.
  auto append_value = [](std::string& out, std::string_view value) {
    for (char c : value) {
      if (c == ';') out += ';';
      out += c;
    }
    out += ';';
  };
  std::string body = "cmd=";
  append_value(body, message.command);
  for (const auto& [k, v] : message.attributes) {
    body += k;
    body += '=';
    append_value(body, v);
  }
  std::string length = std::to_string(body.size());
  length.resize(std::max(length.size(), kLengthDigits), ' ');
  return length + body;
}

Result<Pmi2Message> ParsePmi2Command(std::string_view body) {
  std::vector<std::pair<std::string, std::string>> pairs;
  size_t i = 0;
  while (i < body.size()) {
    const size_t eq = body.find('=', i);
    if (eq == std::string_view::npos) {
      return InvalidArgument("PMI-2 command without '=' after '" + std::string(body.substr(i)) +
                             "'");
    }
    std::string key(body.substr(i, eq - i));
    std::string value;
    size_t j = eq + 1;
    bool ended = false;
    while (j < body.size()) {
      if (body[j] == ';') {
        if (j + 1 < body.size() && body[j + 1] == ';') {
          value += ';';
          j += 2;
          continue;
        }
        ended = true;
        ++j;
        break;
      }
      value += body[j++];
    }
    if (!ended) return InvalidArgument("PMI-2 command: '" + key + "' has no ending ';'");
    pairs.emplace_back(std::move(key), std::move(value));
    i = j;
  }
  if (pairs.empty() || pairs[0].first != "cmd") {
    return InvalidArgument("PMI-2 command does not start with cmd=");
  }
  Pmi2Message message;
  message.command = std::move(pairs[0].second);
  message.attributes.assign(std::make_move_iterator(pairs.begin() + 1),
                            std::make_move_iterator(pairs.end()));
  return message;
}

Result<Pmi2Message> ParsePmi1Line(std::string_view line) {
  Pmi2Message message;
  message.line_form = true;
  bool first = true;
  for (std::string_view word : Split(line, ' ')) {
    if (word.empty()) continue;
    const size_t eq = word.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument("PMI line: '" + std::string(word) + "' has no '='");
    }
    std::string key(word.substr(0, eq));
    std::string value(word.substr(eq + 1));
    if (first) {
      if (key != "cmd") return InvalidArgument("PMI line does not start with cmd=");
      message.command = std::move(value);
      first = false;
    } else {
      message.Add(std::move(key), std::move(value));
    }
  }
  if (first) return InvalidArgument("empty PMI line");
  return message;
}

std::optional<Result<Pmi2Message>> Pmi2Reader::Next() {
  if (buffer_.empty()) return std::nullopt;
  if (LooksLikeLine(buffer_)) {
    const size_t end = buffer_.find('\n');
    if (end == std::string::npos) {
      if (buffer_.size() > kMaxCommandBytes) {
        return Result<Pmi2Message>(InvalidArgument("PMI line too long"));
      }
      return std::nullopt;
    }
    std::string line = buffer_.substr(0, end);
    buffer_.erase(0, end + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return ParsePmi1Line(line);
  }
  if (buffer_.size() < kLengthDigits) return std::nullopt;
  size_t length = 0;
  bool digits = false;
  for (size_t i = 0; i < kLengthDigits; ++i) {
    const char c = buffer_[i];
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 && (!digits || buffer_[i - 1] != ' ')) {
      length = length * 10 + static_cast<size_t>(c - '0');
      digits = true;
    } else if (c != ' ') {
      return Result<Pmi2Message>(InvalidArgument(
          "PMI-2 length '" + buffer_.substr(0, kLengthDigits) + "' is not a number"));
    }
  }
  if (!digits) return Result<Pmi2Message>(InvalidArgument("PMI-2 length is blank"));
  if (length > kMaxCommandBytes) {
    return Result<Pmi2Message>(InvalidArgument("PMI-2 command too long"));
  }
  if (buffer_.size() < kLengthDigits + length) return std::nullopt;
  Result<Pmi2Message> parsed =
      ParsePmi2Command(std::string_view(buffer_).substr(kLengthDigits, length));
  buffer_.erase(0, kLengthDigits + length);
  return parsed;
}

}  // namespace rota::noded
