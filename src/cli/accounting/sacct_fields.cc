#include "cli/accounting/sacct_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "cli/format/time_text.h"
#include "common/duration.h"
#include "common/hostlist.h"
#include "common/memory_size.h"
#include "common/strings.h"
#include "common/tres.h"
#include "model/job_state.h"

namespace rota::cli {
namespace {

using Extract = std::string (*)(const wire::AccountingJob& job, const SacctContext& ctx);

struct SacctField {
  std::string_view name;  // As printed in the header
  int width;              // Default width
  bool left;              // Left-justified (JobID, NodeList), else right
  Extract value;
};

std::string Time(int64_t t, const SacctContext& ctx) {
  return t > 0 ? format::FormatIsoTime(t, ctx.utc_offset_s) : "Unknown";
}

int64_t ElapsedSeconds(const wire::AccountingJob& j, const SacctContext& ctx) {
  if (j.start_time() <= 0) return 0;
  int64_t end = j.end_time() > 0 ? j.end_time() : ctx.now;
  return std::max<int64_t>(0, end - j.start_time());
}

// A count from the requested TRES ("cpu", "node"); 0 when absent.
uint32_t Requested(const wire::AccountingJob& j, std::string_view tres) {
  Result<TresCounts> req = TresCounts::Parse(j.req_tres());
  return req.ok() ? static_cast<uint32_t>(req->Get(tres)) : 0;
}

uint32_t Cpus(const wire::AccountingJob& j) {
  return j.alloc_cpus() > 0 ? j.alloc_cpus() : Requested(j, "cpu");
}

uint32_t Nodes(const wire::AccountingJob& j) {
  return j.alloc_nodes() > 0 ? j.alloc_nodes() : Requested(j, "node");
}

std::string JobId(const wire::AccountingJob& j, const SacctContext& ctx) {
  std::string id = j.array_job_id() != 0 ? fmt::format("{}_{}", j.array_job_id(), j.array_task_id())
                                         : std::to_string(j.job_id());
  if (!ctx.step.empty()) id += "." + ctx.step;
  return id;
}

// What a batch step shows for its job's final state: the script was killed
// (CANCELLED) when the job ran out of time, was preempted or requeued.
wire::JobState BatchState(wire::JobState job) {
  switch (job) {
    case wire::JOB_STATE_TIMEOUT:
    case wire::JOB_STATE_PREEMPTED:
    case wire::JOB_STATE_DEADLINE:
    case wire::JOB_STATE_REQUEUED:
    case wire::JOB_STATE_NODE_FAIL:
      return wire::JOB_STATE_CANCELLED;
    case wire::JOB_STATE_COMPLETING:
      return wire::JOB_STATE_RUNNING;
    default:
      return job;
  }
}

// The fields a step row shares with its job.
wire::AccountingJob StepBase(const wire::AccountingJob& job) {
  wire::AccountingJob r;
  r.set_cluster(job.cluster());
  r.set_job_id(job.job_id());
  r.set_restarts(job.restarts());
  r.set_array_job_id(job.array_job_id());
  r.set_array_task_id(job.array_task_id());
  r.set_account(job.account());
  r.set_uid(job.uid());
  r.set_qos(job.qos());
  r.set_time_limit_s(job.time_limit_s());
  r.set_reason(job.reason());
  return r;
}

// The usage fields of a step row; blank on a job's row and where unmeasured.
const wire::StepUsage* Measured(const SacctContext& ctx) {
  return ctx.usage != nullptr && ctx.usage->tasks() > 0 ? ctx.usage : nullptr;
}
std::string MaxRss(const wire::AccountingJob&, const SacctContext& ctx) {
  const wire::StepUsage* u = Measured(ctx);
  return u != nullptr ? SacctMemoryKb(u->max_rss_kb()) : "";
}
std::string MaxRssNode(const wire::AccountingJob&, const SacctContext& ctx) {
  const wire::StepUsage* u = Measured(ctx);
  return u != nullptr ? u->max_rss_node() : "";
}
std::string MaxRssTask(const wire::AccountingJob&, const SacctContext& ctx) {
  const wire::StepUsage* u = Measured(ctx);
  return u != nullptr ? std::to_string(u->max_rss_task()) : "";
}
std::string AveRss(const wire::AccountingJob&, const SacctContext& ctx) {
  const wire::StepUsage* u = Measured(ctx);
  return u != nullptr ? SacctMemoryKb(u->ave_rss_kb()) : "";
}
// Virtual sizes are not measured (usage.proto says why): always blank.
std::string MaxVmSize(const wire::AccountingJob&, const SacctContext&) { return ""; }
std::string TresUsageInMax(const wire::AccountingJob&, const SacctContext& ctx) {
  const wire::StepUsage* u = Measured(ctx);
  return u != nullptr ? "mem=" + SacctMemoryKb(u->max_rss_kb()) : "";
}

const std::array<SacctField, 32> kFields = {{
    {"JobID", 12, true, JobId},
    {"JobIDRaw", 12, true,
     [](const wire::AccountingJob& j, const SacctContext& ctx) {
       return ctx.step.empty() ? std::to_string(j.job_id())
                               : fmt::format("{}.{}", j.job_id(), ctx.step);
     }},
    {"JobName", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return j.name(); }},
    {"Partition", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return j.partition(); }},
    {"Account", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return j.account(); }},
    {"AllocCPUS", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return std::to_string(Cpus(j)); }},
    {"AllocTRES", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return SacctTres(j.alloc_tres()); }},
    {"ReqTRES", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return SacctTres(j.req_tres()); }},
    {"ReqMem", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) {
       return FormatMemoryMb(j.req_mem_mb());
     }},
    {"Elapsed", 10, false,
     [](const wire::AccountingJob& j, const SacctContext& ctx) {
       return SacctElapsed(ElapsedSeconds(j, ctx));
     }},
    {"ElapsedRaw", 10, false,
     [](const wire::AccountingJob& j, const SacctContext& ctx) {
       return std::to_string(ElapsedSeconds(j, ctx));
     }},
    {"State", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return SacctState(j); }},
    {"ExitCode", 8, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return SacctExitCode(j); }},
    {"Start", 19, false,
     [](const wire::AccountingJob& j, const SacctContext& ctx) {
       return Time(j.start_time(), ctx);
     }},
    {"End", 19, false,
     [](const wire::AccountingJob& j, const SacctContext& ctx) { return Time(j.end_time(), ctx); }},
    {"Submit", 19, false,
     [](const wire::AccountingJob& j, const SacctContext& ctx) {
       return Time(j.submit_time(), ctx);
     }},
    {"NodeList", 15, true,
     [](const wire::AccountingJob& j, const SacctContext&) {
       return j.nodelist().empty() ? std::string("None assigned") : j.nodelist();
     }},
    {"Reason", 20, false,
     [](const wire::AccountingJob& j, const SacctContext&) {
       return j.reason().empty() ? std::string("None") : j.reason();
     }},
    {"Restarts", 8, false,
     [](const wire::AccountingJob& j, const SacctContext&) {
       return std::to_string(j.restarts());
     }},
    {"User", 9, false, [](const wire::AccountingJob& j, const SacctContext&) { return j.user(); }},
    {"UID", 6, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return std::to_string(j.uid()); }},
    {"Timelimit", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) {
       // -1 (and the 0 of a record that never had one) is no limit at all.
       return j.time_limit_s() > 0 ? FormatDurationScontrol(j.time_limit_s())
                                   : FormatDurationScontrol(kInfiniteDuration);
     }},
    {"NNodes", 8, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return std::to_string(Nodes(j)); }},
    {"AllocNodes", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) {
       return std::to_string(j.alloc_nodes());
     }},
    {"NCPUS", 10, false,
     [](const wire::AccountingJob& j, const SacctContext&) { return std::to_string(Cpus(j)); }},
    {"ReqCPUS", 8, false,
     [](const wire::AccountingJob& j, const SacctContext&) {
       return std::to_string(Requested(j, "cpu"));
     }},
    {"MaxRSS", 10, false, MaxRss},
    {"MaxRSSNode", 10, false, MaxRssNode},
    {"MaxRSSTask", 10, false, MaxRssTask},
    {"AveRSS", 10, false, AveRss},
    {"MaxVMSize", 10, false, MaxVmSize},
    {"TRESUsageInMax", 14, false, TresUsageInMax},
}};

}  // namespace

