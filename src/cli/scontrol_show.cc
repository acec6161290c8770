#include "cli/scontrol_show.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "cli/format/job_stdio_paths.h"
#include "cli/slurm_time.h"
#include "common/duration.h"
#include "common/hostlist.h"
#include "common/memory_size.h"
#include "model/job_state.h"
#include "model/mail_type.h"

namespace rota::cli {
namespace {

// Joins the lines of a record: "first\n   second\n   third\n" or, for -o,
// "first second third".
std::string Layout(const std::vector<std::string>& lines, bool one_liner) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (one_liner) {
      out += (i == 0 ? "" : " ") + lines[i];
    } else {
      out += (i == 0 ? "" : "   ") + lines[i] + "\n";
    }
  }
  if (one_liner) out += " \n";
  return out;
}

std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }

// A pending reason as one word, as Slurm's scontrol writes it so that the
// KEY=VALUE line splits on blanks: "ReqNodeNotAvail,_Reserved_for_maintenance".
std::string ReasonWord(std::string reason) {
  std::replace_if(
      reason.begin(), reason.end(), [](unsigned char c) { return std::isspace(c) != 0; }, '_');
  return reason;
}

std::string Limit(int64_t secs) { return secs < 0 ? "UNLIMITED" : FormatDurationScontrol(secs); }

std::string JobIdText(const wire::JobRecord& job) {
  std::string out = fmt::format("JobId={}", job.job_id());
  if (job.array_job_id() != 0) {
    out +=
        fmt::format(" ArrayJobId={} ArrayTaskId={}", job.array_job_id(),
                    job.array_meta() ? job.array_pending() : std::to_string(job.array_task_id()));
    if (job.array_max_running() > 0)
      out += fmt::format(" ArrayTaskThrottle={}", job.array_max_running());
  }
  return out;
}

}  // namespace

