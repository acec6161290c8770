#include "sim/replay_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

namespace rota::sim {
namespace {

// Changes to the cluster's state at one instant.
struct Delta {
  int64_t waiting = 0;
  int64_t cpus = 0;
  int64_t gpus = 0;
};

constexpr int kWidth = 900;
constexpr int kPanelHeight = 220;
constexpr int kLeft = 70;
constexpr int kRight = 20;
constexpr int kTop = 40;
constexpr int kGap = 60;
constexpr size_t kSamples = 800;

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Duration(int64_t s) {
  if (s >= 2 * 86400) return fmt::format("{:.1f} d", s / 86400.0);
  if (s >= 2 * 3600) return fmt::format("{:.1f} h", s / 3600.0);
  if (s >= 120) return fmt::format("{:.0f} min", s / 60.0);
  return fmt::format("{} s", s);
}

// A panel's frame, its title and the time axis' labels at both ends.
void Frame(std::ostream& out, int top, const std::string& title, int64_t t0, int64_t t1) {
  const int plot_w = kWidth - kLeft - kRight;
  out << fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", kLeft,
      top, plot_w, kPanelHeight);
  out << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\">{}</text>\n", kLeft, top - 8,
                     Escape(title));
  if (t1 >= t0) {
    out << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", kLeft,
                       top + kPanelHeight + 14, Duration(0));
    out << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
                       kLeft + plot_w, top + kPanelHeight + 14, Duration(t1 - t0));
  }
}

// A step line through (time, value) with values scaled so that `max_value` is the top.
void Polyline(std::ostream& out, const std::vector<PlotSample>& samples, int top, double max_value,
              const char* color, double (*value)(const PlotSample&)) {
  if (samples.empty() || max_value <= 0) return;
  const int64_t t0 = samples.front().time_s;
  const double span = std::max<int64_t>(1, samples.back().time_s - t0);
  const double plot_w = kWidth - kLeft - kRight;
  out << fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" points=\"", color);
  for (const PlotSample& s : samples) {
    const double x = kLeft + (static_cast<double>(s.time_s - t0) / span) * plot_w;
    const double y = top + kPanelHeight - std::min(1.0, value(s) / max_value) * kPanelHeight;
    out << fmt::format("{:.1f},{:.1f} ", x, y);
  }
  out << "\"/>\n";
}

}  // namespace

std::vector<PlotSample> SampleReplay(const SimResult& result, uint64_t total_cpus,
                                     uint64_t total_gpus, size_t samples) {
  std::map<int64_t, Delta> deltas;
  int64_t first = std::numeric_limits<int64_t>::max();
  int64_t last = std::numeric_limits<int64_t>::min();
  for (const JobOutcome& o : result.jobs) {
    if (!o.refused.empty()) continue;
    first = std::min(first, o.submit);
    last = std::max(last, o.submit);
    deltas[o.submit].waiting += 1;
    if (o.start < 0) continue;
    deltas[o.start].waiting -= 1;
    deltas[o.start].cpus += o.cpus;
    deltas[o.start].gpus += o.gpus;
    last = std::max(last, o.start);
    if (o.end < 0) continue;
    deltas[o.end].cpus -= o.cpus;
    deltas[o.end].gpus -= o.gpus;
    last = std::max(last, o.end);
  }
  std::vector<PlotSample> out;
  if (deltas.empty() || samples == 0) return out;
  const int64_t span = last - first;
  const size_t n = std::max<size_t>(1, std::min<size_t>(samples, static_cast<size_t>(span) + 1));
  out.reserve(n);
  Delta state;
  auto next = deltas.begin();
  for (size_t i = 0; i < n; ++i) {
    const int64_t t = n == 1 ? first : first + static_cast<int64_t>(span * i / (n - 1));
    // Everything that happened up to and including `t`.
    for (; next != deltas.end() && next->first <= t; ++next) {
      state.waiting += next->second.waiting;
      state.cpus += next->second.cpus;
      state.gpus += next->second.gpus;
    }
    PlotSample s;
    s.time_s = t;
    s.waiting = static_cast<uint64_t>(std::max<int64_t>(0, state.waiting));
    s.cpu_utilization = total_cpus ? static_cast<double>(state.cpus) / total_cpus : 0;
    s.gpu_utilization = total_gpus ? static_cast<double>(state.gpus) / total_gpus : 0;
    out.push_back(s);
  }
  return out;
}

