#pragma once

// A ListJobsResponse read lazily, for listings of 100,000 jobs: the answer's
// bytes are only split into one slice per job record, and each record is
// parsed when it is asked for, into one reused message. Parsing every record
// into its own message up front cost more than everything else squeue does
// (a JobRecord and a JobSpec object per job, most of their fields unread,
// and the page faults of touching all that memory once).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "rota.pb.h"

namespace rota::cli {

class JobListing {
 public:
  // Splits `body`, a serialized ListJobsResponse. InvalidArgument if it is
  // not one (each record is checked only when loaded).
  static Result<JobListing> Parse(std::string body);

  size_t size() const { return records_.size(); }
  // The controller's clock when it made the listing (ListJobsResponse.now).
  int64_t now() const { return now_; }
  // How the controller's planned starts have turned out (StartP50/StartP90).
  const wire::StartForecastRatios& forecast() const { return forecast_; }

  // Job `i` (< size()), parsed into a message owned by this listing that the
  // next Load reuses; the caller may change it until then. nullptr if the
  // record does not parse.
  wire::JobRecord* Load(size_t i);

 private:
  JobListing() = default;

  struct Slice {
    size_t offset;
    size_t size;
  };

  std::string body_;
  std::vector<Slice> records_;  // Offsets, not views: body_ may move (SSO).
  int64_t now_ = 0;
  wire::StartForecastRatios forecast_;
  wire::JobRecord job_;
};

// Whether `text` names a job as squeue -j takes it: a job id above zero,
// alone, with an array task ("12_3", "12_[1-4]") or a component ("12+1").
bool IsJobIdText(std::string_view text);

}  // namespace rota::cli
