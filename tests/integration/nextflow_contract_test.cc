// Nextflow's Slurm executor contract against a real Rota cluster. Nextflow is
// no Debian package, so this is not Nextflow running: a driver makes the calls
// its Slurm executor makes (docs/clients.md) and reads the answers as it reads
// them. Each task has a work directory with a .command.run whose header is
// "#SBATCH -J nf-NAME", "-o DIR/.command.log" (no -e: stdout and stderr in
// one file), "--no-requeue", "--signal B:USR2@30", "-c N" (when N > 1), "-t
// HH:MM:SS", "--mem NM", "-p PART"; it is submitted as `sbatch .command.run`
// from that directory, the id read with /Submitted batch job\s*(\d+)/. The
// executor polls `squeue --noheader -o '%i %t' -t all -p PART -u USER`, takes
// each line of exactly two words as "ID SHORT_STATE", and reads a task's
// .exitcode once its state is no longer pending or running; `scancel ID`
// kills a task.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/strings.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ReadFileText;
using testing::RunShell;

constexpr char kPython[] = "/usr/bin/python3";

// Four tasks on a cluster of two 2-CPU nodes: ALIGN (1) (2 CPUs) succeeds,
// ALIGN (2) (2 CPUs) exits 3, SLEEP (1) (2 CPUs), which must wait for one of
// them to end, is killed once it runs, and SLOW (1) (1 CPU) runs into its
// one-minute limit. Prints "TASK NAME JOBID", "STATES JOBID PD R ..." (each
// short state as it changed), "EXIT JOBID CODE" (the .exitcode read once the
// job was no longer pending or running), "RAN JOBID SECONDS" (from
// .command.begin to .exitcode), "KILLED JOBID", and "INVALID LINE" for any
// squeue line the executor would drop.
constexpr char kDriver[] = R"py(
import os, pwd, re, signal, subprocess, sys, time

# `timeout` ends the driver with SIGTERM: cancel the jobs all the same.
signal.signal(signal.SIGTERM, lambda *_: sys.exit("driver: terminated"))

work = os.environ["WORK"]
user = pwd.getpwuid(os.getuid()).pw_name  # Java's user.name
status_map = {"PD": "PENDING", "R": "RUNNING", "CA": "ERROR", "CF": "PENDING", "CG": "RUNNING",
              "CD": "DONE", "F": "ERROR", "TO": "ERROR", "NF": "ERROR", "S": "HOLD",
              "ST": "HOLD", "PR": "ERROR", "BF": "ERROR"}

# The launcher's own part, reduced to what the executor reads back: the task
# runs in the background so that a signal reaches the traps at once; its
# output is copied to the job's output after it ends; .exitcode is written on
# any exit, a signalled task's being 128 + the signal.
launcher = r'''
task_dir=%(dir)s
on_exit() {
  status=${task_status:-$?}
  cat "$task_dir/.command.out"
  cat "$task_dir/.command.err" >&2
  printf '%%s' "$status" > "$task_dir/.exitcode"
  exit "$status"
}
on_signal() {
  [ -n "${task_pid:-}" ] && kill -TERM "$task_pid" 2>/dev/null
}
trap on_exit EXIT
trap on_signal TERM INT USR2
touch "$task_dir/.command.begin"
echo "launcher in $PWD on $SLURMD_NODENAME"
/bin/bash "$task_dir/.command.sh" > "$task_dir/.command.out" 2> "$task_dir/.command.err" &
task_pid=$!
wait "$task_pid"
task_status=$?
echo "launcher done" >&2
'''

# (name, work directory, cpus, time limit, script).
tasks = [
    ("ALIGN (1)", "3f/a01c", 2, "00:05:00", 'echo "aligned"; echo "a warning" >&2; sleep 3'),
    ("ALIGN (2)", "8e/b02d", 2, "00:05:00", 'echo "failing"; sleep 3; exit 3'),
    ("SLEEP (1)", "c4/c03e", 2, "00:05:00", 'echo "sleeping"; exec sleep 120'),
    # Runs into its one-minute limit: USR2 reaches the launcher alone, 30 s
    # before the end (the task would say so if it got it too).
    ("SLOW (1)", "d7/d04f", 1, "00:01:00",
     'trap "echo task got USR2" USR2; echo "slow"; sleep 300 & wait $!'),
]


def header(name, task_dir, cpus, time_limit):
    # The directives as pairs, one "#SBATCH NAME VALUE" line each (no value
    # for --no-requeue; no -c for one CPU).
    directives = [("-J", "nf-" + name.replace(" ", "_")), ("-o", task_dir + "/.command.log"),
                  ("--no-requeue", ""), ("--signal", "B:USR2@30")]
    if cpus > 1:
        directives.append(("-c", str(cpus)))
    directives += [("-t", time_limit), ("--mem", "100M"), ("-p", "batch")]
    return "".join("#SBATCH %s\n" % (n + (" " + v if v else "")) for n, v in directives)


