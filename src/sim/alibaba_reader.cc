#include "sim/alibaba_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

namespace rota::sim {
namespace {

std::vector<std::string_view> SplitCsvLine(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

bool ToInt(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Calls `row` with each data line's fields, addressed by header name.
class CsvTable {
 public:
  static Result<CsvTable> Parse(std::string_view csv, const std::vector<std::string>& needed) {
    CsvTable t;
    size_t pos = 0;
    bool header = true;
    while (pos < csv.size()) {
      size_t nl = csv.find('\n', pos);
      if (nl == std::string_view::npos) nl = csv.size();
      std::string_view line = csv.substr(pos, nl - pos);
      pos = nl + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) continue;
      if (header) {
        std::vector<std::string_view> names = SplitCsvLine(line);
        for (size_t i = 0; i < names.size(); ++i) t.columns_[std::string(names[i])] = i;
        for (const std::string& n : needed) {
          if (t.columns_.count(n) == 0) return InvalidArgument("CSV lacks the column " + n);
        }
        header = false;
        continue;
      }
      t.rows_.push_back(SplitCsvLine(line));
    }
    if (header) return InvalidArgument("empty CSV");
    return t;
  }
  size_t size() const { return rows_.size(); }
  std::string_view Get(size_t row, const std::string& column) const {
    size_t i = columns_.at(column);
    return i < rows_[row].size() ? rows_[row][i] : std::string_view();
  }

 private:
  std::map<std::string, size_t> columns_;
  std::vector<std::vector<std::string_view>> rows_;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Result<std::vector<AlibabaNode>> ParseAlibabaNodes(std::string_view csv) {
  Result<CsvTable> table = CsvTable::Parse(csv, {"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  if (!table.ok()) return table.status();
  std::vector<AlibabaNode> nodes;
  for (size_t r = 0; r < table->size(); ++r) {
    int64_t cpu_milli = 0;
    int64_t memory = 0;
    int64_t gpus = 0;
    if (!ToInt(table->Get(r, "cpu_milli"), cpu_milli) ||
        !ToInt(table->Get(r, "memory_mib"), memory) || !ToInt(table->Get(r, "gpu"), gpus) ||
        cpu_milli < 1000 || memory <= 0 || gpus < 0) {
      return InvalidArgument(fmt::format("node list line {}: not a node", r + 2));
    }
    AlibabaNode& n = nodes.emplace_back();
    n.name = std::string(table->Get(r, "sn"));
    n.cpus = static_cast<uint32_t>(cpu_milli / 1000);
    n.memory_mb = static_cast<uint64_t>(memory);
    n.gpus = static_cast<uint32_t>(gpus);
    n.model = Lower(table->Get(r, "model"));
  }
  return nodes;
}

std::string AlibabaSlurmConf(const std::vector<AlibabaNode>& nodes) {
  std::string text =
      "ClusterName=openb\n"
      "SlurmctldHost=sim\n"
      "SelectType=select/cons_tres\n"
      "SelectTypeParameters=CR_Core_Memory\n"
      "GresTypes=gpu\n";
  for (const AlibabaNode& n : nodes) {
    text += fmt::format("NodeName={} CPUs={} RealMemory={}", n.name, n.cpus, n.memory_mb);
    if (n.gpus > 0) text += fmt::format(" Gres=gpu:{}:{}", n.model, n.gpus);
    text += "\n";
  }
  text += "PartitionName=gpu Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP\n";
  return text;
}

std::string AlibabaGresConf(const std::vector<AlibabaNode>& nodes) {
  std::string text;
  for (const AlibabaNode& n : nodes) {
    if (n.gpus == 0) continue;
    text += fmt::format("NodeName={} Name=gpu Type={} Count={}\n", n.name, n.model, n.gpus);
  }
  return text;
}

Result<Trace> ParseAlibabaPods(std::string_view csv, uint64_t max_jobs) {
  Result<CsvTable> table =
      CsvTable::Parse(csv, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec",
                            "creation_time", "deletion_time", "scheduled_time"});
  if (!table.ok()) return table.status();
  Trace trace;
  for (size_t r = 0; r < table->size(); ++r) {
    if (max_jobs > 0 && trace.jobs.size() >= max_jobs) break;
    ++trace.stats.lines;
    int64_t cpu_milli = 0, memory = 0, num_gpu = 0, gpu_milli = 0;
    int64_t created = 0, deleted = 0, scheduled = 0;
    if (!ToInt(table->Get(r, "cpu_milli"), cpu_milli) ||
        !ToInt(table->Get(r, "memory_mib"), memory) || !ToInt(table->Get(r, "num_gpu"), num_gpu) ||
        !ToInt(table->Get(r, "creation_time"), created)) {
      ++trace.stats.skipped_malformed;
      continue;
    }
    (void)ToInt(table->Get(r, "gpu_milli"), gpu_milli);
    // Pods never scheduled (Pending at the trace's end) have no runtime.
    if (!ToInt(table->Get(r, "scheduled_time"), scheduled) ||
        !ToInt(table->Get(r, "deletion_time"), deleted) || deleted - scheduled <= 0) {
      ++trace.stats.skipped_runtime;
      continue;
    }
    TraceJob& job = trace.jobs.emplace_back();
    job.id = r + 1;
    job.submit_s = created;
    job.runtime_s = deleted - scheduled;
    job.processors = 1;
    job.cpus_per_task = static_cast<uint32_t>(std::max<int64_t>((cpu_milli + 999) / 1000, 1));
    job.mem_mb = static_cast<uint64_t>(std::max<int64_t>(memory, 0));
    job.gpus = static_cast<uint32_t>(std::max<int64_t>(num_gpu, 0));
    if (job.gpus == 1 && gpu_milli > 0 && gpu_milli < 1000) ++trace.stats.rounded_gpus;
    std::string_view spec = table->Get(r, "gpu_spec");
    if (!spec.empty() && spec.find('|') == std::string_view::npos) job.gpu_type = Lower(spec);
  }
  trace.stats.read = trace.jobs.size();
  return trace;
}

}  // namespace rota::sim
