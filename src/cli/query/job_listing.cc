#include "cli/query/job_listing.h"

#include <google/protobuf/io/coded_stream.h>

#include "model/wire_encoding.h"

namespace rota::cli {

Result<JobListing> JobListing::Parse(std::string body) {
  JobListing listing;
  listing.body_ = std::move(body);
  const std::string_view bytes = listing.body_;
  model::WireField f;
  for (size_t pos = 0; pos < bytes.size();) {
    if (!model::ReadWireField(bytes, pos, f)) {
      return InvalidArgument("malformed answer from the controller");
    }
    if (f.number == wire::ListJobsResponse::kJobsFieldNumber && f.wire_type == 2) {
      listing.records_.push_back(
          {static_cast<size_t>(f.payload.data() - bytes.data()), f.payload.size()});
    } else if (f.number == wire::ListJobsResponse::kNowFieldNumber && f.wire_type == 0) {
      listing.now_ = static_cast<int64_t>(f.varint);
    } else if (f.number == wire::ListJobsResponse::kForecastFieldNumber && f.wire_type == 2) {
      if (!listing.forecast_.ParseFromArray(f.payload.data(), static_cast<int>(f.payload.size()))) {
        return InvalidArgument("malformed answer from the controller");
      }
    }
    // Fields added to the answer later are skipped, as a parser would.
  }
  return listing;
}

wire::JobRecord* JobListing::Load(size_t i) {
  // Clear() keeps the strings' memory but deletes the spec, and the parse
  // would allocate a new one: keep it aside, cleared, so that after the first
  // job no load allocates. (A record without a spec then reads as one with
  // an empty spec, which every reader takes the same way.)
  wire::JobSpec* spec = job_.release_spec();
  job_.Clear();
  if (spec == nullptr) spec = new wire::JobSpec();
  spec->Clear();
  job_.set_allocated_spec(spec);
  const Slice r = records_[i];
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(body_.data() + r.offset), static_cast<int>(r.size));
  if (!job_.MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) return nullptr;
  return &job_;
}

bool IsJobIdText(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || text.find_first_not_of('0') >= digits) return false;
  const std::string_view rest = text.substr(digits);
  if (rest.empty()) return true;
  if (rest.size() < 2) return false;
  if (rest.front() == '+') return rest.find_first_not_of("0123456789", 1) == std::string_view::npos;
  if (rest.front() != '_') return false;
  std::string_view tasks = rest.substr(1);
  if (tasks.front() == '[') {
    if (tasks.size() < 3 || tasks.back() != ']') return false;
    tasks = tasks.substr(1, tasks.size() - 2);
    return tasks.find_first_not_of("0123456789,-:%") == std::string_view::npos;
  }
  return tasks == "*" || tasks.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace rota::cli
