#pragma once

// sacct -j: the jobs, array tasks and steps a list names ("28", "28.batch",
// "30_2", "30_2.0"). An id names its job, or every task of the array of that
// id, as in Slurm; "30_2" names one task. rotadbd is asked for the ids, and
// what comes back is cut down to what was named.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "accounting.pb.h"
#include "common/status.h"

namespace rota::cli {

class SacctJobSelection {
 public:
  // Adds the pieces of one -j list; fails on the first bad piece with
  // Slurm's message ("Bad job/step specified: X").
  Status Add(std::string_view list);
  bool empty() const { return items_.empty(); }

  // The job ids to ask rotadbd for (array ids bring their tasks).
  std::vector<uint32_t> QueryIds() const;

  // Drops from `jobs` what no piece names; a job named only with steps gets
  // those steps in `only_steps` (keyed by its job id), a job also named
  // whole does not.
  void Apply(std::vector<wire::AccountingJob>& jobs,
             std::map<uint32_t, std::vector<std::string>>& only_steps) const;

 private:
  struct Item {
    uint32_t id = 0;
    std::optional<uint32_t> task;  // "30_2"
    std::string step;              // "batch", "0"; empty: the whole job
  };
  bool Names(const Item& item, const wire::AccountingJob& job) const;

  std::vector<Item> items_;
};

}  // namespace rota::cli
