#include "model/job_payload.h"

#include <zlib.h>

#include <cstdlib>

namespace rota::model {
namespace {

// One deflate stream per thread, reset between payloads. Setting a stream up
// allocates and clears a few hundred KB, which cost five times what
// compressing a typical 3 KB payload does (bench/payload_bench).
class Deflater {
 public:
  Deflater() {
    // Level 1: most of the gain for a fraction of the time of the default.
    // memLevel 6: a smaller hash table to clear per payload, for payloads
    // of a few KB; the output is ordinary zlib data either way.
    if (deflateInit2(&stream_, 1, Z_DEFLATED, 15, 6, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  }
  ~Deflater() { deflateEnd(&stream_); }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  std::string Deflate(const std::string& raw) {
    deflateReset(&stream_);
    std::string packed(deflateBound(&stream_, raw.size()), '\0');
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
    stream_.avail_in = static_cast<uInt>(raw.size());
    stream_.next_out = reinterpret_cast<Bytef*>(packed.data());
    stream_.avail_out = static_cast<uInt>(packed.size());
    // deflateBound leaves room for the whole output: one call finishes.
    if (deflate(&stream_, Z_FINISH) != Z_STREAM_END) std::abort();
    packed.resize(stream_.total_out);
    packed.shrink_to_fit();
    return packed;
  }

 private:
  z_stream stream_{};
};

}  // namespace

std::string PackPayload(const wire::JobPayload& payload) {
  wire::JobPayload bare;
  bare.set_script(payload.script());
  *bare.mutable_environment() = payload.environment();
  thread_local Deflater deflater;
  return deflater.Deflate(bare.SerializeAsString());
}

Result<wire::JobPayload> UnpackPayload(uint32_t job_id, std::string_view packed) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) return Status(StatusCode::kInternal, "inflateInit failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  stream.avail_in = static_cast<uInt>(packed.size());
  std::string raw;
  char buffer[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    rc = inflate(&stream, Z_NO_FLUSH);
    raw.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  wire::JobPayload payload;
  if (rc != Z_STREAM_END || !payload.ParseFromString(raw)) {
    return Status(StatusCode::kCorruption, "packed job payload does not unpack");
  }
  payload.set_job_id(job_id);
  return payload;
}

}  // namespace rota::model