std::string SacctTres(const std::string& tres) {
  if (tres.empty()) return "";
  std::vector<std::string_view> items = Split(tres, ',');
  std::sort(items.begin(), items.end(), [](std::string_view a, std::string_view b) {
    return a.substr(0, a.find('=')) < b.substr(0, b.find('='));
  });
  std::string out;
  for (std::string_view item : items) {
    if (!out.empty()) out += ',';
    out.append(item);
  }
  return out;
}

std::string SacctMemoryKb(uint64_t kb) {
  static constexpr char kUnits[] = {'K', 'M', 'G', 'T', 'P'};
  if (kb == 0) return "0";
  size_t unit = 0;
  while (kb % 1024 == 0 && unit + 1 < sizeof kUnits) {
    kb /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", kb, kUnits[unit]);
}

std::string SacctState(const wire::AccountingJob& job) {
  std::string name(model::JobStateName(job.state()));
  if (job.state() == wire::JOB_STATE_CANCELLED && job.cancelled()) {
    name += fmt::format(" by {}", job.cancelled_by_uid());
  }
  return name;
}

std::string SacctExitCode(const wire::AccountingJob& job) {
  // Slurm's job line shows 0:0 for a cancelled job; the signal that ended the
  // script belongs to its batch step.
  if (job.state() == wire::JOB_STATE_CANCELLED && job.cancelled()) return "0:0";
  const uint32_t status = job.exit_code();
  return fmt::format("{}:{}", (status >> 8) & 0xff, status & 0x7f);
}

std::string SacctElapsed(int64_t seconds) {
  const int64_t days = seconds / 86400;
  const int64_t rest = seconds % 86400;
  std::string hms = fmt::format("{:02}:{:02}:{:02}", rest / 3600, rest / 60 % 60, rest % 60);
  return days > 0 ? fmt::format("{}-{}", days, hms) : hms;
}

Result<std::vector<SacctColumn>> ParseSacctFormat(std::string_view format) {
  std::vector<SacctColumn> columns;
  for (std::string_view item : format::SplitFieldList(format)) {
    std::optional<format::NamedWidth> entry = format::ParseNamedWidth(item);
    if (!entry) return InvalidArgument(fmt::format("Invalid field requested: \"{}\"", item));
    const std::string_view name = entry->name;
    std::optional<int> width;
    if (entry->width) width = static_cast<int>(*entry->width);
    const std::string lower = ToLower(name);
    auto it = std::find_if(kFields.begin(), kFields.end(),
                           [&](const SacctField& f) { return ToLower(f.name) == lower; });
    if (it == kFields.end()) {
      return InvalidArgument(fmt::format("Invalid field requested: \"{}\"", name));
    }
    columns.push_back({static_cast<int>(it - kFields.begin()), width.value_or(it->width)});
  }
  if (columns.empty()) return InvalidArgument("No fields requested");
  return columns;
}

std::string RenderSacct(const std::vector<SacctColumn>& columns, SacctLayout layout, bool no_header,
                        const std::vector<wire::AccountingJob>& jobs, const SacctContext& ctx) {
  std::string out;
  out.reserve((jobs.size() + 2) * columns.size() * 12);
  std::vector<format::TableColumn> table;
  table.reserve(columns.size());
  for (const SacctColumn& c : columns) {
    const SacctField& f = kFields[static_cast<size_t>(c.field)];
    table.push_back({std::string(f.name), c.width, f.left});
  }
  auto line = [&](auto&& value) {
    format::AppendTableLine(out, table, layout, [&](size_t i) {
      return value(kFields[static_cast<size_t>(columns[i].field)]);
    });
  };
  if (!no_header) format::AppendTableHeader(out, table, layout);
  for (const wire::AccountingJob& job : jobs) {
    auto only = ctx.only_steps.find(job.job_id());
    const bool whole = only == ctx.only_steps.end();
    if (whole) line([&](const SacctField& f) { return f.value(job, ctx); });
    if (!ctx.steps && whole) continue;
    for (const SacctStepRow& row : SacctStepRows(job)) {
      if (!whole &&
          std::find(only->second.begin(), only->second.end(), row.step) == only->second.end()) {
        continue;
      }
      SacctContext step_ctx = ctx;
      step_ctx.step = row.step;
      step_ctx.usage = &row.usage;
      line([&](const SacctField& f) { return f.value(row.record, step_ctx); });
    }
  }
  return out;
}

std::vector<SacctStepRow> SacctStepRows(const wire::AccountingJob& job) {
  std::vector<SacctStepRow> rows;
  if (job.start_time() <= 0 || job.nodelist().empty()) return rows;
  if (job.extern_step()) {
    // Held on every node from the job's start to its end, with no task of
    // its own: it ends well however the job ends.
    wire::AccountingJob r = StepBase(job);
    r.set_name("extern");
    r.set_state(job.ended() ? wire::JOB_STATE_COMPLETED : wire::JOB_STATE_RUNNING);
    r.set_ended(job.ended());
    r.set_submit_time(job.start_time());
    r.set_start_time(job.start_time());
    r.set_end_time(job.end_time());
    r.set_nodelist(job.nodelist());
    r.set_alloc_cpus(job.alloc_cpus());
    r.set_alloc_nodes(job.alloc_nodes());
    r.set_alloc_tres(job.alloc_tres());
    rows.push_back({"extern", std::move(r), {}});
  }
  if (job.batch()) {
    wire::AccountingJob r = StepBase(job);
    r.set_name("batch");
    r.set_state(BatchState(job.state()));
    r.set_ended(job.ended());
    r.set_exit_code(job.exit_code());
    r.set_submit_time(job.start_time());
    r.set_start_time(job.start_time());
    r.set_end_time(job.end_time());
    Result<std::vector<std::string>> nodes = ExpandHostlist(job.nodelist());
    r.set_nodelist(nodes.ok() && !nodes->empty() ? nodes->front() : job.nodelist());
    r.set_alloc_cpus(job.batch_cpus());
    r.set_alloc_nodes(1);
    r.set_alloc_tres(job.batch_tres());
    rows.push_back({"batch", std::move(r), job.batch_usage()});
  }
  for (const wire::AccountingStep& step : job.steps()) {
    wire::AccountingJob r = StepBase(job);
    r.set_name(step.name());
    r.set_state(step.state());
    r.set_ended(step.end_time() > 0);
    r.set_exit_code(step.exit_code());
    r.set_submit_time(step.start_time());
    r.set_start_time(step.start_time());
    r.set_end_time(step.end_time());
    r.set_nodelist(step.nodelist());
    r.set_alloc_cpus(step.alloc_cpus());
    r.set_alloc_nodes(step.alloc_nodes());
    r.set_alloc_tres(step.alloc_tres());
    rows.push_back({std::to_string(step.step_id()), std::move(r), step.usage()});
  }
  return rows;
}

std::string RenderColumns(const std::vector<PlainColumn>& columns, SacctLayout layout,
                          bool no_header, const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  if (!no_header) format::AppendTableHeader(out, columns, layout);
  for (const std::vector<std::string>& row : rows) {
    format::AppendTableLine(out, columns, layout,
                            [&](size_t i) { return i < row.size() ? row[i] : std::string(); });
  }
  return out;
}

}  // namespace rota::cli
