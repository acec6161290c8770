#include "noded/stepd/task_gpu_binding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/strings.h"

namespace rota::noded {
namespace {

Status Invalid(std::string_view text, std::string_view why) {
  return InvalidArgument(fmt::format("invalid --gpu-bind argument '{}': {}", text, why));
}

std::optional<uint64_t> ParseNumber(std::string_view s, bool hex_default) {
  s = Trim(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    hex_default = true;
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (hex_default && c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (hex_default && c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    v = v * (hex_default ? 16 : 10) + static_cast<uint64_t>(digit);
  }
  return v;
}

bool Meets(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  for (uint32_t x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  }
  return false;
}

}  // namespace

Result<GpuBindSpec> ParseGpuBind(std::string_view text) {
  GpuBindSpec spec;
  std::string_view rest = Trim(text);
  if (rest.rfind("verbose", 0) == 0) {
    spec.verbose = true;
    rest.remove_prefix(7);
    if (!rest.empty() && rest[0] == ',') rest.remove_prefix(1);
  }
  if (rest.empty()) return spec;
  size_t colon = rest.find(':');
  std::string_view kind = rest.substr(0, colon);
  std::string_view args = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
  if (kind == "none" || kind == "closest") {
    if (colon != std::string_view::npos) return Invalid(text, "takes no list");
    spec.kind = kind == "none" ? GpuBindSpec::Kind::kNone : GpuBindSpec::Kind::kClosest;
    return spec;
  }
  if (kind == "single") {
    std::optional<uint64_t> n = ParseNumber(args, false);
    if (!n || *n == 0) return Invalid(text, "single needs a task count above 0");
    spec.kind = GpuBindSpec::Kind::kSingle;
    spec.tasks_per_gpu = static_cast<uint32_t>(*n);
    return spec;
  }
  if (kind == "map_gpu" || kind == "mask_gpu") {
    const bool mask = kind == "mask_gpu";
    spec.kind = mask ? GpuBindSpec::Kind::kMaskGpu : GpuBindSpec::Kind::kMapGpu;
    for (std::string_view item : Split(args, ',')) {
      // "1*2": the value for two tasks in a row.
      uint64_t repeat = 1;
      if (size_t star = item.find('*'); star != std::string_view::npos) {
        std::optional<uint64_t> r = ParseNumber(item.substr(star + 1), false);
        if (!r || *r == 0 || *r > 4096) return Invalid(text, "bad repeat count");
        repeat = *r;
        item = item.substr(0, star);
      }
      std::optional<uint64_t> v = ParseNumber(item, mask);
      if (!v || (mask && *v == 0)) return Invalid(text, fmt::format("bad value '{}'", item));
      for (uint64_t i = 0; i < repeat; ++i) spec.values.push_back(*v);
    }
    if (spec.values.empty()) return Invalid(text, "empty list");
    return spec;
  }
  return Invalid(text, "expected none, closest, single:N, map_gpu:LIST or mask_gpu:LIST");
}

std::vector<uint32_t> CpusOfCores(const std::vector<uint32_t>& cores, uint32_t threads_per_core) {
  threads_per_core = std::max<uint32_t>(1, threads_per_core);
  std::vector<uint32_t> cpus;
  for (uint32_t core : cores) {
    for (uint32_t t = 0; t < threads_per_core; ++t) cpus.push_back(core * threads_per_core + t);
  }
  return cpus;
}

Result<TaskGpuBinding> BindTaskGpus(const GpuBindSpec& spec, const TaskGpuRequest& request) {
  TaskGpuBinding out;
  std::vector<uint32_t> all;
  for (const JobGpu& g : request.gpus) all.push_back(g.index);
  const uint32_t tasks = request.local_tasks;
  auto held = [&](uint64_t index) { return std::find(all.begin(), all.end(), index) != all.end(); };
  using Kind = GpuBindSpec::Kind;
  Kind kind = spec.kind;
  if (kind == Kind::kDefault && request.gpus_per_task == 0) kind = Kind::kNone;
  if (kind == Kind::kNone || all.empty()) {
    out.task_gpus.assign(tasks, all);
    return out;
  }
  out.per_task = true;
  const uint32_t per_task = std::max<uint32_t>(1, request.gpus_per_task);
  switch (kind) {
    case Kind::kDefault:
    case Kind::kClosest: {
      if (static_cast<uint64_t>(per_task) * tasks > all.size()) {
        return InvalidArgument(fmt::format("{} tasks x {} GPUs do not fit the job's {} GPUs here",
                                           tasks, per_task, all.size()));
      }
      std::vector<bool> taken(request.gpus.size(), false);
      for (uint32_t t = 0; t < tasks; ++t) {
        std::vector<uint32_t> mine;
        // Closest first: GPUs whose affinity meets the task's CPUs, then any.
        for (int pass = kind == Kind::kClosest ? 0 : 1; pass < 2 && mine.size() < per_task;
             ++pass) {
          for (size_t g = 0; g < request.gpus.size() && mine.size() < per_task; ++g) {
            if (taken[g]) continue;
            if (pass == 0 && (t >= request.task_cpus.size() ||
                              !Meets(request.gpus[g].cpus, request.task_cpus[t]))) {
              continue;
            }
            taken[g] = true;
            mine.push_back(request.gpus[g].index);
          }
        }
        std::sort(mine.begin(), mine.end());
        out.task_gpus.push_back(std::move(mine));
      }
      return out;
    }
    case Kind::kSingle: {
      for (uint32_t t = 0; t < tasks; ++t) {
        uint32_t g = t / spec.tasks_per_gpu;
        if (g >= all.size()) {
          return InvalidArgument(fmt::format(
              "single:{} needs {} GPUs for {} tasks; the job holds {} here", spec.tasks_per_gpu,
              (tasks + spec.tasks_per_gpu - 1) / spec.tasks_per_gpu, tasks, all.size()));
        }
        out.task_gpus.push_back({all[g]});
      }
      return out;
    }
    case Kind::kMapGpu:
    case Kind::kMaskGpu: {
      for (uint32_t t = 0; t < tasks; ++t) {
        uint64_t v = spec.values[t % spec.values.size()];
        std::vector<uint32_t> mine;
        if (kind == Kind::kMapGpu) {
          if (!held(v)) return InvalidArgument(fmt::format("GPU {} is not the job's here", v));
          mine.push_back(static_cast<uint32_t>(v));
        } else {
          for (uint32_t bit = 0; bit < 64; ++bit) {
            if ((v >> bit & 1) == 0) continue;
            if (!held(bit)) {
              return InvalidArgument(
                  fmt::format("GPU {} (mask {:#x}) is not the job's here", bit, v));
            }
            mine.push_back(bit);
          }
        }
        out.task_gpus.push_back(std::move(mine));
      }
      return out;
    }
    case Kind::kNone:
      break;
  }
  return out;
}

std::string DescribeTaskGpus(uint32_t task, const std::vector<uint32_t>& gpus) {
  uint64_t mask = 0;
  for (uint32_t g : gpus) mask |= g < 64 ? uint64_t{1} << g : 0;
  return fmt::format("gpu-bind: usable_gres={:#x}; task {}; global_list={}", mask, task,
                     fmt::join(gpus, ","));
}

}  // namespace rota::noded
