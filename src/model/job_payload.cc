#include "model/job_payload.h"

#include <zlib.h>

namespace rota::model {

std::string PackPayload(const wire::JobPayload& payload) {
  wire::JobPayload bare;
  bare.set_script(payload.script());
  *bare.mutable_environment() = payload.environment();
  std::string raw = bare.SerializeAsString();
  uLongf size = compressBound(raw.size());
  std::string packed(size, '\0');
  // Level 1: most of the gain for a fraction of the time of the default.
  compress2(reinterpret_cast<Bytef*>(packed.data()), &size,
            reinterpret_cast<const Bytef*>(raw.data()), raw.size(), 1);
  packed.resize(size);
  packed.shrink_to_fit();
  return packed;
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