std::vector<WaitBin> WaitHistogram(const SimResult& result) {
  std::vector<WaitBin> bins = {
      {"< 1 min", 60},
      {"1-10 min", 600},
      {"10-60 min", 3600},
      {"1-6 h", 6 * 3600},
      {"6-24 h", 86400},
      {"1-7 d", 7 * 86400},
      {"> 7 d", std::numeric_limits<int64_t>::max()},
  };
  for (const JobOutcome& o : result.jobs) {
    if (!o.refused.empty() || o.start < 0) continue;
    const int64_t wait = o.start - o.submit;
    for (WaitBin& b : bins) {
      if (wait < b.upper_s) {
        ++b.jobs;
        break;
      }
    }
  }
  return bins;
}

void WriteReplayPlot(std::ostream& out, const SimResult& result, uint64_t total_cpus,
                     uint64_t total_gpus, const std::string& title) {
  const std::vector<PlotSample> samples = SampleReplay(result, total_cpus, total_gpus, kSamples);
  const std::vector<WaitBin> bins = WaitHistogram(result);
  const int height = kTop + 3 * (kPanelHeight + kGap);
  out << fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\">\n",
      kWidth, height);
  out << fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", kWidth, height);
  out << fmt::format("<text x=\"{}\" y=\"22\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
                     kLeft, Escape(title));
  const int64_t t0 = samples.empty() ? 0 : samples.front().time_s;
  const int64_t t1 = samples.empty() ? -1 : samples.back().time_s;

  // Panel 1: jobs waiting.
  uint64_t max_waiting = 0;
  for (const PlotSample& s : samples) max_waiting = std::max(max_waiting, s.waiting);
  int top = kTop + 20;
  Frame(out, top, fmt::format("Jobs waiting (max {})", max_waiting), t0, t1);
  Polyline(out, samples, top, static_cast<double>(max_waiting), "#c0392b",
           [](const PlotSample& s) { return static_cast<double>(s.waiting); });

  // Panel 2: utilization, CPUs and (when the cluster has any) GPUs.
  top += kPanelHeight + kGap;
  Frame(out, top, total_gpus ? "Utilization: CPUs (blue), GPUs (green)" : "CPU utilization", t0,
        t1);
  out << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">100%</text>\n",
                     kLeft - 4, top + 10);
  Polyline(out, samples, top, 1.0, "#2471a3",
           [](const PlotSample& s) { return s.cpu_utilization; });
  if (total_gpus) {
    Polyline(out, samples, top, 1.0, "#229954",
             [](const PlotSample& s) { return s.gpu_utilization; });
  }

  // Panel 3: how long jobs waited.
  top += kPanelHeight + kGap;
  uint64_t max_jobs = 0;
  for (const WaitBin& b : bins) max_jobs = std::max(max_jobs, b.jobs);
  Frame(out, top, "Waiting time of started jobs", 0, -1);
  const double slot = static_cast<double>(kWidth - kLeft - kRight) / bins.size();
  for (size_t i = 0; i < bins.size(); ++i) {
    const double h =
        max_jobs ? static_cast<double>(bins[i].jobs) / max_jobs * (kPanelHeight - 20) : 0;
    const double x = kLeft + slot * i + slot * 0.15;
    out << fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#7d3c98\"/>\n",
        x, top + kPanelHeight - h, slot * 0.7, h);
    out << fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
        x + slot * 0.35, top + kPanelHeight - h - 4, bins[i].jobs);
    out << fmt::format(
        "<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
        x + slot * 0.35, top + kPanelHeight + 14, Escape(bins[i].label));
  }
  out << "</svg>\n";
}

}  // namespace rota::sim
