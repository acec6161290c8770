#include "noded/gpu/discovery/gpu_sampler.h"

#include <fmt/format.h>

namespace rota::noded {

std::string GpuEventText(const GpuEvent& event) {
  switch (event.kind) {
    case GpuEventKind::kXid:
      return fmt::format("XID {}", event.code);
    case GpuEventKind::kDoubleBitEcc:
      return "uncorrectable ECC error";
    case GpuEventKind::kFallenOffBus:
      return "fallen off the bus";
    case GpuEventKind::kRetiredPagesPending:
      return "retired pages pending";
  }
  return "unknown event";
}

}  // namespace rota::noded
