// dask-jobqueue's Slurm contract against a real Rota cluster, with real Dask
// (Debian's python3-distributed 2022.12). dask-jobqueue itself is no Debian
// package, so a driver makes the calls its SLURMCluster makes
// (docs/clients.md): for each worker a batch script in a temporary file, its
// header "#SBATCH -J dask-worker", "-e LOG/dask-worker-%J.err", "-o
// LOG/dask-worker-%J.out", "-p PART", "-n 1", "--cpus-per-task=N",
// "--mem=NM" (its bytes rounded up to K, M or G), "-t HH:MM:SS", then
// `PYTHON -m distributed.cli.dask_worker tcp://SCHEDULER --nthreads N
// --memory-limit X --name NAME --nanny --death-timeout 60`; `sbatch FILE`,
// the job id being the first run of digits of the answer; `scancel JOBID` to
// stop a worker. The workers connect back to a scheduler on 127.0.0.1.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "tests/integration/accounted_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ReadFileText;
using testing::RunShell;
using testing::WaitUntil;

// Debian's Python, which has python3-distributed (not the first python3 in
// PATH, which may be another).
constexpr char kPython[] = "/usr/bin/python3";

// Starts a scheduler on 127.0.0.1, submits two workers as dask-jobqueue does,
// runs a task on each and a third that joins their results (so data moves
// from one worker to the other), then cancels both jobs and waits until the
// scheduler has lost them. Prints "SUBMITTED JOBID", "WORKER JOB ADDRESS PID
// NANNY_PID CPUS", "JOINED JOB JOB" and "GONE"; cancels what it submitted
// and stops the scheduler however it ends.
constexpr char kDriver[] = R"py(
import json, os, re, signal, subprocess, sys, tempfile, time
from distributed import Client

# `timeout` ends the driver with SIGTERM: clean up all the same.
signal.signal(signal.SIGTERM, lambda *_: sys.exit("driver: terminated"))

work = os.environ["WORK"]
logs = os.path.join(work, "logs")
os.makedirs(logs, exist_ok=True)


def call(argv):
    # dask-jobqueue's Job._call: the command's output, its failure raised.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            universal_newlines=True)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError("%s exited %d: %s%s" % (argv, proc.returncode, out, err))
    return out


def job_script(scheduler, name):
    # SLURMCluster(cores=1, memory="600MB", queue="batch", walltime="00:10:00",
    # log_directory=logs, interface="lo", death_timeout=60): 600e6 bytes are
    # 573M for Slurm (rounded up), and 572.20MiB for the worker.
    return "\n".join([
        "#!/usr/bin/env bash",
        "",
        "#SBATCH -J dask-worker",
        "#SBATCH -e %s/dask-worker-%%J.err" % logs,
        "#SBATCH -o %s/dask-worker-%%J.out" % logs,
        "#SBATCH -p batch",
        "#SBATCH -n 1",
        "#SBATCH --cpus-per-task=1",
        "#SBATCH --mem=573M",
        "#SBATCH -t 00:10:00",
        "",
        "%s -m distributed.cli.dask_worker %s --nthreads 1 --memory-limit 572.20MiB"
        " --name %s --nanny --death-timeout 60 --interface lo" % (sys.executable, scheduler, name),
        ""])


def report(part):
    # Runs in a worker: which job it is, and where.
    import os
    from distributed import get_worker
    return {"part": part, "job": os.environ.get("SLURM_JOB_ID"),
            "cpus": os.environ.get("SLURM_CPUS_ON_NODE"), "address": get_worker().address,
            "pid": os.getpid(), "nanny": os.getppid()}


def join(first, second):
    return [first["job"], second["job"]]


jobs = []
cancelled = set()
client = None
scheduler_file = os.path.join(work, "scheduler.json")
scheduler = subprocess.Popen(
    [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
     "--no-dashboard", "--scheduler-file", scheduler_file],
    stdout=open(os.path.join(work, "scheduler.log"), "w"), stderr=subprocess.STDOUT)
try:
    deadline = time.time() + 30
    while not os.path.exists(scheduler_file) and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.2)  # The file is written whole, but let it be closed.
    with open(scheduler_file) as f:
        address = json.load(f)["address"]
    for n in range(2):
        # As dask-jobqueue's Job.job_file: the script lives only while sbatch runs.
        with tempfile.NamedTemporaryFile("w", suffix=".sh", dir=work) as script:
            script.write(job_script(address, "SLURMCluster-%d" % n))
            script.flush()
            answer = call(["sbatch", script.name])
        jobs.append(re.search(r"(?P<job_id>\d+)", answer).group("job_id"))
        print("SUBMITTED", jobs[-1], flush=True)

    client = Client(address, timeout=30)
    client.wait_for_workers(2, timeout=90)
    workers = sorted(client.scheduler_info()["workers"])
    parts = [client.submit(report, n, workers=[w], allow_other_workers=False, pure=False)
             for n, w in enumerate(workers)]
    joined = client.submit(join, parts[0], parts[1], workers=[workers[1]],
                           allow_other_workers=False, pure=False)
    for part in client.gather(parts):
        print("WORKER", part["job"], part["address"], part["pid"], part["nanny"], part["cpus"],
              flush=True)
    print("JOINED", *joined.result(timeout=60), flush=True)

    # SLURMCluster.close / scale down: one scancel per job.
    for job in jobs:
        call(["scancel", job])
        cancelled.add(job)
    deadline = time.time() + 30
    while client.scheduler_info()["workers"] and time.time() < deadline:
        time.sleep(0.2)
    if not client.scheduler_info()["workers"]:
        print("GONE", flush=True)
