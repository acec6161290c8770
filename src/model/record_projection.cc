#include "model/record_projection.h"

#include "model/wire_encoding.h"

namespace rota::model {
namespace {

constexpr uint32_t kSpecField = wire::JobRecord::kSpecFieldNumber;

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// A length-delimited field being written in one pass: the length is not
// known until its content is, so room is left for the longest it can be (the
// length of the unreduced content) and the gap closed at the end.
struct OpenField {
  size_t start;      // Where the tag begins.
  size_t length_at;  // Where the length goes.
  size_t room;       // Bytes left for it.
};

OpenField BeginField(std::string& out, uint32_t field, size_t max_size) {
  OpenField open{out.size(), 0, VarintSize(max_size)};
  AppendVarint(out, (static_cast<uint64_t>(field) << 3) | 2);
  open.length_at = out.size();
  out.append(open.room, '\0');
  return open;
}

// Writes the real length; with `drop_if_empty`, removes an empty field.
void EndField(std::string& out, const OpenField& open, bool drop_if_empty) {
  const size_t size = out.size() - open.length_at - open.room;
  if (size == 0 && drop_if_empty) {
    out.resize(open.start);
    return;
  }
  // Usually the length needs all the room left for it: write it in place.
  size_t need = VarintSize(size);
  if (need < open.room) out.erase(open.length_at + need, open.room - need);
  uint64_t v = size;
  for (size_t i = 0; i < need; ++i, v >>= 7) {
    out[open.length_at + i] = static_cast<char>((v & 0x7f) | (i + 1 < need ? 0x80 : 0));
  }
}

// Appends `spec` reduced to the spec fields in `fields`, as field 2 of a
// JobRecord (nothing if no field is left). False if `spec` is malformed.
bool AppendProjectedSpec(std::string_view spec, const JobFieldSet& fields, std::string& out) {
  const OpenField open = BeginField(out, kSpecField, spec.size());
  WireField f;
  for (size_t pos = 0; pos < spec.size();) {
    if (!ReadWireField(spec, pos, f)) return false;
    if (fields.HasSpec(f.number)) out.append(f.encoded);
  }
  EndField(out, open, /*drop_if_empty=*/true);
  return true;
}

}  // namespace

JobFieldSet& JobFieldSet::AddRecord(std::initializer_list<int> fields) {
  for (int f : fields) record_.set(static_cast<size_t>(f));
  return *this;
}

JobFieldSet& JobFieldSet::AddSpec(std::initializer_list<int> fields) {
  for (int f : fields) spec_.set(static_cast<size_t>(f));
  return *this;
}

JobFieldSet& JobFieldSet::Add(const JobFieldSet& other) {
  record_ |= other.record_;
  spec_ |= other.spec_;
  return *this;
}

void JobFieldSet::ToRequest(wire::ListJobsRequest& request) const {
  request.clear_record_fields();
  request.clear_spec_fields();
  for (uint32_t f = 1; f < kMaxField; ++f) {
    if (record_.test(f)) request.add_record_fields(f);
    if (spec_.test(f)) request.add_spec_fields(f);
  }
}

JobFieldSet JobFieldSet::FromRequest(const wire::ListJobsRequest& request) {
  JobFieldSet set;
  for (uint32_t f : request.record_fields()) {
    if (f >= kMaxField) return {};
    set.record_.set(f);
  }
  for (uint32_t f : request.spec_fields()) {
    if (f >= kMaxField) return {};
    set.spec_.set(f);
  }
  return set;
}

bool AppendProjectedRecord(std::string_view record, const JobFieldSet& fields, std::string& out) {
  WireField f;
  for (size_t pos = 0; pos < record.size();) {
    if (!ReadWireField(record, pos, f)) return false;
    if (f.number == kSpecField) {
      // Proto3 may split a message field over several occurrences; each is
      // reduced on its own and the reader merges them as it would the whole.
      if (!AppendProjectedSpec(f.payload, fields, out)) return false;
    } else if (fields.HasRecord(f.number)) {
      out.append(f.encoded);
    }
  }
  return true;
}

bool AppendProjectedRecordField(uint32_t field, std::string_view record, const JobFieldSet& fields,
                                std::string& out) {
  const OpenField open = BeginField(out, field, record.size());
  if (!AppendProjectedRecord(record, fields, out)) return false;
  EndField(out, open, /*drop_if_empty=*/false);
  return true;
}

}  // namespace rota::model