def submit(task_dir):
    answer = subprocess.run(["sbatch", ".command.run"], cwd=task_dir, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, universal_newlines=True)
    if answer.returncode != 0:
        raise RuntimeError("sbatch exited %d: %s" % (answer.returncode, answer.stdout))
    for line in answer.stdout.splitlines():
        m = re.search(r"Submitted batch job\s*(\d+)", line)
        if m:
            return m.group(1)
    raise RuntimeError("no job id in: " + answer.stdout)


def queue_status():
    out = subprocess.run(["squeue", "--noheader", "-o", "%i %t", "-t", "all", "-p", "batch",
                          "-u", user], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, check=True).stdout
    result = {}
    for line in out.splitlines():
        cols = re.split(r"\s+", line)
        while cols and cols[-1] == "":  # As Java's String.split: no trailing empty words.
            cols.pop()
        if len(cols) == 2:
            result[cols[0]] = cols[1]
        else:
            print("INVALID", repr(line), flush=True)
    return result


jobs = {}
try:
    for name, rel, cpus, time_limit, script in tasks:
        task_dir = os.path.join(work, rel)
        os.makedirs(task_dir)
        with open(os.path.join(task_dir, ".command.sh"), "w") as f:
            f.write("#!/bin/bash -ue\necho \"in $PWD\"\n" + script + "\n")
        with open(os.path.join(task_dir, ".command.run"), "w") as f:
            f.write("#!/bin/bash\n" + header(name, task_dir, cpus, time_limit) +
                    launcher % {"dir": task_dir})
        jobs[name] = (submit(task_dir), task_dir)
        print("TASK", name.replace(" ", "_"), jobs[name][0], flush=True)

    seen = {job: [] for job, _ in jobs.values()}
    exit_codes = {}
    killed = False
    deadline = time.time() + 75
    while len(exit_codes) < len(jobs) and time.time() < deadline:
        status = queue_status()
        for name, (job, task_dir) in jobs.items():
            short = status.get(job)
            if short is not None and (not seen[job] or seen[job][-1] != short):
                seen[job].append(short)
            state = status_map.get(short)
            if (name == "SLEEP (1)" and not killed and state == "RUNNING" and
                    os.path.exists(os.path.join(task_dir, ".command.begin"))):
                subprocess.run(["scancel", job], check=True)
                killed = True
                print("KILLED", job, flush=True)
            exitcode = os.path.join(task_dir, ".exitcode")
            if (job not in exit_codes and state not in ("PENDING", "RUNNING", "HOLD") and
                    os.path.exists(exitcode)):
                with open(exitcode) as f:
                    exit_codes[job] = f.read().strip()
        time.sleep(0.25)
    for job, task_dir in jobs.values():
        print("STATES", job, *seen[job], flush=True)
        print("EXIT", job, exit_codes.get(job, "none"), flush=True)
        begin, end = (os.path.join(task_dir, f) for f in (".command.begin", ".exitcode"))
        if os.path.exists(begin) and os.path.exists(end):
            print("RAN", job, round(os.path.getmtime(end) - os.path.getmtime(begin)), flush=True)
finally:
    for job, _ in jobs.values():
        subprocess.call(["scancel", job], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
)py";

class NextflowContractTest : public testing::TwoNodeClusterTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(kPython)) << kPython << " is missing";
    TwoNodeClusterTest::SetUp();
  }
};