std::string FormatJobDetails(const wire::JobRecord& job, int64_t now, bool one_liner,
                             bool details) {
  const wire::JobSpec& s = job.spec();
  bool pending = job.state() == wire::JOB_STATE_PENDING;
  bool running = job.state() == wire::JOB_STATE_RUNNING;
  int64_t run_time = running   ? now - job.start_time()
                     : pending ? 0
                               : job.end_time() - job.start_time();
  // A pending job shows the backfill pass's plan: when, and until when.
  const bool planned = pending && job.sched_start_time() > 0;
  int64_t start_time = planned ? job.sched_start_time() : job.start_time();
  int64_t end_time = job.end_time();
  if (planned) end_time = job.time_limit_s() >= 0 ? start_time + job.time_limit_s() : 0;
  int exit_status = (job.exit_code() >> 8) & 0xff;
  int exit_signal = job.exit_code() & 0x7f;
  std::vector<std::string> lines = {
      fmt::format("{} JobName={}", JobIdText(job), s.name()),
      fmt::format("UserId={}({}) GroupId={}({}) MCS_label=N/A", s.user(), s.uid(), s.group(),
                  s.gid()),
      fmt::format("Priority={} Nice={} Account={} QOS={}", job.priority(), s.nice(),
                  OrNull(s.account()), s.qos().empty() ? "normal" : s.qos()),
      fmt::format("JobState={} Reason={} Dependency={}", model::JobStateName(job.state()),
                  ReasonWord(job.reason()), OrNull(job.dependency_state())),
      fmt::format("Requeue={} Restarts={} BatchFlag=1 Reboot=0 ExitCode={}:{}",
                  job.requeue() ? 1 : 0, job.restart_count(), exit_status, exit_signal),
      fmt::format("RunTime={} TimeLimit={} TimeMin=N/A",
                  FormatDurationScontrol(std::max<int64_t>(0, run_time)),
                  Limit(job.time_limit_s())),
      fmt::format(
          "SubmitTime={} EligibleTime={}", FormatSlurmTime(job.submit_time()),
          job.priority() == 0 && pending ? "Unknown" : FormatSlurmTime(job.eligible_time())),
      fmt::format("AccrueTime={}", job.priority() == 0 && pending
                                       ? "Unknown"
                                       : FormatSlurmTime(job.eligible_time())),
      fmt::format("StartTime={} EndTime={} Deadline={}", FormatSlurmTime(start_time),
                  end_time > 0 ? FormatSlurmTime(end_time) : "Unknown",
                  FormatSlurmTime(s.deadline(), "N/A")),
      fmt::format(
          "SuspendTime={} SecsPreSuspend=0 LastSchedEval={} Scheduler=Main",
          FormatSlurmTime(job.suspend_time(), "None"),
          FormatSlurmTime(job.last_sched_eval() > 0 ? job.last_sched_eval() : job.submit_time())),
      fmt::format("Partition={} AllocNode:Sid={}:0", s.partition(), s.submit_host()),
      fmt::format("ReqNodeList={} ExcNodeList={}", OrNull(s.nodelist()), OrNull(s.exclude())),
      fmt::format("NodeList={}", CompressHostlist({job.nodes().begin(), job.nodes().end()})),
  };
  if (job.preempt_time() > 0) {  // Chosen by a preemptor: when
    lines.insert(lines.begin() + 9, fmt::format("PreemptEligibleTime={} PreemptTime={}",
                                                FormatSlurmTime(job.start_time(), "None"),
                                                FormatSlurmTime(job.preempt_time())));
  }
  if (pending && !job.sched_nodes().empty()) {
    lines.push_back(fmt::format("SchedNodeList={}", job.sched_nodes()));
  }
  if (running && job.nodes_size() > 0) lines.push_back(fmt::format("BatchHost={}", job.nodes(0)));
  uint32_t nodes = job.nodes_size() > 0 ? job.nodes_size() : std::max(1u, job.req_nodes());
  uint32_t cpt = std::max(1u, s.cpus_per_task());
  // Tasks as the allocation placed them (--ntasks-per-node and friends), else as asked.
  uint32_t tasks = 0;
  for (const wire::NodeAlloc& a : job.allocs()) tasks += a.tasks();
  if (tasks == 0) tasks = std::max(1u, s.num_tasks());
  // A per-node minimum the job did not ask for prints as "*", but for the
  // sockets of ReqB:S:C:T, which Slurm prints as 0.
  auto star = [](uint32_t v) { return v == 0 ? std::string("*") : std::to_string(v); };
  lines.push_back(
      fmt::format("NumNodes={} NumCPUs={} NumTasks={} CPUs/Task={} ReqB:S:C:T=0:{}:{}:{}", nodes,
                  job.alloc_cpus(), tasks, cpt, s.sockets_per_node(), star(s.cores_per_socket()),
                  star(s.threads_per_core())));
  // The allocation's TRES, else (pending) what the job asks for.
  const std::string& tres = !job.alloc_tres().empty() ? job.alloc_tres() : job.req_tres();
  lines.push_back(fmt::format(
      "TRES={}", !tres.empty() ? tres
                               : fmt::format("cpu={},node={},billing={}", job.alloc_cpus(), nodes,
                                             job.alloc_cpus())));
  lines.push_back(fmt::format("Socks/Node={} NtasksPerN:B:S:C={}:0:{}:{} CoreSpec=*",
                              star(s.sockets_per_node()), s.ntasks_per_node(),
                              star(s.ntasks_per_socket()), star(s.ntasks_per_core())));
  if (details && job.allocs_size() == job.nodes_size() && job.nodes_size() > 0) {
    std::vector<std::string> gres;
    for (const wire::NodeAlloc& a : job.allocs()) {
      if (!a.gpu_types().empty()) gres.push_back(a.gpu_types());
    }
    lines.push_back(fmt::format("JOB_GRES={}", gres.empty() ? "(null)" : "gpu:" + gres[0]));
    for (int i = 0; i < job.nodes_size(); ++i) {
      const wire::NodeAlloc& a = job.allocs(i);
      std::string gpus = a.gpu_ids().empty()
                             ? ""
                             : fmt::format(" GRES=gpu:{}(IDX:{})", a.gpu_types(), a.gpu_ids());
      lines.push_back(fmt::format("  Nodes={} CPU_IDs={} Mem={}{}", job.nodes(i), a.cpu_ids(),
                                  a.mem_mb(), gpus));
    }
  }
  std::string mem = s.mem_per_cpu_mb() > 0
                        ? fmt::format("MinMemoryCPU={}", FormatMemoryMb(s.mem_per_cpu_mb()))
                    : s.mem_per_node_mb() > 0
                        ? fmt::format("MinMemoryNode={}", FormatMemoryMb(s.mem_per_node_mb()))
                        : "MinMemoryNode=0";
  lines.push_back(fmt::format("MinCPUsNode={} {} MinTmpDiskNode={}",
                              std::max(cpt, s.min_cpus_per_node()), mem,
                              s.tmp_disk_mb() == 0 ? "0" : FormatMemoryMb(s.tmp_disk_mb())));
  lines.push_back(fmt::format("Features={} DelayBoot=00:00:00", OrNull(s.constraint())));
  if (!s.reservation().empty()) lines.push_back(fmt::format("Reservation={}", s.reservation()));
  lines.push_back(fmt::format("OverSubscribe={} Contiguous={} Licenses={} Network=(null)",
                              s.exclusive()       ? "NO"
                              : s.oversubscribe() ? "YES"
                                                  : "OK",
                              s.contiguous() ? 1 : 0, OrNull(s.licenses())));
  lines.push_back(fmt::format("Command={}", s.argv_size() > 0 ? s.argv(0) : "(null)"));
  lines.push_back(fmt::format("WorkDir={}", s.work_dir()));
  if (!s.comment().empty()) lines.push_back(fmt::format("Comment={}", s.comment()));
  lines.push_back("StdErr=" + JobStderrPath(job));
  lines.push_back("StdIn=" + JobStdinPath(job));
  lines.push_back("StdOut=" + JobStdoutPath(job));
  lines.push_back("Power=");
  std::string tres_per_node;
  if (!s.gres().empty()) tres_per_node = "gres:" + s.gres();
  if (!s.gpus_per_node().empty()) tres_per_node = "gres:gpu:" + s.gpus_per_node();
  // The GPU requests by job, node, socket and task, as the job gave them
  // ("gres:gpu:2", "gres:gpu:a100:1").
  if (!s.gpus().empty()) lines.push_back(fmt::format("TresPerJob=gres:gpu:{}", s.gpus()));
  if (!tres_per_node.empty()) lines.push_back(fmt::format("TresPerNode={}", tres_per_node));
  if (!s.gpus_per_socket().empty()) {
    lines.push_back(fmt::format("TresPerSocket=gres:gpu:{}", s.gpus_per_socket()));
  }
  if (!s.gpus_per_task().empty()) {
    lines.push_back(fmt::format("TresPerTask=gres:gpu:{}", s.gpus_per_task()));
  }
  // --cpus-per-gpu / --mem-per-gpu as the job gave them (slurm.conf's
  // DefCpuPerGPU / DefMemPerGPU stay defaults and are not shown, as in Slurm).
  if (s.cpus_per_gpu() > 0) {
    lines.push_back(fmt::format("CpusPerTres=gres:gpu:{}", s.cpus_per_gpu()));
  }
  if (s.mem_per_gpu_mb() > 0) {
    lines.push_back(fmt::format("MemPerTres=gres:gpu:{}", s.mem_per_gpu_mb()));
  }
  if (s.ntasks_per_gpu() > 0) lines.push_back(fmt::format("NtasksPerTRES:{}", s.ntasks_per_gpu()));
  // Rota's own, only for a job whose GPUs are flagged idle (docs/gpu-efficiency.md).
  if (job.gpu_idle_since() > 0) {
    std::string line = fmt::format("GpuIdleSince={} GpuIdleUtil={:.1f}%",
                                   FormatSlurmTime(job.gpu_idle_since()), job.gpu_idle_util());
    if (job.gpu_idle_action_at() > 0) {
      line += fmt::format(" GpuIdleActionTime={}", FormatSlurmTime(job.gpu_idle_action_at()));
    }
    lines.push_back(std::move(line));
  }
  // As Slurm: only for a job that asked for mail.
  if (s.mail_type() != 0 && !s.mail_user().empty()) {
    lines.push_back(fmt::format("MailUser={} MailType={}", s.mail_user(),
                                model::FormatMailType(s.mail_type())));
  }
  lines.push_back("");
  std::string out = Layout(lines, one_liner);
  return one_liner ? out : out + "\n";
}

