#include "sched/runtime_predictor.h"

namespace rota::sched {

void RuntimePredictor::Finished(int64_t user, int64_t runtime_s) {
  Recent& r = users_[user];
  r.runtimes[r.count % 2] = runtime_s;
  ++r.count;
}

int64_t RuntimePredictor::Predict(int64_t user) const {
  auto it = users_.find(user);
  if (it == users_.end() || it->second.count == 0) return 0;
  const Recent& r = it->second;
  if (r.count == 1) return r.runtimes[0];
  // Rounded up: a prediction of 0 s would mean "no prediction".
  return (r.runtimes[0] + r.runtimes[1] + 1) / 2;
}

}  // namespace rota::sched
