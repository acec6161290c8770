#include "sim/swf_reader.h"

#include <zlib.h>

#include <array>
#include <charconv>

namespace rota::sim {
namespace {

// SWF field positions (1-based in the format's definition).
constexpr int kJobNumber = 0;
constexpr int kSubmitTime = 1;
constexpr int kRunTime = 3;
constexpr int kAllocatedProcessors = 4;
constexpr int kRequestedProcessors = 7;
constexpr int kRequestedTime = 8;
constexpr int kUserId = 11;
constexpr int kGroupId = 12;
constexpr int kQueue = 14;
constexpr int kFieldsNeeded = 9;  // Up to the requested time; the rest may be missing
constexpr int kFields = 18;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Splits `line` into numbers; false when a field is not one. Some archive logs
// write fractional seconds, so a field may carry a fraction, which is dropped.
bool ParseFields(std::string_view line, std::array<int64_t, kFields>& out, int& count) {
  count = 0;
  size_t i = 0;
  while (i < line.size() && count < kFields) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    if (i == line.size()) break;
    size_t end = i;
    while (end < line.size() && !IsSpace(line[end])) ++end;
    std::string_view word = line.substr(i, end - i);
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || (ptr != word.data() + word.size() && *ptr != '.')) return false;
    out[count++] = value;
    i = end;
  }
  return true;
}

// "; MaxProcs: 100" says how big the machine was (MaxNodes on logs that count nodes).
void ReadHeader(std::string_view comment, Trace& trace) {
  for (std::string_view key : {"MaxProcs:", "MaxNodes:"}) {
    size_t at = comment.find(key);
    if (at == std::string_view::npos) continue;
    std::string_view rest = comment.substr(at + key.size());
    while (!rest.empty() && IsSpace(rest.front())) rest.remove_prefix(1);
    uint32_t value = 0;
    std::from_chars(rest.data(), rest.data() + rest.size(), value);
    // MaxProcs wins over MaxNodes when a log gives both.
    if (value > 0 && (key == "MaxProcs:" || trace.machine_processors == 0)) {
      trace.machine_processors = value;
    }
  }
}

}  // namespace

Trace ParseSwf(std::string_view text, const SwfOptions& options) {
  Trace trace;
  std::array<int64_t, kFields> f{};
  size_t pos = 0;
  while (pos < text.size()) {
    if (options.max_jobs > 0 && trace.jobs.size() >= options.max_jobs) break;
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    size_t first = 0;
    while (first < line.size() && IsSpace(line[first])) ++first;
    if (first == line.size()) continue;
    if (line[first] == ';') {
      ReadHeader(line.substr(first + 1), trace);
      continue;
    }
    ++trace.stats.lines;
    int count = 0;
    if (!ParseFields(line.substr(first), f, count) || count < kFieldsNeeded) {
      ++trace.stats.skipped_malformed;
      continue;
    }
    for (int k = count; k < kFields; ++k) f[k] = -1;
    int64_t processors =
        f[kAllocatedProcessors] > 0 ? f[kAllocatedProcessors] : f[kRequestedProcessors];
    if (f[kRunTime] <= 0) {
      ++trace.stats.skipped_runtime;
      continue;
    }
    if (processors <= 0) {
      ++trace.stats.skipped_processors;
      continue;
    }
    TraceJob& job = trace.jobs.emplace_back();
    job.id = static_cast<uint64_t>(f[kJobNumber]);
    job.submit_s = f[kSubmitTime];
    job.runtime_s = f[kRunTime];
    job.processors = static_cast<uint32_t>(processors);
    job.requested_s = f[kRequestedTime] > 0 ? f[kRequestedTime] : -1;
    job.user = f[kUserId];
    job.group = f[kGroupId];
    job.queue = f[kQueue];
  }
  trace.stats.read = trace.jobs.size();
  return trace;
}

Result<std::string> ReadMaybeGzip(const std::string& path) {
  // gzread passes data through unchanged when the file is not compressed.
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return NotFound("cannot open " + path);
  gzbuffer(file, 1 << 20);
  std::string text;
  std::array<char, 1 << 16> buffer;
  while (true) {
    int n = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (n < 0) {
      int code = 0;
      std::string message = gzerror(file, &code);
      gzclose(file);
      return IoError(path + ": " + message);
    }
    if (n == 0) break;
    text.append(buffer.data(), static_cast<size_t>(n));
  }
  gzclose(file);
  return text;
}

Result<Trace> ReadSwfFile(const std::string& path, const SwfOptions& options) {
  Result<std::string> text = ReadMaybeGzip(path);
  if (!text.ok()) return text.status();
  return ParseSwf(*text, options);
}

}  // namespace rota::sim