std::string FormatNodeDetails(const wire::NodeInfo& n, bool one_liner) {
  const wire::NodeRecord& r = n.record();
  std::vector<std::string> features = {n.features().begin(), n.features().end()};
  std::string feature_text =
      features.empty() ? "(null)" : fmt::format("{}", fmt::join(features, ","));
  std::vector<std::string> partitions = {n.partitions().begin(), n.partitions().end()};
  std::string alloc_tres;
  if (n.alloc_cpus() > 0) {
    alloc_tres = fmt::format("cpu={},mem={}", n.alloc_cpus(), FormatMemoryMb(n.alloc_mem_mb()));
  }
  std::vector<std::string> lines = {
      fmt::format("NodeName={} Arch=x86_64 CoresPerSocket={} ", r.name(), n.cores_per_socket()),
      fmt::format("CPUAlloc={} CPUEfctv={} CPUTot={} CPULoad=0.00", n.alloc_cpus(), n.cpus(),
                  n.cpus()),
      fmt::format("AvailableFeatures={}", feature_text),
      fmt::format("ActiveFeatures={}", feature_text),
      fmt::format("Gres={}", n.gres().empty() ? "(null)" : n.gres()),
      fmt::format("NodeAddr={} NodeHostName={} Port={}", n.address(), n.hostname(), n.port()),
      fmt::format("RealMemory={} AllocMem={} Sockets={} Boards={}", n.real_memory_mb(),
                  n.alloc_mem_mb(), n.sockets(), n.boards()),
      fmt::format("State={} ThreadsPerCore={} TmpDisk=0 Weight={} Owner=N/A MCS_label=N/A",
                  r.state(), n.threads_per_core(), n.weight()),
      fmt::format("Partitions={} ", fmt::join(partitions, ",")),
      fmt::format("BootTime={} SlurmdStartTime={}", FormatSlurmTime(n.boot_time(), "None"),
                  FormatSlurmTime(n.slurmd_start_time(), "None")),
      fmt::format("CfgTRES=cpu={},mem={},billing={}", n.cpus(), FormatMemoryMb(n.real_memory_mb()),
                  n.cpus()),
      fmt::format("AllocTRES={}", alloc_tres),
  };
  if (!r.reason().empty()) {
    lines.push_back(fmt::format("Reason={} [{}@{}]", r.reason(), r.reason_uid(),
                                FormatSlurmTime(r.reason_time())));
  }
  std::string out = Layout(lines, one_liner);
  return one_liner ? out : out + "\n";
}

