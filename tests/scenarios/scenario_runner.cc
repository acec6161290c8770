#include "scenario_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "cli/submit/job_options.h"
#include "common/hostlist.h"
#include "common/memory_size.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "ctld/core/job_shape.h"
#include "model/index_set.h"
#include "sched/select.h"
#include "testing/temp_dir.h"

namespace rota::scenarios {
namespace {

std::string Ids(const std::vector<uint32_t>& ids) {
  model::IndexSet set;
  for (uint32_t id : ids) set.Insert(id);
  std::string text = set.ToString();
  return text.empty() ? "-" : text;
}

// Splits a line as a shell would for simple words and '...' / "..." quotes.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

class Scenario {
 public:
  Result<std::string> Run(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    int number = 0;
    std::string file_name;
    std::string file_text;
    while (std::getline(in, line)) {
      ++number;
      if (!file_name.empty()) {
        if (Trim(line) == "endfile") {
          dir_.Write(file_name, file_text);
          file_name.clear();
          file_text.clear();
        } else {
          file_text += line + "\n";
        }
        continue;
      }
      std::vector<std::string> w = Words(line);
      if (w.empty() || w[0][0] == '#') continue;
      Status s = Step(w, file_name);
      if (!s.ok()) return InvalidArgument(fmt::format("scenario line {}: {}", number, s.message()));
    }
    return out_;
  }

 private:
  Status Step(const std::vector<std::string>& w, std::string& file_name) {
    const std::string& cmd = w[0];
    if (cmd == "file" && w.size() == 2) {
      file_name = w[1];
      return Status::Ok();
    }
    if (cmd == "config" && w.size() == 2) {
      path_ = (rota::testing::SharedDir() / "examples" / w[1] / "slurm.conf").string();
      return Load();
    }
    if (config_ == nullptr && cmd != "config") {
      path_ = (dir_.path() / "slurm.conf").string();
      ROTA_RETURN_IF_ERROR(Load());
    }
    if (cmd == "run" && w.size() >= 2) return Submit(w[1], {w.begin() + 2, w.end()});
    if (cmd == "retry" && w.size() == 2) return Retry(w[1]);
    if (cmd == "end" && w.size() == 2) return End(w[1]);
    if (cmd == "time" && w.size() == 2) {
      now_ = ParseInt(w[1]).value_or(0);
      return Status::Ok();
    }
    if (cmd == "drain" && w.size() == 2) {
      Result<std::vector<std::string>> names = ExpandHostlist(w[1]);
      if (!names.ok()) return names.status();
      for (const std::string& n : *names) drained_.insert(n);
      out_ += "drained " + w[1] + "\n";
      return Status::Ok();
    }
    return InvalidArgument("cannot understand \"" + Join(w, " ") + "\"");
  }

  Status Load() {
    conf::Diagnostics diags;
    Result<std::shared_ptr<const conf::ClusterConfig>> c = conf::LoadClusterConfig(path_, diags);
    if (!c.ok()) return c.status();
    config_ = *c;
    model_ = sched::BuildClusterModel(*config_);
    usage_ = model_.empty_usage;
    return Status::Ok();
  }

  Status Submit(const std::string& name, std::vector<std::string> args) {
    if (jobs_.count(name) > 0) return InvalidArgument("job " + name + " exists already");
    cli::JobOptionsContext context;
    context.cwd = "/tmp";
    args.push_back("--wrap=true");
    Result<cli::ParsedJobOptions> parsed =
        cli::ParseJobOptions(cli::Command::kSbatch, {args, {}}, context);
    if (!parsed.ok()) {
      out_ += name + ": sbatch refuses: " + std::string(Trim(parsed.status().message())) + "\n";
      return Status::Ok();
    }
    wire::JobSpec spec = parsed->spec;
    if (spec.partition().empty()) {
      for (const conf::PartitionConfig& p : config_->partitions) {
        if (p.is_default) spec.set_partition(p.name);
      }
    }
    const conf::PartitionConfig* partition = config_->FindPartition(spec.partition());
    if (partition == nullptr) return InvalidArgument("no partition " + spec.partition());
    Result<ctld::JobShape> shape = ctld::ShapeJob(spec, *partition, *config_, model_);
    Status can_run =
        shape.ok() ? ctld::CheckCanEverRun(*shape, *partition, model_) : shape.status();
    if (!can_run.ok()) {
      std::string message(can_run.message());
      std::replace(message.begin(), message.end(), '\n', ' ');
      out_ += name + ": rejected: " + message + "\n";
      return Status::Ok();
    }
    jobs_[name] = {*shape, partition, now_, std::nullopt};
    return Place(name);
  }

  Status Retry(const std::string& name) {
    auto it = jobs_.find(name);
    if (it == jobs_.end() || it->second.allocation)
      return InvalidArgument("no pending job " + name);
    return Place(name);
  }

  Status Place(const std::string& name) {
    Entry& job = jobs_.at(name);
    sched::Request req = job.shape.request;
    req.switches_wait_over =
        job.shape.switches_wait_s >= 0 && now_ - job.submitted >= job.shape.switches_wait_s;
    std::vector<uint32_t> candidates;
    for (uint32_t i : ctld::PartitionNodeIndices(*job.partition, model_)) {
      if (drained_.count(model_.nodes[i].name) == 0) candidates.push_back(i);
    }
    sched::Selection s = sched::Select(model_, usage_, candidates, req);
    if (!s.allocation) {
      out_ += fmt::format("{}: pending Resources ({})\n", name, s.detail);
      return Status::Ok();
    }
    std::vector<std::string> parts;
    for (const sched::NodeAllocation& a : s.allocation->nodes) {
      const sched::NodeShape& node = model_.nodes[a.node];
      if (!sched::Take(model_, usage_[a.node], a)) {
        return Internal("the placement of " + name + " over-commits " + node.name);
      }
      std::string gpus = a.gpus == 0 ? "" : " gpus=" + Ids(a.gpu_indices());
      std::string types = sched::GpuSummary(model_, a);
      parts.push_back(fmt::format(
          "{} tasks={} cpus={}{}{} mem={}", node.name, a.tasks, Ids(sched::CpuIds(node, a.slots)),
          gpus, types.empty() ? "" : "(" + types + ")", FormatMemoryMb(a.mem_mb)));
    }
    std::string leaves =
        model_.switches.empty() ? "" : fmt::format(" [leaves {}]", s.leaf_switches);
    out_ += name + ": " + Join(parts, "; ") + leaves + "\n";
    job.allocation = std::move(*s.allocation);
    return Status::Ok();
  }

  Status End(const std::string& name) {
    auto it = jobs_.find(name);
    if (it == jobs_.end() || !it->second.allocation)
      return InvalidArgument("no running job " + name);
    for (const sched::NodeAllocation& a : it->second.allocation->nodes) {
      if (!sched::GiveBack(model_, usage_[a.node], a)) return Internal("cannot give back " + name);
    }
    jobs_.erase(it);
    out_ += name + ": ended\n";
    return Status::Ok();
  }

  struct Entry {
    ctld::JobShape shape;
    const conf::PartitionConfig* partition = nullptr;
    int64_t submitted = 0;
    std::optional<sched::Allocation> allocation;
  };

  rota::testing::TempDir dir_;
  std::string path_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  sched::ClusterModel model_;
  std::vector<sched::NodeUsage> usage_;
  std::map<std::string, Entry> jobs_;
  std::set<std::string> drained_;
  int64_t now_ = 0;
  std::string out_;
};

}  // namespace

Result<std::string> RunScenario(const std::string& text) { return Scenario().Run(text); }

}  // namespace rota::scenarios
