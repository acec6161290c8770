#include "cli/accounting/sreport_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>

#include "cli/accounting/sreport_fields.h"
#include "common/strings.h"
#include "common/tres.h"

namespace rota::cli {
namespace {

struct NamedTime {
  std::string_view name;
  ReportTime time;
};
// Plain units first, so that "s", "sec" mean Seconds and "secp" SecPer.
constexpr std::array kTimeNames = {
    NamedTime{"seconds", {ReportUnit::kSeconds, false}},
    NamedTime{"minutes", {ReportUnit::kMinutes, false}},
    NamedTime{"hours", {ReportUnit::kHours, false}},
    NamedTime{"secper", {ReportUnit::kSeconds, true}},
    NamedTime{"minper", {ReportUnit::kMinutes, true}},
    NamedTime{"hourper", {ReportUnit::kHours, true}},
};

int64_t Divisor(ReportUnit unit) {
  switch (unit) {
    case ReportUnit::kSeconds:
      return 1;
    case ReportUnit::kMinutes:
      return 60;
    case ReportUnit::kHours:
      return 3600;
  }
  return 60;
}

std::string_view UnitName(ReportUnit unit) {
  switch (unit) {
    case ReportUnit::kSeconds:
      return "Seconds";
    case ReportUnit::kMinutes:
      return "Minutes";
    case ReportUnit::kHours:
      return "Hours";
  }
  return "Minutes";
}

}  // namespace

std::string TimeValue(double tres_seconds, double total_seconds, const ReportTime& time) {
  const uint64_t units = static_cast<uint64_t>(std::floor(tres_seconds / Divisor(time.unit)));
  if (!time.percent) return std::to_string(units);
  const double share = total_seconds > 0 ? 100.0 * tres_seconds / total_seconds : 0.0;
  return fmt::format("{}({:.2f}%)", units, share);
}

std::string LocalStamp(int64_t t, int64_t utc_offset_s) {
  const time_t shifted = static_cast<time_t>(t + utc_offset_s);
  std::tm tm{};
  gmtime_r(&shifted, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

std::string Banner(const std::string& title, const ReportOptions& o) {
  const std::string rule(80, '-');
  return fmt::format("{}\n{}\nUsage reported in {} {}{}\n{}\n", rule, title,
                     o.tres_named ? "TRES" : "CPU", UnitName(o.time.unit),
                     o.time.percent ? "/Percentage of Total" : "", rule);
}

PlainColumn Column(std::string_view header, int width, const ReportOptions& o, bool left) {
  std::string h(header);
  if (o.layout == SacctLayout::kAligned && h.size() > static_cast<size_t>(width)) {
    h.resize(static_cast<size_t>(width));
  }
  return {h, width, left};
}

namespace {

uint64_t TresCountOf(const wire::AccountingJob& job, const std::string& tres) {
  Result<TresCounts> counts = TresCounts::Parse(job.alloc_tres());
  if (counts.ok() && counts->Has(tres)) return counts->Get(tres);
  if (tres == "cpu") return job.alloc_cpus();
  if (tres == "node") return job.alloc_nodes();
  return 0;
}

}  // namespace

Result<ReportTime> ParseReportTime(std::string_view text) {
  const std::string lower = ToLower(Trim(text));
  if (!lower.empty()) {
    for (const NamedTime& n : kTimeNames) {
      if (n.name.substr(0, lower.size()) == lower) return n.time;
    }
  }
  return InvalidArgument(fmt::format("unknown time format {}", text));
}

Result<std::vector<std::string>> ParseReportTres(std::string_view list) {
  std::vector<std::string> out;
  for (std::string_view item : Split(list, ',')) {
    if (Trim(item).empty()) continue;
    Result<std::string> key = CanonicalTresKey(Trim(item));
    if (!key.ok() ||
        (*key != "cpu" && *key != "mem" && *key != "node" && key->rfind("gres/gpu", 0) != 0)) {
      return InvalidArgument(fmt::format("TRES {} is not reported (cpu, mem, node, gres/gpu)",
                                         std::string(Trim(item))));
    }
    out.push_back(*key);
  }
  if (out.empty()) return InvalidArgument("no TRES given");
  return out;
}

uint64_t TresCapacity(const conf::ClusterConfig& config, const std::string& tres) {
  uint64_t total = 0;
  for (const conf::NodeConfig& node : config.nodes) {
    if (tres == "cpu") {
      total += node.cpus;
    } else if (tres == "mem") {
      total += node.real_memory_mb;
    } else if (tres == "node") {
      ++total;
    } else if (tres.rfind("gres/", 0) == 0) {
      // "gres/gpu" counts every GPU, "gres/gpu:a100" those of the type.
      std::string_view rest = std::string_view(tres).substr(5);
      const size_t colon = rest.find(':');
      const std::string_view name = rest.substr(0, colon);
      const std::string_view type =
          colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
      for (const GresSpec& g : node.gres) {
        if (g.name == name && (type.empty() || g.type == type)) total += g.count;
      }
    }
  }
  return total;
}

double AllocatedTresSeconds(const wire::AccountingJob& job, const std::string& tres,
                            const ReportWindow& window, int64_t now) {
  if (job.start_time() <= 0) return 0;
  const int64_t end = job.end_time() > 0 ? job.end_time() : now;
  const int64_t from = std::max(job.start_time(), window.start);
  const int64_t to = std::min(end, window.end);
  if (to <= from) return 0;
  return static_cast<double>(TresCountOf(job, tres)) * static_cast<double>(to - from);
}

double DownTresSeconds(const wire::NodeEvent& event, const std::string& tres,
                       const ReportWindow& window, int64_t now) {
  // A job's idle GPUs (Rota's GPU_IDLE events) take nothing out of service.
  if (event.state() == "GPU_IDLE") return 0;
  const int64_t end = event.time_end() > 0 ? event.time_end() : now;
  const int64_t from = std::max(event.time_start(), window.start);
  const int64_t to = std::min(end, window.end);
  if (to <= from) return 0;
  uint64_t count = 0;
  Result<TresCounts> counts = TresCounts::Parse(event.tres());
  if (counts.ok() && counts->Has(tres)) {
    count = counts->Get(tres);
  } else if (tres == "cpu") {
    count = event.cpus();
  } else if (tres == "node") {
    count = 1;
  }
  return static_cast<double>(count) * static_cast<double>(to - from);
}

std::string ClusterUtilizationReport(const std::string& cluster,
                                     const std::vector<std::string>& tres,
                                     const std::map<std::string, uint64_t>& capacity,
                                     const std::vector<wire::AccountingJob>& jobs,
                                     const ReportWindow& window, const ReportOptions& o,
                                     const std::vector<wire::NodeEvent>& events) {
  std::string out;
  if (!o.no_header) {
    out +=
        Banner(fmt::format("Cluster Utilization {} - {}", LocalStamp(window.start, o.utc_offset_s),
                           LocalStamp(window.end - 1, o.utc_offset_s)),
               o);
  }
  std::vector<UtilizationLine> lines;
  const double seconds = static_cast<double>(window.end - window.start);
  for (const std::string& t : tres) {
    auto cap = capacity.find(t);
    const uint64_t count = cap == capacity.end() ? 0 : cap->second;
    const double reported = static_cast<double>(count) * seconds;
    double allocated = 0;
    for (const wire::AccountingJob& job : jobs) {
      allocated += AllocatedTresSeconds(job, t, window, o.now);
    }
    // Records that claim more than the machine has (overlapping attempts,
    // a smaller configuration now) do not make Idle negative.
    allocated = std::min(allocated, reported);
    double down = 0;
    for (const wire::NodeEvent& e : events) down += DownTresSeconds(e, t, window, o.now);
    down = std::min(down, reported - allocated);
    UtilizationLine line;
    line.cluster = cluster;
    line.tres = t;
    line.tres_count = count;
    line.allocated = allocated;
    line.down = down;
    // Reservations and the queue's history are not recorded: no PLND Down,
    // Planned or OverCommitted time.
    line.idle = reported - allocated - down;
    line.reported = reported;
    lines.push_back(std::move(line));
  }
  out += RenderUtilization(lines, o);
  return out;
}

std::string UserTopUsageReport(const std::string& cluster, const std::vector<std::string>& tres,
                               const std::map<std::string, uint64_t>& capacity,
                               const std::vector<wire::AccountingJob>& jobs,
                               const ReportWindow& window, uint32_t top_count, bool group_accounts,
                               const std::map<std::string, std::string>& proper_names,
                               const ReportOptions& o) {
  std::string out;
  if (!o.no_header) {
    out +=
        Banner(fmt::format("Top {} Users {} - {} ({} secs)", top_count,
                           LocalStamp(window.start, o.utc_offset_s),
                           LocalStamp(window.end - 1, o.utc_offset_s), window.end - window.start),
               o);
  }
  // Usage per (user, account), or per user with the accounts listed.
  struct Usage {
    std::string user;
    std::vector<std::string> accounts;
    std::map<std::string, double> seconds;  // By TRES
  };
  std::map<std::pair<std::string, std::string>, Usage> by_key;
  for (const wire::AccountingJob& job : jobs) {
    const std::string key_account = group_accounts ? std::string() : job.account();
    Usage& u = by_key[{job.user(), key_account}];
    u.user = job.user();
    if (std::find(u.accounts.begin(), u.accounts.end(), job.account()) == u.accounts.end()) {
      u.accounts.push_back(job.account());
    }
    for (const std::string& t : tres) u.seconds[t] += AllocatedTresSeconds(job, t, window, o.now);
  }
  std::vector<Usage> ranked;
  for (auto& [key, u] : by_key) {
    std::sort(u.accounts.begin(), u.accounts.end());
    if (u.seconds[tres.front()] > 0) ranked.push_back(std::move(u));
  }
  // Sorted by the first TRES, most first; ties by login for a stable listing.
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Usage& a, const Usage& b) {
    const double x = a.seconds.at(tres.front()), y = b.seconds.at(tres.front());
    return x != y ? x > y : a.user < b.user;
  });
  if (ranked.size() > top_count) ranked.resize(top_count);

  const double seconds = static_cast<double>(window.end - window.start);
  std::vector<UsageLine> lines;
  for (const Usage& u : ranked) {
    auto proper = proper_names.find(u.user);
    for (const std::string& t : tres) {
      auto cap = capacity.find(t);
      UsageLine line;
      line.cluster = cluster;
      line.account = Join(u.accounts, ",");
      line.login = u.user;
      line.proper_name = proper == proper_names.end() ? "" : proper->second;
      line.tres = t;
      line.used = u.seconds.at(t);
      line.total = (cap == capacity.end() ? 0.0 : static_cast<double>(cap->second)) * seconds;
      lines.push_back(std::move(line));
    }
  }
  out += RenderUsage(SreportReport::kTopUsage, lines, o);
  return out;
}

}  // namespace rota::cli
