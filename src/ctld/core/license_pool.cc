#include "ctld/core/license_pool.h"

namespace rota::ctld {
namespace {

constexpr char kInvalidLicense[] = "Invalid license specification";

// The request of a job the controller accepted; it checked it at submit.
conf::LicenseCounts RequestOf(const wire::JobSpec& spec) {
  if (spec.licenses().empty()) return {};
  return conf::ParseLicenseList(spec.licenses()).value_or(conf::LicenseCounts{});
}

}  // namespace

Result<std::string> CheckLicenseRequest(const conf::LicenseCounts& cluster,
                                        const std::string& request) {
  Result<conf::LicenseCounts> asked = conf::ParseLicenseList(request);
  if (!asked.ok()) return InvalidArgument(kInvalidLicense);
  for (const auto& [name, count] : *asked) {
    auto have = cluster.find(name);
    if (have == cluster.end() || count > have->second) return InvalidArgument(kInvalidLicense);
  }
  return conf::FormatLicenseList(*asked);
}

void LicensePool::Count(const wire::JobRecord& job) {
  const wire::JobState s = job.state();
  if (s != wire::JOB_STATE_RUNNING && s != wire::JOB_STATE_SUSPENDED &&
      s != wire::JOB_STATE_COMPLETING) {
    return;
  }
  Take(job.spec());
}

bool LicensePool::Available(const wire::JobSpec& spec) const {
  for (const auto& [name, count] : RequestOf(spec)) {
    auto have = total_.find(name);
    // A license gone from slurm.conf since the job was accepted never frees up.
    if (have == total_.end() || Used(name) + count > have->second) return false;
  }
  return true;
}

void LicensePool::Take(const wire::JobSpec& spec) {
  for (const auto& [name, count] : RequestOf(spec)) used_[name] += count;
}

uint32_t LicensePool::Used(const std::string& name) const {
  auto it = used_.find(name);
  return it == used_.end() ? 0 : it->second;
}

LicensePool LicensesInUse(const conf::ClusterConfig& config, const JobTable& jobs) {
  LicensePool pool(config.settings.licenses);
  if (!config.settings.licenses.empty()) {
    for (const auto& [id, live] : jobs.live()) pool.Count(**live);
  }
  return pool;
}

}  // namespace rota::ctld
