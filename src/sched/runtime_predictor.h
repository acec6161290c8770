#pragma once

// Predicts a job's runtime from its user's recent history: the mean of the
// user's last two finished jobs (Tsafrir, Etsion and Feitelson, "Backfilling
// using system-generated predictions rather than user runtime estimates",
// 2007). Users' own estimates are mostly far too long; their recent jobs are
// a better guide, and a prediction that turns out short only moves a
// reservation, never kills a job.

#include <array>
#include <cstdint>
#include <unordered_map>

namespace rota::sched {

class RuntimePredictor {
 public:
  // Records that one of `user`'s jobs ran for `runtime_s`.
  void Finished(int64_t user, int64_t runtime_s);
  // The prediction for `user`'s next job; 0 when the user has no finished job yet.
  int64_t Predict(int64_t user) const;

 private:
  struct Recent {
    std::array<int64_t, 2> runtimes{};  // The last two, most recent at [count % 2 - 1]
    uint64_t count = 0;
  };
  std::unordered_map<int64_t, Recent> users_;
};

}  // namespace rota::sched
