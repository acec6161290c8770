#pragma once

// What the sreport tests share: a fixed UTC day, jobs of it, and the parsable
// layout the assertions read.

#include <cstdint>
#include <string>

#include "accounting.pb.h"
#include "cli/accounting/sreport_report.h"

namespace rota::cli::sreport_test {

inline constexpr int64_t kDay = 1'800'000'000 - 1'800'000'000 % 86400;  // A UTC midnight
inline const ReportWindow kWindow{kDay, kDay + 86400};

inline wire::AccountingJob Job(const std::string& user, const std::string& account, int64_t start,
                               int64_t end, const std::string& tres) {
  wire::AccountingJob j;
  j.set_user(user);
  j.set_account(account);
  j.set_start_time(start);
  j.set_end_time(end);
  j.set_alloc_tres(tres);
  return j;
}

// `--parsable2`, two days after kDay.
inline ReportOptions Parsable() {
  ReportOptions o;
  o.layout = SacctLayout::kParsable2;
  o.now = kDay + 86400 * 2;
  return o;
}

// The aligned layout with its header, two days after kDay.
inline ReportOptions Aligned() {
  ReportOptions o;
  o.no_header = false;
  o.now = kDay + 86400 * 2;
  return o;
}

}  // namespace rota::cli::sreport_test