std::string FormatPartitionDetails(const conf::PartitionConfig& p,
                                   const conf::ClusterConfig& config, bool one_liner) {
  auto list = [](const std::vector<std::string>& v) {
    return v.empty() ? std::string("ALL") : fmt::format("{}", fmt::join(v, ","));
  };
  uint32_t cpus = 0;
  for (const std::string& name : p.nodes) cpus += config.FindNode(name)->cpus;
  std::vector<std::string> lines = {
      fmt::format("PartitionName={}", p.name),
      fmt::format("AllowGroups={} AllowAccounts={} AllowQos={}", list(p.allow_groups),
                  list(p.allow_accounts), list(p.allow_qos)),
      fmt::format("AllocNodes=ALL Default={} QoS={}", p.is_default ? "YES" : "NO",
                  p.qos.empty() ? "N/A" : p.qos),
      fmt::format("DefaultTime={} DisableRootJobs=NO ExclusiveUser={} GraceTime={} Hidden={}",
                  p.default_time
                      ? Limit(*p.default_time == kInfiniteDuration ? -1 : *p.default_time)
                      : "NONE",
                  p.exclusive_user ? "YES" : "NO", p.grace_time, p.hidden ? "YES" : "NO"),
      fmt::format("MaxNodes={} MaxTime={} MinNodes={} LLN=NO MaxCPUsPerNode=UNLIMITED",
                  p.max_nodes == conf::kUnlimitedCount ? "UNLIMITED" : std::to_string(p.max_nodes),
                  Limit(p.max_time == kInfiniteDuration ? -1 : p.max_time), p.min_nodes),
      fmt::format("Nodes={}", p.nodes.empty() ? "(null)" : CompressHostlist(p.nodes)),
      fmt::format("PriorityJobFactor={} PriorityTier={} RootOnly=NO ReqResv=NO OverSubscribe={}",
                  p.priority_job_factor, p.priority_tier, p.oversubscribe),
      fmt::format("OverTimeLimit=NONE PreemptMode={}",
                  p.preempt_mode.empty() ? "OFF" : p.preempt_mode),
      fmt::format("State={} TotalCPUs={} TotalNodes={} SelectTypeParameters=NONE", p.state, cpus,
                  p.nodes.size()),
      "JobDefaults=(null)",
      fmt::format("DefMemPerNode=UNLIMITED MaxMemPerNode={}",
                  p.max_mem_per_node ? std::to_string(*p.max_mem_per_node) : "UNLIMITED"),
  };
  std::string out = Layout(lines, one_liner);
  return one_liner ? out : out + "\n";
}

}  // namespace rota::cli
