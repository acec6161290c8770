#pragma once

// A listing projection: the subset of a JobRecord's fields (and of its
// JobSpec's) that a command will read. squeue of 10,000 jobs spent most of its
// time parsing fields it never printed; with a projection the controller sends
// only what the format and sort need, and the message stays a JobRecord, so
// every reader of JobRecord works on it unchanged.
//
// The projection is applied to the wire bytes of a record, not through
// reflection: it copies the wanted fields' bytes as they are, so a field added
// to the schema later is projected correctly without touching this code.

#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "rota.pb.h"

namespace rota::model {

// Field numbers of JobRecord and of JobSpec, as two sets. Empty (both sets):
// no projection, the whole record.
class JobFieldSet {
 public:
  // Field numbers at or above this are never projected away: a reader asking
  // for one gets the whole record (see ToRequest).
  static constexpr uint32_t kMaxField = 256;

  JobFieldSet() = default;

  JobFieldSet& AddRecord(std::initializer_list<int> fields);
  JobFieldSet& AddSpec(std::initializer_list<int> fields);
  JobFieldSet& Add(const JobFieldSet& other);

  bool empty() const { return record_.none() && spec_.none(); }
  bool HasRecord(uint32_t field) const { return field < kMaxField && record_[field]; }
  bool HasSpec(uint32_t field) const { return field < kMaxField && spec_[field]; }

  // Writes the set into a ListJobsRequest's record_fields/spec_fields.
  void ToRequest(wire::ListJobsRequest& request) const;
  // The set a request asks for (empty: whole records). A field number at or
  // above kMaxField makes it empty, since this reader could not honour it.
  static JobFieldSet FromRequest(const wire::ListJobsRequest& request);

 private:
  std::bitset<kMaxField> record_;
  std::bitset<kMaxField> spec_;
};

// Appends to `out` the serialized JobRecord `record` reduced to `fields`:
// the record's fields whose numbers are in the set, in their original order,
// and its `spec` (field 2) reduced to the spec fields in the set (absent when
// none of them is). REQUIRES: `record` is a well-formed serialized JobRecord
// and `fields` is not empty. False, with `out` unspecified, if the bytes do not
// parse as protobuf wire format.
bool AppendProjectedRecord(std::string_view record, const JobFieldSet& fields, std::string& out);
// The same, as length-delimited field `field` of an enclosing message (an
// element of ListJobsResponse.jobs), written in one pass.
bool AppendProjectedRecordField(uint32_t field, std::string_view record, const JobFieldSet& fields,
                                std::string& out);

}  // namespace rota::model