TEST_F(NextflowContractTest, TasksAreSubmittedPolledAndKilledAsItsSlurmExecutorDoes) {
  const std::string work = cluster_->work_dir() + "/nf";
  std::filesystem::create_directories(work);
  std::ofstream(work + "/driver.py") << kDriver;
  CommandResult run = cluster_->Run("sh -c 'cd " + work + " && WORK=" + work +
                                    " exec timeout 100 " + kPython + " driver.py'");
  ASSERT_EQ(run.exit_code, 0) << run.out << cluster_->Run("squeue -t all").out;

  std::map<std::string, std::string> job_of;        // task -> job id
  std::map<std::string, std::string> states_of;     // job id -> "PD R CD"
  std::map<std::string, std::string> exit_code_of;  // job id -> .exitcode
  std::map<std::string, int> seconds_of;            // job id -> how long it ran
  std::string killed;
  for (std::string_view line : Split(run.out, '\n')) {
    std::vector<std::string_view> words = Split(line, ' ');
    EXPECT_NE(words[0], "INVALID") << run.out << "a squeue line Nextflow would drop";
    if (words.size() < 2) continue;
    const std::string job(words[1]);
    if (words[0] == "TASK" && words.size() == 3) job_of[job] = words[2];
    if (words[0] == "STATES") {
      states_of[job] = line.size() > 8 + job.size() ? std::string(line.substr(8 + job.size())) : "";
    }
    if (words[0] == "EXIT" && words.size() == 3) exit_code_of[job] = words[2];
    if (words[0] == "RAN" && words.size() == 3) seconds_of[job] = std::stoi(std::string(words[2]));
    if (words[0] == "KILLED") killed = job;
  }
  ASSERT_EQ(job_of.size(), 4u) << run.out;
  const std::string ok = job_of["ALIGN_(1)"];
  const std::string failed = job_of["ALIGN_(2)"];
  const std::string sleeper = job_of["SLEEP_(1)"];
  const std::string slow = job_of["SLOW_(1)"];
  EXPECT_EQ(killed, sleeper) << run.out;

  // How the executor saw each job move: running, then done or in error. A
  // short pending or completing spell may fall between two polls; the
  // sleeper had to wait for a node, so its pending was seen.
  auto moved = [](const std::string& states, const std::string& last) {
    std::vector<std::string_view> seen = Split(states, ' ');
    std::vector<std::string_view> order = {"PD", "R", "CG", last};
    size_t at = 0;
    for (std::string_view s : seen) {
      while (at < order.size() && order[at] != s) ++at;
      if (at == order.size()) return false;
    }
    return seen.back() == last && std::find(seen.begin(), seen.end(), "R") != seen.end();
  };
  for (const auto& [job, last] : std::map<std::string, std::string>{
           {ok, "CD"}, {failed, "F"}, {sleeper, "CA"}, {slow, "F"}}) {
    EXPECT_TRUE(moved(states_of[job], last)) << job << ": " << states_of[job] << "\n" << run.out;
  }
  EXPECT_TRUE(states_of[sleeper].starts_with("PD R")) << states_of[sleeper] << "\n" << run.out;

  // What the launcher left for the executor: the task's exit code, 143 for
  // the killed one (its batch shell got SIGTERM before any SIGKILL and ran its
  // trap), 140 for the slow one (128 + USR2, which nf-core's configurations
  // retry with more time); and one log with stdout and stderr, written in the
  // task's directory.
  EXPECT_EQ(exit_code_of[ok], "0") << run.out;
  EXPECT_EQ(exit_code_of[failed], "3") << run.out;
  EXPECT_EQ(exit_code_of[sleeper], "143") << run.out;
  EXPECT_EQ(exit_code_of[slow], "140") << run.out;
  // --signal B:USR2@30 with -t 00:01:00: the signal came 30 s before the end.
  EXPECT_GE(seconds_of[slow], 25) << run.out;
  EXPECT_LE(seconds_of[slow], 40) << run.out;
  const std::map<std::string, std::string> dirs = {{ok, work + "/3f/a01c"},
                                                   {failed, work + "/8e/b02d"},
                                                   {sleeper, work + "/c4/c03e"},
                                                   {slow, work + "/d7/d04f"}};
  for (const auto& [job, dir] : dirs) {
    const std::string log = ReadFileText(dir + "/.command.log");
    EXPECT_NE(log.find("launcher in " + dir + " on "), std::string::npos) << job << ":\n" << log;
    EXPECT_NE(log.find("in " + dir + "\n"), std::string::npos) << job << ":\n" << log;
    EXPECT_NE(log.find("launcher done"), std::string::npos) << job << ":\n" << log;
    EXPECT_EQ(ReadFileText(dir + "/.exitcode"), exit_code_of[job]);
  }
  EXPECT_NE(ReadFileText(work + "/3f/a01c/.command.log").find("aligned\na warning\n"),
            std::string::npos);
  EXPECT_NE(ReadFileText(work + "/8e/b02d/.command.log").find("failing\n"), std::string::npos);
  EXPECT_NE(ReadFileText(work + "/c4/c03e/.command.log").find("sleeping\n"), std::string::npos);
  const std::string slow_log = ReadFileText(work + "/d7/d04f/.command.log");
  EXPECT_NE(slow_log.find("slow\n"), std::string::npos) << slow_log;
  EXPECT_EQ(slow_log.find("task got USR2"), std::string::npos)
      << slow_log << "B: signals the batch shell only";
  // No slurm-N.out beside them: -o took both streams.
  EXPECT_EQ(RunShell("find " + work + " -name 'slurm-*'").out, "");

  // The names as Nextflow gave them.
  EXPECT_EQ(cluster_->Run("squeue -h -t all -o %j -j " + ok).out, "nf-ALIGN_(1)\n");
}

}  // namespace
}  // namespace rota
