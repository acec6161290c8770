#pragma once

// Licenses= (slurm.conf): the cluster's licenses, how many of each the
// jobs holding an allocation use, and whether a job's -L request fits in
// what is left. A job waiting for licenses pends with reason Licenses
// without holding back the jobs behind it. Pure.

#include <string>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "conf/license_list.h"
#include "ctld/core/job_table.h"
#include "rota.pb.h"

namespace rota::ctld {

// Checks a job's -L request against the cluster's licenses and returns it
// written canonically ("bar:1,foo:2"); fails with Slurm's "Invalid license
// specification" for an unknown name or more than the cluster has.
Result<std::string> CheckLicenseRequest(const conf::LicenseCounts& cluster,
                                        const std::string& request);

class LicensePool {
 public:
  explicit LicensePool(const conf::LicenseCounts& cluster) : total_(cluster) {}

  // Counts `job`'s licenses when it holds its allocation (running,
  // suspended, completing).
  void Count(const wire::JobRecord& job);
  // Whether the licenses `spec` asks for are free now (true when it asks none).
  bool Available(const wire::JobSpec& spec) const;
  // Counts the licenses of a job just started.
  void Take(const wire::JobSpec& spec);
  uint32_t Used(const std::string& name) const;

 private:
  conf::LicenseCounts total_;
  conf::LicenseCounts used_;
};

// The cluster's licenses with those of every job of `jobs` holding an
// allocation counted.
LicensePool LicensesInUse(const conf::ClusterConfig& config, const JobTable& jobs);

}  // namespace rota::ctld