finally:
    for job in jobs:
        if job not in cancelled:
            subprocess.call(["scancel", job])
    if client is not None:
        client.close(timeout=10)
    scheduler.terminate()
    try:
        scheduler.wait(10)
    except subprocess.TimeoutExpired:
        scheduler.kill()
)py";

class DaskJobqueueClientTest : public testing::AccountedClusterTest {
 protected:
  void SetUp() override {
    // Installed by `make test` (scripts/install-deps.sh --with-clients).
    ASSERT_EQ(RunShell(std::string(kPython) + " -c 'import distributed' 2>&1").exit_code, 0)
        << "python3-distributed is missing: run scripts/install-deps.sh --with-clients";
    AccountedClusterTest::SetUp();
  }
};

TEST_F(DaskJobqueueClientTest, WorkersSubmittedAsDaskJobqueueDoesComputeAndAreCancelled) {
  const std::string work = cluster_->work_dir() + "/dask";
  std::filesystem::create_directories(work);
  std::ofstream(work + "/driver.py") << kDriver;
  // HOME, DASK_CONFIG and TMPDIR (the workers' space) keep Dask's files in
  // the test; the workers' jobs inherit them (sbatch exports the whole
  // environment).
  CommandResult run = cluster_->Run("sh -c 'cd " + work + " && WORK=" + work + " HOME=" + work +
                                    " DASK_CONFIG=" + work + "/config TMPDIR=" + work +
                                    " exec timeout 150 " + kPython + " driver.py'");
  // On failure, what the scheduler and the workers' jobs wrote too.
  auto logs = [&] {
    return RunShell("tail -n 40 " + work + "/scheduler.log " + work + "/logs/* 2>&1").out +
           cluster_->Run("squeue -t all").out;
  };
  ASSERT_EQ(run.exit_code, 0) << run.out << logs();

  std::vector<std::string> jobs;
  std::vector<std::vector<std::string>> workers;
  std::string joined;
  bool gone = false;
  for (std::string_view line : Split(run.out, '\n')) {
    std::vector<std::string_view> words = Split(line, ' ');
    if (words[0] == "SUBMITTED" && words.size() == 2) jobs.emplace_back(words[1]);
    if (words[0] == "WORKER" && words.size() == 6) workers.emplace_back(words.begin(), words.end());
    if (words[0] == "JOINED") joined = std::string(line);
    gone = gone || line == "GONE";
  }
  ASSERT_EQ(jobs.size(), 2u) << run.out;
  ASSERT_NE(jobs[0], jobs[1]) << run.out;
  ASSERT_EQ(workers.size(), 2u) << run.out << logs();
  // Each worker runs in one of the two jobs, with the one CPU it asked for,
  // on its own address on the loopback.
  EXPECT_NE(workers[0][1], workers[1][1]) << run.out << "one worker per job";
  EXPECT_NE(workers[0][2], workers[1][2]) << run.out;
  for (const std::vector<std::string>& worker : workers) {
    EXPECT_TRUE(worker[1] == jobs[0] || worker[1] == jobs[1]) << run.out;
    EXPECT_TRUE(worker[2].starts_with("tcp://127.0.0.1:")) << run.out;
    EXPECT_EQ(worker[5], "1") << run.out << "--cpus-per-task=1 is SLURM_CPUS_ON_NODE=1";
  }
  // The joining task got both results, one of them from the other worker.
  EXPECT_EQ(joined, "JOINED " + workers[0][1] + " " + workers[1][1]) << run.out;
  EXPECT_TRUE(gone) << run.out << logs() << "the scheduler still has workers after scancel";

  // Both jobs were cancelled, as squeue and accounting say, and nothing of
  // either worker (nanny or worker process) is left.
  for (const std::string& job : jobs) {
    EXPECT_TRUE(WaitForState(job, "CANCELLED")) << cluster_->Run("squeue -t all").out;
  }
  for (const std::vector<std::string>& worker : workers) {
    for (const std::string& pid : {worker[3], worker[4]}) {
      EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(std::stoi(pid)); }))
          << "process " << pid << " of job " << worker[1] << " outlived scancel";
    }
  }
  const std::string sacct = SacctOnceItHasRows(
      "-X -n -P -o JobID,JobName,State -j " + jobs[0] + "," + jobs[1], 2, "CANCELLED by 0");
  std::vector<std::string_view> rows = Split(Trim(sacct), '\n');
  ASSERT_EQ(rows.size(), 2u) << sacct;
  for (std::string_view row : rows) {
    EXPECT_TRUE(row.ends_with("|dask-worker|CANCELLED by 0")) << sacct;
  }

  // -e/-o with %J: each job's own files, the job id in their names (a batch
  // job's %J is its job id alone); the worker logs to stderr.
  for (const std::string& job : jobs) {
    const std::string err = work + "/logs/dask-worker-" + job + ".err";
    EXPECT_TRUE(std::filesystem::exists(work + "/logs/dask-worker-" + job + ".out"))
        << RunShell("ls " + work + "/logs").out;
    EXPECT_NE(ReadFileText(err).find("Start worker at"), std::string::npos)
        << err << ":\n"
        << ReadFileText(err) << RunShell("ls " + work + "/logs").out;
  }
}

}  // namespace
}  // namespace rota
